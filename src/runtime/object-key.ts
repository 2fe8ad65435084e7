import type { ObjectLike } from '../client/resource-client.ts';

/** What a controller reconciles: the namespace (absent for cluster-scoped kinds) and name of an object. */
export interface Request {
  readonly namespace?: string;
  readonly name: string;
}

/** `namespace/name`, or `name` for a cluster-scoped object: the workqueue and cache key. */
export function keyOf(namespace: string | undefined, name: string): string {
  return namespace ? `${namespace}/${name}` : name;
}

export function objectKey(obj: ObjectLike): string {
  return keyOf(obj.metadata?.namespace, obj.metadata?.name ?? '');
}

export function requestOf(key: string): Request {
  const slash = key.indexOf('/');
  return slash < 0 ? { name: key } : { namespace: key.slice(0, slash), name: key.slice(slash + 1) };
}
