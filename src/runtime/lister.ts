import type { ObjectLike } from '../client/resource-client.ts';
import type { Informer } from './informer.ts';
import { sortedByKey, type StoreQuery } from './store-index.ts';

/**
 * Typed reads from an informer's store (no API call): the lister of client-go. The objects are the
 * informer's own: treat them as read-only.
 */
export class Lister<T extends ObjectLike> {
  private readonly informer: Informer<T>;

  constructor(informer: Informer<T>) {
    this.informer = informer;
  }

  get(namespace: string | undefined, name: string): T | undefined {
    return this.informer.get(namespace, name);
  }

  /**
   * Objects in `namespace` (all when omitted) matching `labelSelector` and the `field` indexes
   * (registered with the informer's addIndex or the cache's indexField), sorted by namespace/name.
   * Found through the namespace index or a field index: the cost grows with the answer.
   */
  list(options: StoreQuery = {}): T[] {
    return sortedByKey(this.informer.select(options));
  }
}
