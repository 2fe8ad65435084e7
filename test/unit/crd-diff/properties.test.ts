import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import type { JSONSchemaProps } from '../../../src/api-types/json-schema.ts';
import { diffSchemas } from '../../../src/crd-diff/index.ts';

const RUNS = Number(process.env['OP_GEN_FUZZ_RUNS'] ?? 200);
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

/** Loosens a schema every way that accepts at least what it accepted (choices drawn from `pick`). */
function relax(s: JSONSchemaProps, pick: () => boolean): JSONSchemaProps {
  const r: JSONSchemaProps = { ...s };
  if (pick()) r.description = `${s.description ?? ''} (more)`;
  for (const key of ['minimum', 'minLength', 'minItems', 'minProperties'] as const) {
    const v = r[key];
    if (v === undefined) continue;
    const how = choose(pick);
    if (how === 'drop') delete r[key];
    else if (how === 'move' && (key === 'minimum' || v > 0)) r[key] = v - 1;
  }
  for (const key of ['maximum', 'maxLength', 'maxItems', 'maxProperties'] as const) {
    const v = r[key];
    if (v === undefined) continue;
    const how = choose(pick);
    if (how === 'drop') delete r[key];
    else if (how === 'move') r[key] = v + 1;
  }
  if (r.enum) {
    const how = choose(pick);
    if (how === 'drop') delete r.enum;
    else if (how === 'move') r.enum = [...r.enum, 100];
  }
  if (r.pattern && pick()) delete r.pattern;
  if (r['x-kubernetes-validations'] && pick())
    r['x-kubernetes-validations'] = r['x-kubernetes-validations'].slice(1);
  if (r.required && pick()) r.required = r.required.slice(1);
  if (r.items) r.items = relax(r.items, pick);
  if (r.properties) {
    const props: Record<string, JSONSchemaProps> = {};
    for (const [k, v] of Object.entries(r.properties)) props[k] = relax(v, pick);
    if (pick()) props['added'] = { type: 'string', minLength: 3 };
    r.properties = props;
  }
  return r;
}

describe('crd diff: properties', () => {
  it('a schema compared with itself (or a deep copy) has no findings', () => {
    fc.assert(
      fc.property(schema, (s) => {
        assert.deepEqual(diffSchemas(s, s), []);
        assert.deepEqual(diffSchemas(s, structuredClone(s)), []);
      }),
      { numRuns: RUNS },
    );
  });

  it('relaxing a schema is never breaking', () => {
    fc.assert(
      fc.property(schema, fc.infiniteStream(fc.boolean()), (s, stream) => {
        const it = stream[Symbol.iterator]();
        const relaxed = relax(s, () => it.next().value === true);
        const breaking = diffSchemas(s, relaxed).filter((f) => f.severity === 'breaking');
        assert.deepEqual(breaking, []);
      }),
      { numRuns: RUNS },
    );
  });

  it('the reverse of a relaxation that changed a bound or an enum is breaking', () => {
    fc.assert(
      fc.property(schema, fc.infiniteStream(fc.boolean()), (s, stream) => {
        const it = stream[Symbol.iterator]();
        const relaxed = relax(s, () => it.next().value === true);
        const tightening = diffSchemas(s, relaxed).filter((f) =>
          [
            'minimum',
            'maximum',
            'minLength',
            'maxLength',
            'minItems',
            'maxItems',
            'minProperties',
            'maxProperties',
            'enum',
          ].includes(f.rule),
        );
        const back = diffSchemas(relaxed, s).filter((f) => f.severity === 'breaking');
        for (const f of tightening) {
          assert.ok(
            back.some((b) => b.rule === f.rule && b.path === f.path),
            `${f.rule} at ${f.path} relaxed, but tightening it back is not breaking`,
          );
        }
      }),
      { numRuns: RUNS },
    );
  });
});
