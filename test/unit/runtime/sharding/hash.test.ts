import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { test } from 'node:test';
import {
  fnv1a64,
  hashBigInt,
  hashHex,
  slotBoundaryHex,
  slotOfUid,
  assertSlotCount,
} from '../../../../src/runtime/sharding/hash.ts';
import { shardSelector, slotRanges } from '../../../../src/runtime/sharding/assignment.ts';

/** The textbook definition on BigInt, to check the 32-bit-halves implementation against. */
function reference(value: string): bigint {
  let h = 0xcbf29ce484222325n;
  for (const b of new TextEncoder().encode(value)) {
    h ^= BigInt(b);
    h = (h * 0x100000001b3n) & 0xffffffffffffffffn;
  }
  return h;
}

test('fnv1a64 matches Go hash/fnv New64a (vectors printed by Go 1.26)', () => {
  const vectors: [string, string][] = [
    ['', '0xcbf29ce484222325'],
    ['a', '0xaf63dc4c8601ec8c'],
    ['abc', '0xe71fa2190541574b'],
    ['foobar', '0x85944171f73967e8'],
    ['test-uid-12345', '0xd4c53b72f9287c28'],
    ['aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee', '0x93754b7248a00eb9'],
    ['6f1c2b1e-3d4a-4f5b-9c8d-7e6f5a4b3c2d', '0x03f11d29011acf4e'],
    ['é-ü-✓', '0xbf70ece61e024ce5'],
  ];
  for (const [input, hex] of vectors) assert.equal(hashHex(fnv1a64(input)), hex, JSON.stringify(input));
});

test('fnv1a64 equals the BigInt definition on 5,000 random UIDs and strings', () => {
  for (let i = 0; i < 5000; i++) {
    const value =
      i % 2
        ? randomUUID()
        : String.fromCharCode(...Array.from({ length: i % 40 }, () => 32 + Math.floor(Math.random() * 2000)));
    assert.equal(hashBigInt(fnv1a64(value)), reference(value), JSON.stringify(value));
  }
});

test('a slot is the top bits of the hash and lies in its [start, end) range', () => {
  for (const slots of [1, 2, 64, 256, 4096]) {
    for (let i = 0; i < 300; i++) {
      const uid = randomUUID();
      const s = slotOfUid(uid, slots);
      const h = hashBigInt(fnv1a64(uid));
      assert.ok(h >= BigInt(slotBoundaryHex(s, slots)), `${uid} >= start of slot ${s}/${slots}`);
      assert.ok(h < BigInt(slotBoundaryHex(s + 1, slots)), `${uid} < end of slot ${s}/${slots}`);
    }
  }
  assert.equal(slotBoundaryHex(0, 256), '0x0000000000000000');
  assert.equal(slotBoundaryHex(128, 256), '0x8000000000000000');
  assert.equal(slotBoundaryHex(256, 256), '0x10000000000000000');
  assert.throws(() => assertSlotCount(100), /power of two/);
});

test('adjacent slots merge into one range; the selector is the API server wire form', () => {
  assert.deepEqual(slotRanges([3, 0, 1, 255], 256), [
    { start: '0x0000000000000000', end: '0x0200000000000000' },
    { start: '0x0300000000000000', end: '0x0400000000000000' },
    { start: '0xff00000000000000', end: '0x10000000000000000' },
  ]);
  assert.equal(
    shardSelector(slotRanges([0, 1], 2)),
    "shardRange(object.metadata.uid, '0x0000000000000000', '0x10000000000000000')",
  );
  assert.match(shardSelector([]), /'0x0000000000000000', '0x0000000000000001'/);
});
