import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { opGenVerdict, PAIRS_DIR, pairFiles, type PairVerdict } from './crdify-pairs.ts';

/**
 * op-gen's `crd diff` against kubernetes-sigs/crdify's recorded verdicts (crdify built from its
 * module, default configuration: scripts/record-crdify-verdicts.ts) on crdify's own examples and
 * test pairs and on CloudNativePG `clusters`, KEDA `scaledobjects` and Flux `kustomizations`
 * releases. op-gen's verdict must match the recorded table (re-record when a rule changes on
 * purpose); every error crdify reports that op-gen does not judge breaking at the same path, and
 * every breaking finding of op-gen on a pair crdify passes, must be one of the deliberate policies
 * below, each explained in docs/crd-diff.md.
 */
const TABLE = JSON.parse(
  readFileSync(join(PAIRS_DIR, '..', 'verdicts.json'), 'utf8'),
) as readonly PairVerdict[];

/** crdify validation → the heading words of the policy in docs/crd-diff.md that explains the difference. */
const POLICIES: Readonly<Record<string, string>> = {
  description: 'A description change is safe',
  enum: 'Enum values added are safe',
  nullable: '`nullable: true` added is safe',
  pattern: 'A pattern added or changed is risky, removed safe',
  unhandled: 'What crdify calls unhandled',
};

/** op-gen rule → the policy explaining a breaking finding on a pair crdify passes. */
const OP_GEN_POLICIES: Readonly<Record<string, string>> = {
  servedVersionRemoval: 'Removing a served version is breaking',
};

const DOC = readFileSync(new URL('../../../docs/crd-diff.md', import.meta.url), 'utf8');

/** crdify's property path (`^.spec.a.items.b`) in op-gen's spelling (`.spec.a[*].b`). */
function opGenPath(crdifyPath: string): string {
  return crdifyPath.replace(/^\^/, '').replace(/\.items(?=\.|$)/g, '[*]') || '.';
}

describe('crd diff against crdify on real pairs', () => {
  it('the table covers every committed pair', () => {
    assert.deepEqual(
      TABLE.map((r) => r.pair),
      pairFiles().map((p) => p.name),
    );
    assert.ok(TABLE.length >= 46, `${TABLE.length} pairs`);
  });

  for (const pair of pairFiles()) {
    it(pair.name, () => {
      const row = TABLE.find((r) => r.pair === pair.name);
      assert.ok(row, 'recorded');
      const now = opGenVerdict(pair);
      assert.deepEqual(
        now.findings.filter((f) => f.startsWith('error ')),
        [],
        'op-gen reads both files (go-yaml, which crdify uses, does)',
      );
      assert.deepEqual(now, row.opGen, 'op-gen as recorded (re-run scripts/record-crdify-verdicts.ts)');
      const breaking = now.findings.filter((f) => f.startsWith('breaking '));
      for (const error of row.crdify.errors) {
        const [validation = '', path = ''] = error.split(' ');
        const at = opGenPath(path);
        const sameBreaking = breaking.some((f) => {
          const [, rule, , where] = f.split(' ');
          if (validation === 'existingFieldRemoval' || validation === 'scope') return rule === validation;
          // crdify also reports a removed field's type as changed to "": op-gen's removal covers it.
          if (validation === 'type' && rule === 'existingFieldRemoval') return where === at;
          // crdify reports new required fields on the parent object, op-gen on the field.
          if (validation === 'required')
            return rule === 'required' && where?.startsWith(at === '.' ? '.' : `${at}.`);
          return where === at;
        });
        if (sameBreaking) continue;
        const policy = POLICIES[validation];
        assert.ok(
          policy,
          `crdify: ${error}; op-gen has no breaking finding there and no policy explains why`,
        );
        assert.ok(DOC.includes(policy), `docs/crd-diff.md explains "${policy}"`);
      }
      if (row.crdify.verdict === 'pass') {
        for (const f of breaking) {
          const policy = OP_GEN_POLICIES[f.split(' ')[1] ?? ''];
          assert.ok(policy, `op-gen: ${f} on a pair crdify passes, and no policy explains why`);
          assert.ok(DOC.includes(policy), `docs/crd-diff.md explains "${policy}"`);
        }
      }
    });
  }

  it('CloudNativePG 1.28 → 1.29: spec.postgresql.extensions becoming a list-map is breaking', () => {
    const row = TABLE.find((r) => r.pair === 'cnpg-clusters-v1.28.0-v1.29.0');
    assert.ok(row?.opGen.findings.includes('breaking listType v1 .spec.postgresql.extensions'));
    assert.equal(row?.crdify.verdict, 'fail');
  });
});
