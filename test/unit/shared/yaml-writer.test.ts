import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { Document, parseAllDocuments, stringify } from 'yaml';
import { writeYamlDocument, YAML11_IMPLICIT_TAG_TESTS } from '../../../src/shared/yaml-writer.ts';
import { sortKeysDeep, toSortedYaml, toYaml } from '../../../src/shared/yaml.ts';
import { assertFloor, assertProperty, fuzzRuns } from '../../helpers/fuzz-runs.ts';

/** The `yaml` package with toYaml's options: what the writer must equal byte for byte. */
function reference(value: unknown): string {
  return stringify(value, {
    lineWidth: 0,
    indent: 2,
    aliasDuplicateObjects: false,
    version: '1.1',
    directives: false,
  });
}

const runs = fuzzRuns(300, 20_000);

/** Strings made of the characters YAML cares about: indicators, quotes, spaces, newlines, digits. */
const trickyString = fc.oneof(
  fc.string({
    unit: fc.constantFrom(
      ...'aZ_/.-:# \n\t\'"{}[],&*!|>%@`?~01789xeE+<=;()'.split(''),
      'yes',
      'on',
      'null',
      'true',
      '---',
      '...',
      '0x1f',
      '12:30',
      '2001-12-14',
      '\u00e9',
      '\u0007',
    ),
    maxLength: 24,
  }),
  fc.constantFrom(
    '',
    ' ',
    '\n',
    'a\n',
    'a\n\n',
    '\na',
    ' a\nb',
    'a\n b',
    'a \nb',
    '<<',
    'y',
    'N',
    '.5',
    '1e3',
  ),
  fc.lorem({ maxCount: 12, mode: 'sentences' }),
);

const scalar = fc.oneof(
  trickyString,
  fc.integer(),
  fc.double({ noNaN: false }),
  fc.constantFrom(-0, 0.5, 1e21, Infinity, -Infinity),
  fc.boolean(),
  fc.constant(null),
);

const key = fc.oneof(
  fc.constantFrom('type', 'description', 'properties', 'x-kubernetes-int-or-string', 'on', 'y', '1', ''),
  trickyString,
);

const { value: jsonValue } = fc.letrec((tie) => ({
  value: fc.oneof({ depthSize: 'small' }, scalar, tie('array'), tie('object')),
  array: fc.array(tie('value'), { maxLength: 4 }),
  object: fc.dictionary(key, fc.option(tie('value'), { nil: undefined, freq: 8 }), { maxKeys: 5 }),
}));

/** Schemas shaped like a CRD's: the writer must take them (no fallback) and match. */
const leafFields = {
  type: fc.constantFrom('object', 'string', 'integer', 'array', 'boolean'),
  description: fc.oneof(
    fc.lorem({ maxCount: 3, mode: 'sentences' }),
    fc
      .array(fc.lorem({ maxCount: 2, mode: 'sentences' }), { minLength: 2, maxLength: 4 })
      .map((l) => l.join('\n')),
  ),
  format: fc.constantFrom('int32', 'int64', 'date-time'),
  enum: fc.array(fc.constantFrom('Alpha', 'True', 'False', 'on', 'off', '1', 'a b'), {
    minLength: 1,
    maxLength: 4,
  }),
  pattern: fc.constantFrom('^[a-z]+$', '^[a-z0-9]([-a-z0-9]*[a-z0-9])?$', '\\d+: #x'),
  minimum: fc.integer({ min: -5, max: 100 }),
  maximum: fc.integer({ min: 100, max: 100000 }),
  required: fc.array(fc.constantFrom('name', 'spec', 'port'), { maxLength: 3 }),
  'x-kubernetes-list-type': fc.constantFrom('map', 'atomic', 'set'),
  'x-kubernetes-preserve-unknown-fields': fc.constant(true),
  'x-kubernetes-validations': fc.array(
    fc.record({ rule: fc.constantFrom('self.a > 0', "self.x == 'y'", 'has(self.z)'), message: fc.lorem() }),
    { maxLength: 2 },
  ),
  default: fc.oneof(fc.constant({}), fc.constant([]), fc.integer(), fc.constantFrom('on', 'x')),
};
const { schema } = fc.letrec((tie) => ({
  schema: fc.oneof(
    { maxDepth: 4, depthIdentifier: 'schema' },
    fc.record(leafFields, { requiredKeys: ['type'] }),
    fc.record(
      {
        ...leafFields,
        properties: fc.dictionary(fc.constantFrom('name', 'spec', 'port', 'items', 'nested'), tie('schema'), {
          maxKeys: 3,
        }),
        items: tie('schema'),
      },
      { requiredKeys: ['type'] },
    ),
  ),
}));

describe('writeYamlDocument', () => {
  it('writes exactly what the yaml package writes, or gives way to it (random values)', async (t) => {
    let own = 0;
    await assertProperty(
      t,
      fc.property(fc.dictionary(key, jsonValue, { minKeys: 1, maxKeys: 6 }), (value) => {
        const ours = writeYamlDocument(value);
        if (ours !== undefined) {
          own++;
          assert.equal(ours, reference(value));
        }
        const sorted = writeYamlDocument(value, { sortKeys: true });
        if (sorted !== undefined) assert.equal(sorted, reference(sortKeysDeep(value)));
        assert.equal(toYaml(value), reference(value));
        assert.equal(toSortedYaml(value), reference(sortKeysDeep(value)));
      }),
      runs * 3,
    );
    // Many random values (about a third) are written by the writer itself, not handed to the yaml package.
    assertFloor(t, 'written by the writer itself', own, runs / 2);
  });

  it('writes CRD-shaped schemas itself, byte for byte as the yaml package', async (t) => {
    // Every case is the interesting one: a CRD-shaped document the writer declines fails the property.
    await assertProperty(
      t,
      fc.property(schema, (s) => {
        const doc = { apiVersion: 'apiextensions.k8s.io/v1', spec: { versions: [{ schema: s }] } };
        const ours = writeYamlDocument(doc, { sortKeys: true });
        assert.notEqual(ours, undefined, 'a CRD-shaped document fell back to the yaml package');
        assert.equal(ours, reference(sortKeysDeep(doc)));
      }),
      runs,
    );
  });

  it('writes every YAML golden as the yaml package does (and takes every CRD golden itself)', () => {
    const goldens: string[] = [];
    const walk = (dir: string): void => {
      for (const f of readdirSync(dir)) {
        const p = join(dir, f);
        // Helm chart templates are Go templates (`{{ ... }}`), not YAML documents.
        if (statSync(p).isDirectory()) {
          if (!/\/golden\/helm\/.*\/templates$/.test(p)) walk(p);
        } else if (/\.ya?ml$/.test(f)) goldens.push(p);
      }
    };
    walk(new URL('../../golden', import.meta.url).pathname);
    assert.ok(goldens.length > 10);
    let own = 0;
    for (const file of goldens) {
      for (const doc of parseAllDocuments(readFileSync(file, 'utf8'))) {
        if (!('toJS' in doc)) continue;
        const value = doc.toJS() as unknown;
        const ours = writeYamlDocument(value);
        if (file.includes('/crd/')) assert.notEqual(ours, undefined, `${file} fell back`);
        if (ours === undefined) continue;
        own++;
        assert.equal(ours, reference(value), file);
      }
    }
    assert.ok(own > 10);
  });

  it('quotes what YAML 1.1 reads as another type, with the yaml package`s own tests', () => {
    const schemaTags = new Document(null, { version: '1.1' }).schema.tags as {
      tag: string;
      default?: unknown;
      test?: RegExp;
    }[];
    const theirs = schemaTags
      .filter((t) => t.default && t.tag !== 'tag:yaml.org,2002:str' && t.test)
      .map((t) => String(t.test))
      .sort();
    assert.deepEqual(YAML11_IMPLICIT_TAG_TESTS.map(String).sort(), theirs);
  });

  it('quotes YAML 1.1 floats that start with a letter (E0, e-5) as keys and values (found by the random-values property)', () => {
    for (const s of ['E0', 'e5', 'E-1', 'e+10', 'E1_0']) {
      for (const value of [{ [s]: 1 }, { a: s }, { '': { [s]: -0 } }]) {
        assert.equal(writeYamlDocument(value), reference(value), JSON.stringify(value));
      }
    }
    // Letters that are no exponent stay plain.
    assert.equal(writeYamlDocument({ E: 'Ex1' }), 'E: Ex1\n');
  });

  it('gives way on what it does not write itself', () => {
    assert.equal(writeYamlDocument({ a: 'x\n' + ' '.repeat(2) }), undefined);
    assert.equal(writeYamlDocument({ a: new Date(0) }), undefined);
    assert.equal(writeYamlDocument({ a: 'bell\u0007' }), undefined);
    assert.equal(writeYamlDocument({}), undefined);
    assert.equal(writeYamlDocument(['a']), undefined);
    assert.equal(writeYamlDocument({ a: 'x' }), 'a: x\n');
  });
});
