import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SCALE_CASES, scaleCases, scaleOptions } from '../../../bench/compare/scale-compare.ts';

describe('bench scale-compare options', () => {
  it('--only names cases; absent means all; an unknown name is refused with the known ones', () => {
    assert.deepEqual(scaleCases(undefined), [...SCALE_CASES]);
    assert.deepEqual(scaleCases('sync,lookup-scale'), ['sync', 'lookup-scale']);
    assert.throws(
      () => scaleCases('lookup,sync'),
      /unknown case lookup \(one of lookup-scale, sync, backlog, failover\)/,
    );
  });

  it('fills what is not given from the defaults (the standalone sizes) and parses the rest', () => {
    const o = scaleOptions(['lookup-scale'], { parents: '1000,25000', 'sync-objects': undefined });
    assert.deepEqual(o.parents, [1000, 25000]);
    assert.equal(o.syncObjects, 100_000);
    assert.equal(o.backlogObjects, 20_000);
    assert.equal(o.rounds, 3);
    assert.equal(o.editAfterMs, 1000);
    assert.equal(o.crPriorityQueue, true);
    assert.equal(scaleOptions(['lookup-scale'], { 'cr-priority-queue': 'false' }).crPriorityQueue, false);
    assert.throws(
      () => scaleOptions(['lookup-scale'], { 'cr-priority-queue': 'no' }),
      /true or false, not no/,
    );
  });
});
