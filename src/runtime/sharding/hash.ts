/**
 * The API server's shard hash (KEP-5866, k8s.io/apimachinery/pkg/sharding.HashField): FNV-1a 64 over
 * the UTF-8 bytes of the field value (here `metadata.uid`), compared as an unsigned 64-bit number.
 * Ranges are half-open, [start, end), over [0, 2^64).
 *
 * Computed on two 32-bit halves (no BigInt): the FNV prime is 2^40 + 0x1b3, so
 * h·prime = h·0x1b3 + (lo << 40) mod 2^64, and every intermediate stays below 2^53.
 */

const PRIME_LOW = 0x1b3;
const TWO_32 = 4294967296;
const encoder = new TextEncoder();

/** The 64-bit hash as its high and low 32-bit words (unsigned). */
export interface Hash64 {
  readonly hi: number;
  readonly lo: number;
}

export function fnv1a64(value: string): Hash64 {
  let hi = 0xcbf29ce4;
  let lo = 0x84222325;
  const bytes = encoder.encode(value);
  for (let i = 0; i < bytes.length; i++) {
    lo = (lo ^ bytes[i]!) >>> 0;
    const loProduct = lo * PRIME_LOW;
    const carry = Math.floor(loProduct / TWO_32);
    const newLo = loProduct >>> 0;
    // lo << 40 lands in the high word as lo << 8 (mod 2^32).
    hi = (hi * PRIME_LOW + carry + (lo % 0x1000000) * 256) >>> 0;
    lo = newLo;
  }
  return { hi, lo };
}

/** The hash as the API server prints it: `0x` and 16 lowercase hex digits. */
export function hashHex(h: Hash64): string {
  return `0x${h.hi.toString(16).padStart(8, '0')}${h.lo.toString(16).padStart(8, '0')}`;
}

/** The hash as a bigint, for tests and range arithmetic. */
export function hashBigInt(h: Hash64): bigint {
  return (BigInt(h.hi) << 32n) | BigInt(h.lo);
}

/** The end of the hash space, 2^64, as the API server writes it. */
export const HASH_SPACE_END_HEX = '0x10000000000000000';

/**
 * The hash space is cut into `slots` equal slices (a power of two, 1..65536); slot i is
 * [i·2^64/slots, (i+1)·2^64/slots). The slot of a hash is its top log2(slots) bits.
 */
export function slotOfHash(h: Hash64, slots: number): number {
  const bits = Math.log2(slots);
  return bits === 0 ? 0 : h.hi >>> (32 - bits);
}

export function slotOfUid(uid: string, slots: number): number {
  return slotOfHash(fnv1a64(uid), slots);
}

export function assertSlotCount(slots: number): void {
  if (!Number.isInteger(slots) || slots < 1 || slots > 65536 || (slots & (slots - 1)) !== 0)
    throw new Error(`sharding: slots must be a power of two between 1 and 65536, got ${slots}`);
}

/** The boundary i·2^64/slots in the API server's hex form (`0x10000000000000000` for i = slots). */
export function slotBoundaryHex(i: number, slots: number): string {
  if (i >= slots) return HASH_SPACE_END_HEX;
  const value = (BigInt(i) << 64n) / BigInt(slots);
  return `0x${value.toString(16).padStart(16, '0')}`;
}
