/**
 * Records crdify's and op-gen's verdicts on the CRD pairs of test/fixtures/crd-diff/crdify/pairs/
 * (written by tools/crdify-verdicts/prepare-pairs.sh) into verdicts.json beside them; the test
 * test/unit/crd-diff/crdify-verdicts.test.ts holds op-gen to the table and every disagreement to a
 * policy of docs/crd-diff.md. crdify is built from its module (kubernetes-sigs/crdify, Go):
 *   (cd <crdify checkout> && go build -o /tmp/crdify .)
 *   node scripts/record-crdify-verdicts.ts /tmp/crdify
 * crdify runs with its default configuration (every validation enforced as an error).
 */
import { spawnSync } from 'node:child_process';
import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { opGenVerdict, PAIRS_DIR, pairFiles, type PairVerdict } from '../test/unit/crd-diff/crdify-pairs.ts';

const crdify = process.argv[2];
if (!crdify) {
  process.stderr.write('usage: node scripts/record-crdify-verdicts.ts <crdify binary>\n');
  process.exit(2);
}

interface CrdifyResult {
  readonly name?: string;
  readonly errors?: readonly string[];
  readonly property?: string;
  readonly version?: string;
}

/** The validations crdify reported errors for, as `name path` (its own path spelling), sorted. */
function crdifyErrors(report: unknown): string[] {
  const out = new Set<string>();
  const walk = (value: unknown, property: string): void => {
    if (Array.isArray(value)) {
      for (const v of value) walk(v, property);
      return;
    }
    if (value === null || typeof value !== 'object') return;
    const r = value as CrdifyResult & Record<string, unknown>;
    const at = typeof r.property === 'string' ? r.property : property;
    if (typeof r.name === 'string' && Array.isArray(r.errors) && r.errors.length > 0)
      out.add(`${r.name} ${at || '(crd)'}`);
    for (const v of Object.values(r)) walk(v, at);
  };
  walk(report, '');
  return [...out].sort();
}

const rows: PairVerdict[] = [];
for (const pair of pairFiles()) {
  const run = spawnSync(crdify, [`file://${pair.old}`, `file://${pair.new}`, '-o', 'json'], {
    encoding: 'utf8',
  });
  if (run.status !== 0 && run.status !== 1) {
    process.stderr.write(`${pair.name}: crdify exited ${run.status}: ${run.stderr}\n`);
    process.exit(1);
  }
  const errors = run.stdout.trim() === '' ? [] : crdifyErrors(JSON.parse(run.stdout));
  rows.push({
    pair: pair.name,
    crdify: { verdict: run.status === 0 ? 'pass' : 'fail', errors },
    opGen: opGenVerdict(pair),
  });
}
writeFileSync(join(PAIRS_DIR, '..', 'verdicts.json'), `${JSON.stringify(rows, null, 2)}\n`);
process.stdout.write(`${rows.length} pairs (${readdirSync(PAIRS_DIR).length} entries in pairs/)\n`);
