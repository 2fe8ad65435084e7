import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import type { JSONSchemaProps } from '../../../src/api-types/json-schema.ts';
import { crdAroundSpec, type CrdObject } from '../../helpers/crds.ts';
import { fuzzRuns } from '../../helpers/fuzz-runs.ts';
import { sink } from '../../helpers/io.ts';
import { main } from '../../../src/cli/main.ts';
import { defineKind } from '../../../src/client/kind.ts';
import { ResourceClient } from '../../../src/client/resource-client.ts';
import { Transport } from '../../../src/client/transport.ts';
import { crdMarkers, crdMarkerSpecs } from '../../../src/generate/crd/markers.ts';
import { parseDocComment } from '../../../src/markers/index.ts';
import {
  controlPlaneSkip,
  installCrd,
  startControlPlane,
  type ControlPlane,
} from '../../../src/testing/index.ts';

/**
 * op-gen's verdict on marker combinations held to the real API server's (issue 37, item 6): for
 * each case the field's schema as the markers make it (their effects applied without op-gen's
 * checks) goes to the API server in a CRD, created with a server-side dry run; `generate crd` must
 * refuse every CRD the server refuses, and accept every one it accepts unless the case is one no
 * object can use (unsatisfiable constraints, which the server lets through). When both accept and
 * the field has a default, the CRD is installed and an object without the field is created, so the
 * server applies the default.
 */
interface Case {
  readonly name: string;
  /** The field's TypeScript type. */
  readonly type: string;
  /** Marker lines (without ` * `). */
  readonly markers: readonly string[];
  /** Set when op-gen refuses what the server accepts: why no object can use the field. */
  readonly unsatisfiable?: string;
}

const CASES: readonly Case[] = [
  { name: 'pattern with an unclosed group', type: 'string', markers: ['@pattern ^([a-z'] },
  { name: 'pattern with a lookahead (JavaScript only)', type: 'string', markers: ['@pattern (?=x)abc'] },
  { name: 'pattern with a backreference', type: 'string', markers: ['@pattern (a)\\1'] },
  {
    name: 'pattern with \\z and a POSIX class (RE2 only)',
    type: 'string',
    markers: ['@pattern ^[[:alpha:]]+\\z'],
  },
  { name: 'pattern with a repeat over 1000', type: 'string', markers: ['@pattern a{1001}'] },
  { name: 'default below the minimum', type: 'int32', markers: ['@minimum 0', '@default -5'] },
  {
    name: 'default above an exclusive maximum',
    type: 'int32',
    markers: ['@exclusiveMaximum 10', '@default 10'],
  },
  { name: 'default within bounds', type: 'int32', markers: ['@minimum 1', '@maximum 5', '@default 3'] },
  { name: 'default not a multiple', type: 'number', markers: ['@multipleOf 2', '@default 3'] },
  {
    name: 'default not matching the pattern',
    type: 'string',
    markers: ['@pattern ^[a-z]+$', '@default "ABC"'],
  },
  { name: 'default matching the pattern', type: 'string', markers: ['@pattern ^[a-z]+$', '@default "abc"'] },
  { name: 'default longer than maxLength', type: 'string', markers: ['@maxLength 3', '@default "abcd"'] },
  { name: 'default not a date-time', type: 'string', markers: ['@format date-time', '@default "soon"'] },
  {
    name: 'default a date-time',
    type: 'string',
    markers: ['@format date-time', '@default "2026-11-27T02:00:00Z"'],
  },
  { name: 'default with too many items', type: 'string[]', markers: ['@maxItems 1', '@default ["a","b"]'] },
  {
    name: 'default item not in the items enum',
    type: 'string[]',
    markers: ['@items:enum a;b', '@default ["c"]'],
  },
  {
    name: 'object default lacking a required field',
    type: '{ x: string; y?: int32 }',
    markers: ['@default {"y": 1}'],
  },
  { name: 'object default with a wrong nested type', type: '{ x?: string }', markers: ['@default {"x": 1}'] },
  {
    name: 'object default lacking a required field that has its own default',
    type: 'Inner',
    markers: ['@default {"x": "a"}'],
  },
  {
    name: 'minimum above maximum',
    type: 'int32',
    markers: ['@minimum 5', '@maximum 1'],
    unsatisfiable: 'no integer is ≥ 5 and ≤ 1',
  },
  { name: 'minimum equal to maximum', type: 'int32', markers: ['@minimum 5', '@maximum 5'] },
  {
    name: 'minLength above maxLength',
    type: 'string',
    markers: ['@minLength 5', '@maxLength 2'],
    unsatisfiable: 'no string is that long and that short',
  },
  {
    name: 'minItems above maxItems',
    type: 'string[]',
    markers: ['@minItems 3', '@maxItems 1'],
    unsatisfiable: 'no list has ≥ 3 and ≤ 1 items',
  },
  {
    name: 'minProperties above maxProperties',
    type: 'Record<string, string>',
    markers: ['@minProperties 2', '@maxProperties 1'],
    unsatisfiable: 'no map has ≥ 2 and ≤ 1 keys',
  },
  {
    name: 'negative maxLength',
    type: 'string',
    markers: ['@maxLength -1'],
    unsatisfiable: 'no string is shorter than 0',
  },
  {
    name: 'multipleOf 0',
    type: 'number',
    markers: ['@multipleOf 0'],
    unsatisfiable: 'no number is a multiple of 0',
  },
  {
    name: 'an enum value the pattern refuses',
    type: 'string',
    markers: ['@enum a;B;c', '@pattern ^[a-z]+$'],
    unsatisfiable: '"B" can never be set',
  },
  {
    name: 'an enum value over maxLength',
    type: 'string',
    markers: ['@enum a;bbbb', '@maxLength 3'],
    unsatisfiable: '"bbbb" can never be set',
  },
  { name: 'unknown format (a warning)', type: 'string', markers: ['@format not-a-format'] },
];

const GROUP = 'verdicts.example.com';
const CrdKind = defineKind<{ metadata: { name: string } } & Record<string, unknown>>({
  group: 'apiextensions.k8s.io',
  version: 'v1',
  kind: 'CustomResourceDefinition',
  plural: 'customresourcedefinitions',
  namespaced: false,
});

const INNER = 'export interface Inner {\n  x: string;\n  /** @default 2 */\n  y: int32;\n}\n';

function typesFile(c: Case): string {
  const doc = c.markers.map((m) => `   * ${m}\n`).join('');
  return `import type { ObjectMeta, int32 } from 'op-gen';
${INNER}
export interface ThingSpec {
  /**
${doc}   */
  field?: ${c.type};
}
/**
 * @kind
 */
export interface Thing {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  spec?: ThingSpec;
}
`;
}

/** The field's schema as the markers make it, without op-gen's checks (what an unchecked CRD would hold). */
function uncheckedSchema(c: Case): JSONSchemaProps {
  const base: Record<string, JSONSchemaProps> = {
    string: { type: 'string' },
    int32: { type: 'integer', format: 'int32' },
    number: { type: 'number' },
    'string[]': { type: 'array', items: { type: 'string' } },
    'Record<string, string>': { type: 'object', additionalProperties: { type: 'string' } },
    '{ x: string; y?: int32 }': {
      type: 'object',
      required: ['x'],
      properties: { x: { type: 'string' }, y: { type: 'integer', format: 'int32' } },
    },
    '{ x?: string }': { type: 'object', properties: { x: { type: 'string' } } },
    Inner: {
      type: 'object',
      required: ['x', 'y'],
      properties: { x: { type: 'string' }, y: { type: 'integer', format: 'int32', default: 2 } },
    },
  };
  const schema: JSONSchemaProps = structuredClone(base[c.type] ?? {});
  const doc = parseDocComment(`/**\n${c.markers.map((m) => ` * ${m}\n`).join('')} */`, 1);
  const { markers } = crdMarkers.parseAll(doc.tags, 'field', 'types.ts');
  for (const m of markers) {
    const effect = m.spec.effect;
    if (effect?.on !== 'schema') continue;
    effect.apply(m.items ? (schema.items ?? {}) : schema, m);
  }
  return schema;
}

/**
 * Issue 37 item 6's property: marker combinations drawn from the registry (crdMarkerSpecs: the
 * value-keyword markers, with arguments of each spec's value type, `@items:` on lists) on each field
 * type; op-gen must refuse every CRD the server refuses, and name file:line when it refuses. What op-gen
 * refuses beyond the server (unsatisfiable or pointless combinations) is printed, not asserted.
 */
const PROPERTY_RUNS = fuzzRuns(100);
const DRAWN = [
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
  'minLength',
  'maxLength',
  'pattern',
  'format',
  'enum',
  'default',
  'minItems',
  'maxItems',
  'uniqueItems',
  'minProperties',
  'maxProperties',
] as const;
const DRAWN_SPECS = DRAWN.map((name) => {
  const spec = crdMarkerSpecs.find((s) => s.name === name);
  if (!spec) throw new Error(`@${name} is not in the marker registry`);
  return spec;
});
/** Arguments by the spec's value type (and, for free-form ones, by marker). */
function argFor(name: string, type: string | undefined): fc.Arbitrary<string> {
  if (name === 'pattern')
    return fc.constantFrom('^[a-z]+$', '^([a-z', '(?=x)a', '^[0-9]{2}$', 'a{1001}', '^x$');
  if (name === 'format')
    return fc.constantFrom('date-time', 'email', 'uuid', 'int32', 'byte', 'not-a-format');
  if (name === 'default')
    return fc.constantFrom(
      '"a"',
      '"bb"',
      '"2024-01-01T00:00:00Z"',
      '0',
      '-5',
      '3',
      '2.5',
      '[]',
      '["a"]',
      '{}',
      'true',
    );
  if (name.startsWith('exclusive')) return fc.constantFrom('true', 'false', '3');
  switch (type) {
    case 'number':
      return fc.constantFrom('-1', '0', '1', '2', '2.5', '5', '10');
    case 'int':
      return fc.constantFrom('-1', '0', '1', '2', '3', '5');
    case 'json[]':
      return fc
        .array(fc.constantFrom('a', 'bb', '1', '-1', '3', '"x1"'), { minLength: 1, maxLength: 3 })
        .map((v) => v.join(';'));
    case 'bool':
      return fc.constantFrom('', 'true', 'false');
    default:
      return fc.constant('');
  }
}
const FIELD_TYPES = ['string', 'int32', 'number', 'string[]', 'Record<string, string>'] as const;
const STRING_MARKERS = ['minLength', 'maxLength', 'pattern', 'format', 'enum', 'default'];
const NUMBER_MARKERS = [
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
  'enum',
  'default',
];
/** The markers that apply to each field type (drawn 4 times in 5; any marker otherwise). */
const APPLIES: Readonly<Record<(typeof FIELD_TYPES)[number], readonly string[]>> = {
  // `pattern` and `default` twice: the two with the most ways to be wrong.
  string: [...STRING_MARKERS, 'pattern', 'default'],
  int32: NUMBER_MARKERS,
  number: NUMBER_MARKERS,
  'string[]': ['minItems', 'maxItems', 'uniqueItems', 'default', ...STRING_MARKERS.map((m) => `items:${m}`)],
  'Record<string, string>': ['minProperties', 'maxProperties', 'default'],
};
const markerCase: fc.Arbitrary<Case> = fc.constantFrom(...FIELD_TYPES).chain((type) =>
  fc
    .uniqueArray(
      fc
        .oneof(
          { arbitrary: fc.constantFrom(...APPLIES[type]), weight: 4 },
          { arbitrary: fc.constantFrom(...DRAWN), weight: 1 },
        )
        .chain((marker) => {
          const name = marker.replace(/^items:/, '');
          const spec = DRAWN_SPECS.find((s) => s.name === name);
          return argFor(name, spec?.value?.type).map((arg) => `@${marker}${arg ? ` ${arg}` : ''}`);
        }),
      // One of each marker: a marker given twice is refused before any schema is made.
      { minLength: 1, maxLength: 3, selector: (m) => m.split(' ')[0] },
    )
    .map((markers) => ({ name: markers.join(' '), type, markers })),
);

function crdFor(plural: string, field: JSONSchemaProps): CrdObject {
  return crdAroundSpec({
    group: GROUP,
    kind: `K${plural}`,
    plural,
    spec: { type: 'object', properties: { field } },
  });
}

/** generate crd on a project of its own under `root/name` whose one API file holds case `c`. */
async function generateCase(
  root: string,
  name: string,
  c: Case,
): Promise<{ project: string; code: number; err: string }> {
  const project = join(root, name);
  const dir = join(project, 'src/api/things/v1');
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, 'groupversion.ts'),
    `export const groupVersion = { group: '${GROUP}', version: 'v1' } as const;\n`,
  );
  writeFileSync(join(dir, 'types.ts'), typesFile(c));
  const err = sink();
  const code = await main(['generate', 'crd', '--cwd', project], {
    stdout: sink().stream,
    stderr: err.stream,
  });
  return { project, code, err: err.text() };
}

describe(
  'marker combinations: op-gen refuses every CRD the API server refuses',
  { timeout: 600_000, skip: controlPlaneSkip() },
  () => {
    let cp: ControlPlane;
    let transport: Transport;
    const root = mkdtempSync(join(tmpdir(), 'op-gen-marker-verdicts-'));
    before(async () => {
      cp = await startControlPlane();
      transport = await Transport.fromKubeConfig(cp.kubeConfig);
    });
    after(async () => {
      transport?.close();
      await cp?.stop();
      rmSync(root, { recursive: true, force: true });
    });

    const counts = { serverRefused: 0, unsatisfiable: 0, bothAccept: 0, defaultsApplied: 0 };
    for (const [i, c] of CASES.entries()) {
      it(c.name, async () => {
        const { project, code, err } = await generateCase(root, String(i), c);
        const opGenAccepts = code === 0;

        const plural = `case${i}`;
        const field = uncheckedSchema(c);
        let serverAccepts = true;
        let serverSays = '';
        try {
          await new ResourceClient(transport, CrdKind).create(crdFor(plural, field), { dryRun: 'All' });
        } catch (e) {
          serverAccepts = false;
          serverSays = e instanceof Error ? e.message : String(e);
        }
        const context = `op-gen exit ${code}: ${err}\nserver: ${serverSays}\nschema: ${JSON.stringify(field)}`;
        if (!serverAccepts) {
          counts.serverRefused++;
          assert.equal(opGenAccepts, false, `the API server refuses this CRD; op-gen must too\n${context}`);
          assert.match(err, /types\.ts:\d+: /, 'the refusal names file:line');
          return;
        }
        if (c.unsatisfiable) {
          counts.unsatisfiable++;
          assert.equal(
            opGenAccepts,
            false,
            `no object can use this field (${c.unsatisfiable}); op-gen refuses\n${context}`,
          );
          assert.match(err, /types\.ts:\d+: /);
          return;
        }
        counts.bothAccept++;
        assert.equal(opGenAccepts, true, `the API server accepts this CRD; so must op-gen\n${context}`);
        if (!c.markers.some((m) => m.startsWith('@default'))) return;
        // The generated CRD, installed for real: an object without the field gets the default.
        const written = JSON.parse(
          JSON.stringify(
            (await import('yaml')).parse(
              readFileSync(join(project, `config/crd/bases/${GROUP}_things.yaml`), 'utf8'),
            ),
          ),
        ) as { spec: { names: Record<string, string> }; metadata: { name: string } };
        written.spec.names = { kind: `K${plural}`, plural, singular: plural, listKind: `K${plural}List` };
        written.metadata.name = `${plural}.${GROUP}`;
        await installCrd(cp.kubeConfig, written);
        const kind = defineKind<{
          metadata: { name: string; namespace: string };
          spec?: Record<string, unknown>;
        }>({
          group: GROUP,
          version: 'v1',
          kind: `K${plural}`,
          plural,
          namespaced: true,
        });
        const created = await new ResourceClient(transport, kind).create({
          metadata: { name: 'x', namespace: 'default' },
          spec: {},
        });
        assert.notEqual(created.spec?.field, undefined, 'the server applied the default');
        counts.defaultsApplied++;
      });
    }

    it(`${PROPERTY_RUNS} random marker combinations drawn from the registry: never exit 0 on a CRD the server refuses`, async () => {
      const tally = { runs: 0, serverRefused: 0, bothAccept: 0, opGenStricter: 0, malformed: 0 };
      const stricter = new Map<string, string>();
      let n = 0;
      await fc.assert(
        fc.asyncProperty(markerCase, async (c) => {
          tally.runs++;
          const i = `p${n++}`;
          const { code, err } = await generateCase(root, i, c);
          let field: JSONSchemaProps;
          try {
            field = uncheckedSchema(c);
          } catch {
            // A marker given twice: no schema to ask the server about; op-gen must refuse it.
            tally.malformed++;
            assert.notEqual(code, 0, `op-gen accepts a malformed marker set: ${c.markers.join(' ')}`);
            assert.match(err, /types\.ts:\d+: /);
            return;
          }
          let serverSays = '';
          try {
            await new ResourceClient(transport, CrdKind).create(crdFor(`case${i}`, field), { dryRun: 'All' });
          } catch (e) {
            serverSays = e instanceof Error ? e.message : String(e);
          }
          const context = `${c.type} ${c.markers.join(' ')}\nop-gen exit ${code}: ${err}\nserver: ${serverSays}`;
          if (code !== 0)
            assert.match(err, /types\.ts:\d+: /, `op-gen's refusal names file:line\n${context}`);
          if (serverSays) {
            tally.serverRefused++;
            assert.notEqual(code, 0, `the API server refuses this CRD; op-gen must too\n${context}`);
          } else if (code === 0) tally.bothAccept++;
          else {
            tally.opGenStricter++;
            const why = (/types\.ts:\d+: (?:[^:]+: )?(.*)/.exec(err)?.[1] ?? err).slice(0, 90);
            if (!stricter.has(why)) stricter.set(why, `${c.type} ${c.markers.join(' ')}`);
          }
        }),
        { numRuns: PROPERTY_RUNS, seed: 6 },
      );
      for (const [why, example] of stricter)
        process.stdout.write(`# op-gen refuses, server accepts: ${why} | ${example}\n`);
      process.stdout.write(`# tally: ${JSON.stringify(tally)}\n`);
      assert.equal(tally.runs, PROPERTY_RUNS);
      assert.ok(tally.serverRefused >= PROPERTY_RUNS / 10, JSON.stringify(tally));
      assert.ok(tally.bothAccept >= PROPERTY_RUNS / 10, JSON.stringify(tally));
    });

    it('covered every verdict', () => {
      assert.equal(counts.serverRefused + counts.unsatisfiable + counts.bothAccept, CASES.length);
      assert.ok(counts.serverRefused >= 10, JSON.stringify(counts));
      assert.ok(counts.unsatisfiable >= 6, JSON.stringify(counts));
      assert.ok(counts.defaultsApplied >= 3, JSON.stringify(counts));
    });
  },
);
