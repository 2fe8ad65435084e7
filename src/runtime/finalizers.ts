import type { Kind } from '../client/kind.ts';
import type { ObjectLike } from '../client/resource-client.ts';
import type { ReconcileClient } from './reconcile-client.ts';

interface Meta {
  finalizers?: string[];
  deletionTimestamp?: string | Date;
}

const meta = (obj: ObjectLike): Meta => (obj.metadata ?? {}) as Meta;

export function hasFinalizer(obj: ObjectLike, finalizer: string): boolean {
  return meta(obj).finalizers?.includes(finalizer) ?? false;
}

export function isBeingDeleted(obj: ObjectLike): boolean {
  return meta(obj).deletionTimestamp !== undefined && meta(obj).deletionTimestamp !== null;
}

/** A copy of `obj` with the finalizer added (unchanged if present). */
export function withFinalizer<T extends ObjectLike>(obj: T, finalizer: string): T {
  if (hasFinalizer(obj, finalizer)) return obj;
  return { ...obj, metadata: { ...obj.metadata, finalizers: [...(meta(obj).finalizers ?? []), finalizer] } };
}

/** A copy of `obj` without the finalizer. */
export function withoutFinalizer<T extends ObjectLike>(obj: T, finalizer: string): T {
  if (!hasFinalizer(obj, finalizer)) return obj;
  return {
    ...obj,
    metadata: { ...obj.metadata, finalizers: (meta(obj).finalizers ?? []).filter((f) => f !== finalizer) },
  };
}

export type FinalizeOutcome =
  /** The finalizer was just added: the update triggers the next pass; return now. */
  | 'added'
  /** Cleanup ran and the finalizer was removed: the object may go; return now. */
  | 'finalized'
  /** Being deleted by someone else's finalizer; nothing to do for us. */
  | 'deleting'
  /** Present and not being deleted: reconcile normally. */
  | 'present';

/**
 * The finalizer pattern in one call: makes sure the finalizer is on a live object; when the object
 * is being deleted, runs `cleanup` (must be idempotent) and then removes the finalizer. Writes carry
 * resourceVersion, so a stale object ends in a Conflict and a retry.
 */
export async function ensureFinalizer<T extends ObjectLike>(
  client: ReconcileClient,
  kind: Kind<T>,
  obj: T,
  finalizer: string,
  cleanup: (obj: T) => Promise<void>,
): Promise<FinalizeOutcome> {
  if (isBeingDeleted(obj)) {
    if (!hasFinalizer(obj, finalizer)) return 'deleting';
    await cleanup(obj);
    await client.update(kind, withoutFinalizer(obj, finalizer));
    return 'finalized';
  }
  if (!hasFinalizer(obj, finalizer)) {
    await client.update(kind, withFinalizer(obj, finalizer));
    return 'added';
  }
  return 'present';
}
