import type { ObjectLike } from '../client/resource-client.ts';
import type { Informer } from './informer.ts';
import { labelMatcher } from './label-selector.ts';

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

  /** Objects in `namespace` (all when omitted) matching `labelSelector`, sorted by namespace/name. */
  list(options: { readonly namespace?: string; readonly labelSelector?: string } = {}): T[] {
    const matches = labelMatcher(options.labelSelector);
    const out: T[] = [];
    for (const obj of this.informer.list()) {
      if (options.namespace !== undefined && obj.metadata?.namespace !== options.namespace) continue;
      const labels = (obj.metadata as { labels?: Record<string, string> } | undefined)?.labels;
      if (matches(labels)) out.push(obj);
    }
    const key = (o: T): string => `${o.metadata?.namespace ?? ''}/${o.metadata?.name ?? ''}`;
    return out.sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
  }
}
