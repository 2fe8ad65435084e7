/**
 * Types of partial objects for typed writes: what a merge patch or a server-side apply body of a kind
 * may hold. Used by the generated typed clients (`op-gen generate client`).
 */

/** Every field optional, recursively; arrays keep their element type (partial elements). */
export type DeepPartial<T> = T extends readonly (infer U)[]
  ? DeepPartial<U>[]
  : T extends object
    ? { [K in keyof T]?: DeepPartial<T[K]> }
    : T;

/**
 * A JSON merge patch (RFC 7386) of `T`: fields optional, `null` deletes a field, arrays are replaced
 * whole (so they keep their full element type).
 */
export type MergePatch<T> = T extends readonly unknown[]
  ? T
  : T extends object
    ? { [K in keyof T]?: MergePatch<T[K]> | null }
    : T;

/**
 * A server-side apply configuration of `T`: only the fields the manager owns, plus the object's key
 * in `metadata` (`Key` is `{ name }` or `{ namespace, name }`).
 */
export type ApplyConfiguration<T, Key> = DeepPartial<Omit<T, 'apiVersion' | 'kind' | 'metadata'>> & {
  apiVersion?: T extends { apiVersion?: infer V } ? V : string;
  kind?: T extends { kind?: infer K } ? K : string;
  metadata: Key & {
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    finalizers?: string[];
    ownerReferences?: NonNullable<T extends { metadata?: { ownerReferences?: infer O } } ? O : never>;
  };
};
