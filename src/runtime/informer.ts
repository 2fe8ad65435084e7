import type { ObjectLike } from '../client/resource-client.ts';
import type { Query } from '../client/transport.ts';
import type { Clock } from './clock.ts';
import { InformerStore, type InformerHandlers } from './informer-store.ts';
import type { Logger } from './logger.ts';
import type { IndexFunc, StoreQuery } from './store-index.ts';
import { Watcher, type ListWatcher } from './watcher.ts';

export type { InformerHandlers } from './informer-store.ts';
export type { ListWatcher } from './watcher.ts';

export interface InformerOptions<T = ObjectLike> {
  /** Watch one namespace; omit for all namespaces (or a cluster-scoped kind). */
  readonly namespace?: string;
  readonly labelSelector?: string;
  /** Re-deliver every cached object as an update this often (0: never). */
  readonly resyncMs?: number;
  readonly logger: Logger;
  readonly clock?: Clock;
  /** Page size of the initial list. */
  readonly pageSize?: number;
  /** Applied to every object before it is stored (e.g. stripManagedFields). */
  readonly transform?: (obj: T) => T;
  /**
   * More list/watch query parameters, read at every list and watch (e.g. sharding's
   * `shardSelector`); after they change, call restartListWatch().
   */
  readonly listParams?: () => Query;
  /**
   * List by watch-list (see WatcherOptions.watchList; client-go's WatchListClient, on by default
   * since client-go v0.35): the list held as objects, never as one answer's text. Default false: list
   * requests (the first from the watch cache, resourceVersion 0), decoded as they arrive, which are
   * never held whole either.
   */
  readonly watchList?: boolean;
}

/**
 * Drops metadata.managedFields: large, and not needed by reconcilers (server-side apply works without).
 * The metadata is rebuilt without it rather than `delete`d from: a deletion turns the object into a
 * slow dictionary-mode object, which costs ~45% more heap per cached object (bench:memory).
 */
export function stripManagedFields<T extends ObjectLike>(obj: T): T {
  const meta = obj.metadata as { managedFields?: unknown } | undefined;
  if (meta === undefined || !('managedFields' in meta)) return obj;
  const { managedFields: _dropped, ...rest } = meta;
  (obj as { metadata?: unknown }).metadata = rest;
  return obj;
}

/**
 * A shared informer for one kind: a Watcher (list, watch, resume, relist on 410 Gone: watcher.ts)
 * feeding an InformerStore (the indexed store, its handlers and resync: informer-store.ts). Each
 * part can be used and tested alone; this class runs one into the other and keeps the API the cache
 * and the controllers use.
 *
 * A relist delivers every listed object to the handlers: new ones as adds, the others as updates
 * even when their resourceVersion did not change, so a controller re-queues everything after a
 * watch gap instead of waiting for paced retries. `connected` is false while list and watch fail
 * because the server is unreachable (socket errors, 5xx), true again once one of them gets through;
 * `onConnected` listeners hear when it does.
 */
export class Informer<T extends ObjectLike> {
  private readonly watcher: Watcher<T>;
  private readonly store: InformerStore<T>;
  private readonly options: InformerOptions<T>;
  private loop: Promise<void> | undefined;
  /** The loop a stop() is ending: a start() right after it runs once that one has ended. */
  private ending: Promise<void> | undefined;

  constructor(client: ListWatcher<T>, options: InformerOptions<T>) {
    this.options = options;
    this.watcher = new Watcher<T>(client, {
      logger: options.logger,
      ...(options.namespace ? { namespace: options.namespace } : {}),
      ...(options.labelSelector ? { labelSelector: options.labelSelector } : {}),
      ...(options.clock ? { clock: options.clock } : {}),
      ...(options.pageSize ? { pageSize: options.pageSize } : {}),
      ...(options.listParams ? { listParams: options.listParams } : {}),
      ...(options.watchList ? { watchList: true } : {}),
    });
    this.store = new InformerStore<T>(options.transform);
  }

  /** Counts of lists, watches, relists and watch events, for tests and metrics. */
  get stats(): Watcher<T>['stats'] {
    return this.watcher.stats;
  }

  /** Replaces the extra list/watch query parameters (takes effect at the next list or watch). */
  setListParams(params: (() => Query) | undefined): void {
    this.watcher.setListParams(params);
  }

  /**
   * Ends the current watch and lists again (with the current listParams): objects the new list
   * lacks are removed from the store with delete events, new ones arrive as adds.
   */
  restartListWatch(): void {
    this.watcher.restart();
  }

  addHandlers(handlers: InformerHandlers<T>): void {
    this.store.addHandlers(handlers);
  }

  get hasSynced(): boolean {
    return this.store.hasSynced;
  }

  /** False while list and watch fail because the server is unreachable; true once one gets through. */
  get connected(): boolean {
    return this.watcher.connected;
  }

  /** Calls `listener` each time the informer reaches the server again after a failure. */
  onConnected(listener: () => void): () => void {
    return this.watcher.onConnected(listener);
  }

  /** True while the store is current: connected, listed, not relisting (Watcher.inSync). */
  get inSync(): boolean {
    return this.watcher.inSync;
  }

  /** Calls `listener` each time the store becomes current again after a failure or a relist. */
  onInSync(listener: () => void): () => void {
    return this.watcher.onInSync(listener);
  }

  /** Resolves once the first list is in the store. */
  waitForSync(): Promise<void> {
    return this.store.waitForSync();
  }

  get(namespace: string | undefined, name: string): T | undefined {
    return this.store.get(namespace, name);
  }

  list(): IterableIterator<T> {
    return this.store.values();
  }

  get size(): number {
    return this.store.size;
  }

  /**
   * Adds a field index (controller-runtime's IndexField on this informer): `extract` gives the values
   * an object is filed under. Registered after the informer started, it is built from the store at
   * once. A name already registered throws.
   */
  addIndex(name: string, extract: IndexFunc<T>): void {
    this.store.addIndex(name, extract);
  }

  hasIndex(name: string): boolean {
    return this.store.hasIndex(name);
  }

  /**
   * The cached objects matching `query` with their keys, unordered, from the namespace index or a
   * field index (never a scan of the store unless the query names neither). Throws for a field
   * index not registered.
   */
  select(query: StoreQuery, out?: [string, T][]): [string, T][] {
    return this.store.select(query, out);
  }

  start(): void {
    if (this.loop) return;
    this.loop = this.ending ? this.ending.then(() => this.run()) : this.run();
    this.store.startResync(this.options.resyncMs);
  }

  async stop(): Promise<void> {
    this.store.stopResync();
    this.watcher.stop();
    this.ending = this.loop ?? this.ending;
    this.loop = undefined;
    await this.ending;
  }

  private run(): Promise<void> {
    // Events reach the store (and its handlers) synchronously, as the watch delivers them.
    return this.watcher.run((event) => this.store.apply(event));
  }
}
