/**
 * Types of partial objects for typed writes: what a merge patch or a server-side apply body of a kind
 * may hold. Used by the generated typed clients (`op-gen generate client`).
 */
import type { ApplyObject, Scalar } from './resource-client.ts';

/**
 * A JSON merge patch (RFC 7386) of `T`: fields optional, `null` deletes a field, arrays are replaced
 * whole (so they keep their full element type).
 */
export type MergePatch<T> = T extends Scalar
  ? T
  : T extends readonly unknown[]
    ? T
    : T extends object
      ? { [K in keyof T]?: MergePatch<T[K]> | null }
      : T;

/**
 * A server-side apply configuration of `T`: an `ApplyObject<T>` (only the fields the manager owns) whose
 * `metadata` must hold the object's key (`Key` is `{ name }` or `{ namespace, name }`).
 */
export type ApplyConfiguration<T, Key> = ApplyObject<Omit<T, 'apiVersion' | 'kind' | 'metadata'>> & {
  apiVersion?: T extends { apiVersion?: infer V } ? V : string;
  kind?: T extends { kind?: infer K } ? K : string;
  metadata: Key & {
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    finalizers?: string[];
    ownerReferences?: NonNullable<T extends { metadata?: { ownerReferences?: infer O } } ? O : never>;
  };
};
