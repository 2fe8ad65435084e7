import { fnv1a64, hashBigInt, slotBoundaryHex, HASH_SPACE_END_HEX } from './hash.ts';

const MASK64 = (1n << 64n) - 1n;

/** splitmix64's finalizer: FNV-1a alone barely changes the high bits for names that differ at the end. */
function mix64(value: bigint): bigint {
  let x = (value + 0x9e3779b97f4a7c15n) & MASK64;
  x = ((x ^ (x >> 30n)) * 0xbf58476d1ce4e5b9n) & MASK64;
  x = ((x ^ (x >> 27n)) * 0x94d049bb133111ebn) & MASK64;
  return x ^ (x >> 31n);
}

/**
 * A member's weight for a slot: a well-mixed 64-bit value of (member, slot), as a double (order
 * only; the 11 low bits lost to rounding do not matter, ties are broken by name and slot).
 */
export function claimWeight(member: string, slot: number): number {
  return Number(mix64(hashBigInt(fnv1a64(member)) ^ (BigInt(slot) * 0x100000001b3n)));
}

/**
 * Which member owns which slot: rendezvous (highest-random-weight) hashing with bounded loads.
 * Every (slot, member) pair gets a weight (claimWeight); pairs are taken from the
 * heaviest down and a slot goes to the first member that still has room, where room is an even
 * share (⌊slots/N⌋, and ⌊slots/N⌋+1 for the first slots mod N members to reach it). The result
 * depends only on the set of member names, so every replica computes the same table from the same
 * view; a join or leave moves about slots/N slots (see docs/sharding.md for the measured figures).
 */
export function assignSlots(members: readonly string[], slots: number): (string | undefined)[] {
  const owners: (string | undefined)[] = new Array<string | undefined>(slots).fill(undefined);
  const names = [...new Set(members)].sort();
  const n = names.length;
  if (n === 0) return owners;
  const base = Math.floor(slots / n);
  let extras = slots % n;
  const pairs: { slot: number; member: number; weight: number }[] = [];
  for (let m = 0; m < n; m++) {
    for (let s = 0; s < slots; s++) {
      pairs.push({ slot: s, member: m, weight: claimWeight(names[m]!, s) });
    }
  }
  pairs.sort((a, b) => b.weight - a.weight || a.member - b.member || a.slot - b.slot);
  const load = new Array<number>(n).fill(0);
  let left = slots;
  for (const p of pairs) {
    if (left === 0) break;
    if (owners[p.slot] !== undefined) continue;
    const l = load[p.member]!;
    if (l < base) {
      // room within the even share
    } else if (l === base && extras > 0) {
      extras--;
    } else {
      continue;
    }
    owners[p.slot] = names[p.member];
    load[p.member] = l + 1;
    left--;
  }
  return owners;
}

/** A half-open hash range [start, end) in the API server's hex form. */
export interface HashRange {
  readonly start: string;
  readonly end: string;
}

/** Contiguous runs of slots, as hash ranges (adjacent slots merge into one range). */
export function slotRanges(owned: Iterable<number>, slots: number): HashRange[] {
  const sorted = [...new Set(owned)].sort((a, b) => a - b);
  const ranges: HashRange[] = [];
  let i = 0;
  while (i < sorted.length) {
    const first = sorted[i]!;
    let last = first;
    while (i + 1 < sorted.length && sorted[i + 1] === last + 1) {
      i++;
      last = sorted[i]!;
    }
    ranges.push({ start: slotBoundaryHex(first, slots), end: slotBoundaryHex(last + 1, slots) });
    i++;
  }
  return ranges;
}

/**
 * The `shardSelector` for a set of ranges. An empty set has no selector of its own (an empty
 * selector means "everything"), so it becomes the one-value range [0, 1): practically nothing.
 */
export function shardSelector(ranges: readonly HashRange[]): string {
  const list = ranges.length ? ranges : [{ start: '0x0000000000000000', end: '0x0000000000000001' }];
  return list.map((r) => `shardRange(object.metadata.uid, '${r.start}', '${r.end}')`).join(' || ');
}

/** The selector for the whole hash space, used to ask whether the server filters at all. */
export const FULL_RANGE_SELECTOR = `shardRange(object.metadata.uid, '0x0000000000000000', '${HASH_SPACE_END_HEX}')`;
