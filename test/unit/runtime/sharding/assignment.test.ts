import assert from 'node:assert/strict';
import { test } from 'node:test';
import { assignSlots } from '../../../../src/runtime/sharding/assignment.ts';

function names(n: number, seed: string): string[] {
  return Array.from(
    { length: n },
    (_, i) => `${seed}-replica-${i}-${(i * 7919 + seed.length * 104729).toString(36)}`,
  );
}

function loads(owners: (string | undefined)[]): Map<string, number> {
  const m = new Map<string, number>();
  for (const o of owners) if (o) m.set(o, (m.get(o) ?? 0) + 1);
  return m;
}

test('every slot has an owner and shares are even (⌊S/N⌋ or ⌈S/N⌉)', () => {
  for (const n of [1, 2, 3, 5, 7, 10]) {
    const members = names(n, `even${n}`);
    const owners = assignSlots(members, 256);
    assert.ok(owners.every((o) => o !== undefined && members.includes(o)));
    for (const [, l] of loads(owners))
      assert.ok(l === Math.floor(256 / n) || l === Math.ceil(256 / n), `load ${l} for n=${n}`);
  }
  assert.deepEqual(assignSlots([], 4), [undefined, undefined, undefined, undefined]);
});

test('the table depends only on the member set (order and duplicates do not matter)', () => {
  const m = names(4, 'order');
  assert.deepEqual(assignSlots(m, 256), assignSlots([...m].reverse().concat(m[0]!), 256));
});

test('a join or leave moves about 1/N of the slots (mean within 1.4x of ideal, worst within 2x)', () => {
  const slots = 256;
  for (const n of [1, 2, 3, 4, 5]) {
    let sum = 0;
    let worst = 0;
    const trials = 40;
    for (let t = 0; t < trials; t++) {
      const members = names(n, `move${n}-${t}`);
      const before = assignSlots(members, slots);
      const after = assignSlots([...members, `joiner-${n}-${t}`], slots);
      const moved = before.filter((o, i) => o !== after[i]).length;
      // Leaving is the same change read backwards.
      const ratio = moved / (slots / (n + 1));
      sum += ratio;
      worst = Math.max(worst, ratio);
      // Slots that moved went to the joiner, or were shuffled among the rest to keep shares even.
      assert.ok(after.filter((o) => o === `joiner-${n}-${t}`).length >= Math.floor(slots / (n + 1)));
    }
    assert.ok(sum / trials <= 1.4, `n=${n}: mean moved/ideal ${(sum / trials).toFixed(2)}`);
    assert.ok(worst <= 2, `n=${n}: worst moved/ideal ${worst.toFixed(2)}`);
  }
});
