import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { writeBenchResult } from '../../../bench/compare/tools.ts';

describe('bench writeBenchResult', () => {
  it('writes <name>-<date>.json as { date, machine, ...payload } with the machine block extended', () => {
    const dir = mkdtempSync(join(tmpdir(), 'op-gen-bench-result-'));
    try {
      const file = writeBenchResult('faults', { node: 'v24', runs: [1, 2] }, { loadavg1mBefore: 1.5 }, dir);
      assert.match(file, /faults-\d{4}-\d{2}-\d{2}\.json$/);
      const text = readFileSync(file, 'utf8');
      assert.ok(text.endsWith('}\n'));
      const json = JSON.parse(text) as Record<string, unknown>;
      assert.deepEqual(Object.keys(json), ['date', 'machine', 'node', 'runs']);
      assert.equal(file.endsWith(`faults-${String(json.date).slice(0, 10)}.json`), true);
      assert.deepEqual(Object.keys(json.machine as object), [
        'cpus',
        'cpuModel',
        'memoryGiB',
        'loadavg1mBefore',
      ]);
      assert.equal((json.machine as { cpus: number }).cpus, cpus().length);
      assert.equal(text, `${JSON.stringify(json, null, 2)}\n`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('names bench:compare results by date alone (the files charts.ts reads)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'op-gen-bench-result-'));
    try {
      writeBenchResult(undefined, { crd: {} }, {}, dir);
      assert.match(readdirSync(dir)[0]!, /^\d{4}-\d{2}-\d{2}\.json$/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
