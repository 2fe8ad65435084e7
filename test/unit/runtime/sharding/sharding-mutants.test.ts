import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  assignSlots,
  claimWeight,
  FULL_RANGE_SELECTOR,
  shardSelector,
  slotRanges,
} from '../../../../src/runtime/sharding/assignment.ts';
import { assertSlotCount, slotBoundaryHex, slotOfUid } from '../../../../src/runtime/sharding/hash.ts';

/**
 * Cases that kill the mutants the sharding tests let survive (`npm run test:mutation -- sharding`;
 * reports/mutation/sharding.json). Replicas of different op-gen versions share a ring during a
 * rolling update, so the weights and the table are pinned: any change to them is a breaking change
 * of the ring protocol, not a refactoring.
 */
test('claim weights are pinned (every replica of a ring must compute the same ones)', () => {
  assert.equal(claimWeight('replica-a', 0), 7027934944085565000);
  assert.equal(claimWeight('replica-a', 7), 5055676388708330000);
  assert.equal(claimWeight('replica-b', 0), 15111438021297302000);
  assert.equal(claimWeight('', 65535), 9477190916294560000);
});

test('assignment tables are pinned, extras included', () => {
  assert.deepEqual(assignSlots(['a', 'b', 'c'], 16), [
    'c',
    'b',
    'b',
    'b',
    'a',
    'a',
    'c',
    'c',
    'b',
    'a',
    'c',
    'c',
    'a',
    'b',
    'c',
    'a',
  ]);
  assert.deepEqual(assignSlots(['c', 'a', 'b'], 8), ['c', 'a', 'b', 'b', 'a', 'a', 'c', 'c']);
  assert.deepEqual(assignSlots(['m2', 'm1'], 4), ['m1', 'm2', 'm2', 'm1']);
  assert.deepEqual(assignSlots(['solo'], 2), ['solo', 'solo']);
});

test('slot counts: powers of two from 1 to 65536 only', () => {
  for (const ok of [1, 2, 1024, 65536]) assert.doesNotThrow(() => assertSlotCount(ok), String(ok));
  for (const bad of [0, -2, 3, 1.5, 131072, Number.NaN])
    assert.throws(
      () => assertSlotCount(bad),
      /^Error: sharding: slots must be a power of two between 1 and 65536, got /,
    );
});

test('one slot holds every hash; boundaries past the last slot are the end of the space', () => {
  assert.equal(slotOfUid('any', 1), 0);
  assert.equal(slotOfUid('6f1c2b1e-3d4a-4f5b-9c8d-7e6f5a4b3c2d', 65536), 0x03f1);
  assert.equal(slotBoundaryHex(1, 1), '0x10000000000000000');
  assert.equal(slotBoundaryHex(5, 4), '0x10000000000000000');
  assert.equal(slotBoundaryHex(3, 4), '0xc000000000000000');
  assert.equal(slotBoundaryHex(1, 65536), '0x0001000000000000');
});

test('the selector ORs the ranges; the full-range selector covers [0, 2^64)', () => {
  assert.equal(
    shardSelector(slotRanges([0, 2], 4)),
    "shardRange(object.metadata.uid, '0x0000000000000000', '0x4000000000000000') || " +
      "shardRange(object.metadata.uid, '0x8000000000000000', '0xc000000000000000')",
  );
  assert.equal(
    FULL_RANGE_SELECTOR,
    "shardRange(object.metadata.uid, '0x0000000000000000', '0x10000000000000000')",
  );
});
