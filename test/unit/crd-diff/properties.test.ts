import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import type { JSONSchemaProps } from '../../../src/api-types/json-schema.ts';
import { diffSchemas } from '../../../src/crd-diff/index.ts';
import { assertFloor, assertProperty, fuzzRuns } from '../../helpers/fuzz-runs.ts';

const RUNS = fuzzRuns(200, 20_000);
const name = fc.constantFrom('a', 'b', 'c', 'spec', 'size', 'x-y');
const rules = fc.array(fc.record({ rule: fc.constantFrom('self > 0', 'self.size() < 9', 'has(self.a)') }), {
  maxLength: 2,
});
const description = fc.option(fc.string({ maxLength: 8 }), { nil: undefined });

/** Schemas with every construct the diff reads: types, bounds, enums, defaults, CEL, nesting. */
const schema: fc.Arbitrary<JSONSchemaProps> = fc.letrec<{ node: JSONSchemaProps }>((tie) => ({
  node: fc.oneof(
    { depthSize: 'small' },
    fc.record(
      {
        type: fc.constant('integer' as const),
        minimum: fc.integer({ min: -5, max: 5 }),
        maximum: fc.integer({ min: 5, max: 20 }),
        default: fc.integer({ min: 5, max: 5 }),
        enum: fc.uniqueArray(fc.integer({ min: 0, max: 9 }), { minLength: 1, maxLength: 4 }),
        description,
        'x-kubernetes-validations': rules,
      },
      { requiredKeys: ['type'] },
    ),
    fc.record(
      {
        type: fc.constant('string' as const),
        minLength: fc.nat(4),
        maxLength: fc.integer({ min: 4, max: 64 }),
        pattern: fc.constantFrom('^a', '^[a-z]+$'),
        format: fc.constantFrom('date', 'email'),
        description,
      },
      { requiredKeys: ['type'] },
    ),
    fc.record(
      {
        type: fc.constant('array' as const),
        items: tie('node'),
        minItems: fc.nat(3),
        maxItems: fc.integer({ min: 3, max: 9 }),
        description,
      },
      { requiredKeys: ['type', 'items'] },
    ),
    fc
      .record(
        {
          type: fc.constant('object' as const),
          properties: fc.dictionary(name, tie('node'), { maxKeys: 3 }),
          required: fc.uniqueArray(name, { maxLength: 2 }),
          maxProperties: fc.integer({ min: 3, max: 9 }),
          description,
          'x-kubernetes-validations': rules,
        },
        { requiredKeys: ['type', 'properties'] },
      )
      .map((s) => ({ ...s, required: (s.required ?? []).filter((r) => r in s.properties) })),
  ),
})).node;

/** Drop a constraint, move it (looser), or keep it. */
function choose(pick: () => boolean): 'drop' | 'move' | 'keep' {
  if (pick()) return 'drop';
  return pick() ? 'move' : 'keep';
}

/** A change `relax` made: the rule a finding must name, at the path it must name. */
interface Change {
  readonly rule: string;
  readonly path: string;
}

/** The path of property `name` below `path`, as a report names it (every name drawn is an identifier). */
const below = (path: string, name: string): string => `${path === '.' ? '' : path}.${name}`;

/**
 * Loosens a schema every way that accepts at least what it accepted (choices drawn from `pick`), and
 * records each change it made in `changes`: the property's expected findings, known without asking
 * the diff.
 */
function relax(s: JSONSchemaProps, pick: () => boolean, changes: Change[] = [], path = '.'): JSONSchemaProps {
  const r: JSONSchemaProps = { ...s };
  const changed = (rule: string, at = path): void => void changes.push({ rule, path: at });
  if (pick()) {
    r.description = `${s.description ?? ''} (more)`;
    changed('description');
  }
  for (const key of ['minimum', 'minLength', 'minItems', 'minProperties'] as const) {
    const v = r[key];
    if (v === undefined) continue;
    const how = choose(pick);
    if (how === 'drop') {
      delete r[key];
      changed(key);
    } else if (how === 'move' && (key === 'minimum' || v > 0)) {
      r[key] = v - 1;
      changed(key);
    }
  }
  for (const key of ['maximum', 'maxLength', 'maxItems', 'maxProperties'] as const) {
    const v = r[key];
    if (v === undefined) continue;
    const how = choose(pick);
    if (how === 'drop') {
      delete r[key];
      changed(key);
    } else if (how === 'move') {
      r[key] = v + 1;
      changed(key);
    }
  }
  if (r.enum) {
    const how = choose(pick);
    if (how === 'drop') {
      delete r.enum;
      changed('enum');
    } else if (how === 'move') {
      r.enum = [...r.enum, 100];
      changed('enum');
    }
  }
  if (r.pattern && pick()) {
    delete r.pattern;
    changed('pattern');
  }
  if (r['x-kubernetes-validations']?.length && pick()) {
    r['x-kubernetes-validations'] = r['x-kubernetes-validations'].slice(1);
    changed('cel');
  }
  if (r.required?.length && pick()) {
    changed('required', below(path, r.required[0]!));
    r.required = r.required.slice(1);
  }
  if (r.items) r.items = relax(r.items, pick, changes, `${path === '.' ? '' : path}[*]`);
  if (r.properties) {
    const props: Record<string, JSONSchemaProps> = {};
    for (const [k, v] of Object.entries(r.properties)) props[k] = relax(v, pick, changes, below(path, k));
    if (pick() && !('added' in props)) {
      props['added'] = { type: 'string', minLength: 3 };
      changed('fieldAdded', below(path, 'added'));
    }
    r.properties = props;
  }
  return r;
}

/** The bounds and enums: a relaxation of one tightens when reversed. */
const BOUNDS = new Set([
  'minimum',
  'maximum',
  'minLength',
  'maxLength',
  'minItems',
  'maxItems',
  'minProperties',
  'maxProperties',
  'enum',
]);

const key = (c: Change): string => `${c.rule} at ${c.path}`;

describe('crd diff: properties', () => {
  it('a schema compared with itself (or a deep copy) has no findings, and with a changed copy one', async (t) => {
    await assertProperty(
      t,
      fc.property(schema, (s) => {
        assert.deepEqual(diffSchemas(s, s), []);
        assert.deepEqual(diffSchemas(s, structuredClone(s)), []);
        // The same comparison sees a change: an empty answer above is the diff's, not a blind one.
        const changed = { ...structuredClone(s), description: `${s.description ?? ''}!` };
        assert.deepEqual(diffSchemas(s, changed).map(key), ['description at .']);
      }),
      RUNS,
    );
  });

  it('relaxing a schema is never breaking, and each change it made is reported as safe', async (t) => {
    let changes = 0;
    await assertProperty(
      t,
      fc.property(schema, fc.infiniteStream(fc.boolean()), (s, stream) => {
        const it = stream[Symbol.iterator]();
        const made: Change[] = [];
        const relaxed = relax(s, () => it.next().value === true, made);
        const findings = diffSchemas(s, relaxed);
        assert.deepEqual(
          findings.filter((f) => f.severity === 'breaking'),
          [],
        );
        // Exactly the changes relax made, each once (the paths are unique: one rule per node).
        assert.deepEqual(findings.map(key).sort(), made.map(key).sort());
        changes += made.length;
      }),
      RUNS,
    );
    assertFloor(t, 'changes made and found', changes, RUNS);
  });

  it('the reverse of a relaxation that changed a bound or an enum is breaking', async (t) => {
    let reversed = 0;
    await assertProperty(
      t,
      fc.property(schema, fc.infiniteStream(fc.boolean()), (s, stream) => {
        const it = stream[Symbol.iterator]();
        const made: Change[] = [];
        const relaxed = relax(s, () => it.next().value === true, made);
        const back = diffSchemas(relaxed, s).filter((f) => f.severity === 'breaking');
        for (const c of made.filter((m) => BOUNDS.has(m.rule))) {
          reversed++;
          assert.ok(
            back.some((b) => b.rule === c.rule && b.path === c.path),
            `${key(c)} relaxed, but tightening it back is not breaking`,
          );
        }
      }),
      RUNS,
    );
    assertFloor(t, 'bounds and enums relaxed, then tightened back', reversed, RUNS / 2);
  });
});
