import { createHash } from 'node:crypto';
import type { ObjectLike } from '../client/resource-client.ts';

export const SPEC_HASH_ANNOTATION = 'op-gen.dev/spec-hash';

/** JSON with sorted keys: the same value always gives the same text. */
export function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const o = value as Record<string, unknown>;
    return `{${Object.keys(o)
      .filter((k) => o[k] !== undefined)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${stableJson(o[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value);
}

/** A short hash of a desired spec, for an annotation that tells whether a child drifted. */
export function specHash(spec: unknown): string {
  return createHash('sha256').update(stableJson(spec)).digest('hex').slice(0, 16);
}

/** A copy of `obj` annotated with the hash of `spec`. */
export function withSpecHash<T extends ObjectLike>(obj: T, spec: unknown): T {
  const meta = (obj.metadata ?? {}) as { annotations?: Record<string, string> };
  return {
    ...obj,
    metadata: {
      ...obj.metadata,
      annotations: { ...meta.annotations, [SPEC_HASH_ANNOTATION]: specHash(spec) },
    },
  };
}

/** True when the live object's annotation does not match the desired spec's hash. */
export function specDrifted(live: ObjectLike | undefined, spec: unknown): boolean {
  const annotations = (live?.metadata as { annotations?: Record<string, string> } | undefined)?.annotations;
  return annotations?.[SPEC_HASH_ANNOTATION] !== specHash(spec);
}
