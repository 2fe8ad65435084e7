import type { Kind } from '../client/kind.ts';
import type { ObjectKey, ObjectLike } from '../client/resource-client.ts';
import type { ReconcileClient } from './reconcile-client.ts';
import { stableJson } from './spec-hash.ts';

export type OperationResult = 'created' | 'updated' | 'unchanged';

/**
 * controller-runtime's CreateOrUpdate: reads the object (from the cache), lets `mutate` set the
 * desired state on a copy, and creates or updates it only if something changed. Updates carry the
 * read resourceVersion (a stale read ends in Conflict and a retry). For children whose fields other
 * controllers also set, prefer `client.apply` (server-side apply).
 */
export async function createOrUpdate<T extends ObjectLike>(
  client: ReconcileClient,
  kind: Kind<T>,
  key: ObjectKey,
  mutate: (current: T | undefined) => T,
): Promise<{ result: OperationResult; object: T }> {
  const current = await client.get(kind, key);
  const desired = mutate(current === undefined ? undefined : structuredClone(current));
  if (current === undefined) {
    // If an earlier pass created it and the cache has not caught up, this fails with AlreadyExists
    // and the controller's retry reads it from the cache.
    return { result: 'created', object: await client.create(kind, desired) };
  }
  if (stableJson(desired) === stableJson(current)) return { result: 'unchanged', object: current };
  return { result: 'updated', object: await client.update(kind, desired) };
}
