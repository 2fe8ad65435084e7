import { isApiError, isGone } from '../client/api-error.ts';
import type { ObjectLike, ResourceClient, WatchEvent } from '../client/resource-client.ts';
import type { Query } from '../client/transport.ts';
import { realClock, type Clock } from './clock.ts';
import type { Logger } from './logger.ts';
import { labelSelectorString } from './label-selector.ts';
import { keyOf, objectKey } from './object-key.ts';
import { isServerUnavailable } from './server-unavailable.ts';
import { IndexedStore, type IndexFunc, type StoreQuery } from './store-index.ts';

export interface InformerHandlers<T> {
  /** `initialList`: the object came with the informer's first list (client-go's isInInitialList). */
  onAdd?(obj: T, initialList: boolean): void;
  onUpdate?(oldObj: T, newObj: T): void;
  onDelete?(obj: T): void;
}

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

/** What an informer needs of a client: list and watch one kind (ResourceClient; a fake in tests). */
export type ListWatcher<T extends ObjectLike> = Pick<ResourceClient<T>, 'kind' | 'listAll' | 'watch'>;

class WatchExpired extends Error {}

const MIN_BACKOFF_MS = 800;
const MAX_BACKOFF_MS = 30_000;
/**
 * While the server cannot be reached (connection refused or reset, 5xx), or answers 404 / 429 (a
 * restarted server not serving the CRD yet, or overloaded), retries stay at most this far apart: a refused connection costs the server nothing, and the controllers wait for this informer
 * to reconnect, so a 30 s backoff would become 30 s of recovery after an outage.
 */
const MAX_UNREACHABLE_BACKOFF_MS = 2_000;

/**
 * A reflector and its store for one kind: lists (paginated), then watches from the list's
 * resourceVersion with bookmarks; resumes from the last seen resourceVersion after a dropped
 * connection (with backoff); relists on 410 Gone. The store holds the objects as the server sent
 * them: treat them as read-only.
 *
 * A relist delivers every listed object to the handlers: new ones as adds, the others as updates
 * even when their resourceVersion did not change (client-go's Replace does the same), so a
 * controller re-queues everything after a watch gap instead of waiting for paced retries.
 * `connected` is false while list and watch fail because the server is unreachable (socket errors,
 * 5xx), true again once one of them gets through; `onConnected` listeners hear when it does.
 */
export class Informer<T extends ObjectLike> {
  private readonly store = new IndexedStore<T>();
  private readonly handlers: InformerHandlers<T>[] = [];
  private resourceVersion: string | undefined;
  private abort: AbortController | undefined;
  private stopped = true;
  private synced = false;
  private syncWaiters: (() => void)[] = [];
  private resyncTimer: ReturnType<typeof setInterval> | undefined;
  private loop: Promise<void> | undefined;
  private restartRequested = false;
  private listParams: (() => Query) | undefined;
  private readonly client: ListWatcher<T>;
  private connectedNow = false;
  private readonly connectionListeners = new Set<() => void>();
  private readonly options: InformerOptions<T>;
  private readonly clock: Clock;
  /** Counts, for tests and metrics. */
  readonly stats = { lists: 0, watches: 0, relists: 0, events: 0 };

  /** The selector as the API server is sent it, parsed and validated once here. */
  private readonly selectorQuery: string | undefined;

  constructor(client: ListWatcher<T>, options: InformerOptions<T>) {
    this.client = client;
    this.options = options;
    this.selectorQuery = labelSelectorString(options.labelSelector);
    this.clock = options.clock ?? realClock;
    this.listParams = options.listParams;
  }

  /** Replaces the extra list/watch query parameters (takes effect at the next list or watch). */
  setListParams(params: (() => Query) | undefined): void {
    this.listParams = params;
  }

  /**
   * Ends the current watch and lists again (with the current listParams): objects the new list
   * lacks are removed from the store with delete events, new ones arrive as adds.
   */
  restartListWatch(): void {
    if (this.stopped) return;
    this.restartRequested = true;
    this.resourceVersion = undefined;
    this.abort?.abort();
  }

  addHandlers(handlers: InformerHandlers<T>): void {
    this.handlers.push(handlers);
    // Late handlers see what is already cached, as client-go's shared informers do.
    if (this.synced) for (const obj of this.store.values()) handlers.onAdd?.(obj, true);
  }

  get hasSynced(): boolean {
    return this.synced;
  }

  /** False while list and watch fail because the server is unreachable; true once one gets through. */
  get connected(): boolean {
    return this.connectedNow;
  }

  /** Calls `listener` each time the informer reaches the server again after a failure. */
  onConnected(listener: () => void): () => void {
    this.connectionListeners.add(listener);
    return () => this.connectionListeners.delete(listener);
  }

  private setConnected(connected: boolean): void {
    if (this.connectedNow === connected) return;
    this.connectedNow = connected;
    if (connected) for (const l of [...this.connectionListeners]) l();
  }

  /** Resolves once the first list is in the store. */
  waitForSync(): Promise<void> {
    if (this.synced) return Promise.resolve();
    return new Promise((resolve) => this.syncWaiters.push(resolve));
  }

  get(namespace: string | undefined, name: string): T | undefined {
    return this.store.get(keyOf(namespace, name));
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
    if (!this.stopped) return;
    this.stopped = false;
    this.loop = this.run();
    if (this.options.resyncMs && this.options.resyncMs > 0) {
      this.resyncTimer = setInterval(() => {
        for (const obj of this.store.values()) for (const h of this.handlers) h.onUpdate?.(obj, obj);
      }, this.options.resyncMs);
      this.resyncTimer.unref();
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.resyncTimer) clearInterval(this.resyncTimer);
    this.abort?.abort();
    await this.loop;
  }

  private async run(): Promise<void> {
    const log = this.options.logger;
    let failures = 0;
    for (let signal = this.nextSignal(); signal; signal = this.nextSignal()) {
      try {
        if (this.resourceVersion === undefined) await this.relist(signal);
        await this.watch(signal);
        failures = 0;
      } catch (err) {
        if (this.stopped) break;
        if (this.restartRequested) {
          this.restartRequested = false;
          this.resourceVersion = undefined;
          continue;
        }
        if (err instanceof WatchExpired || isGone(err)) {
          log.info('watch expired (410 Gone); relisting', { kind: this.client.kind.kind });
          this.resourceVersion = undefined;
          this.stats.relists++;
          continue;
        }
        failures++;
        const unreachable = isServerUnavailable(err);
        if (unreachable) this.setConnected(false);
        // Right after an API server restart, custom resources answer 404 until their CRDs are
        // served again, and an overloaded server answers 429: retry those as fast as an outage.
        const transient =
          unreachable || (isApiError(err) && (err.statusCode === 404 || err.statusCode === 429));
        const cap = transient ? MAX_UNREACHABLE_BACKOFF_MS : MAX_BACKOFF_MS;
        const delay = Math.min(cap, MIN_BACKOFF_MS * 2 ** (failures - 1)) * (0.5 + Math.random() / 2);
        log.warn('list/watch failed; retrying', {
          kind: this.client.kind.kind,
          error: err,
          retryInMs: Math.round(delay),
        });
        const wait = this.nextSignal();
        if (!wait) break;
        await new Promise<void>((resolve) => {
          const t = this.clock.setTimeout(resolve, delay);
          wait.addEventListener('abort', () => {
            this.clock.clearTimeout(t);
            resolve();
          });
        });
      }
    }
  }

  /**
   * The abort signal of the next list, watch or backoff wait, which stop() and restartListWatch()
   * abort; none once stopped. Every wait of the loop takes a fresh one here, after checking `stopped`
   * with no await in between: a stop() that came while a list was in flight ends the loop instead of
   * opening a watch nothing would abort (which held a manager's shutdown until the watch timed out).
   */
  private nextSignal(): AbortSignal | undefined {
    if (this.stopped) return undefined;
    this.abort = new AbortController();
    return this.abort.signal;
  }

  private async relist(signal: AbortSignal): Promise<void> {
    this.stats.lists++;
    this.restartRequested = false;
    const extraQuery = this.listParams?.();
    const list = await this.client.listAll({
      signal,
      ...(extraQuery ? { extraQuery } : {}),
      ...(this.options.namespace ? { namespace: this.options.namespace } : {}),
      ...(this.selectorQuery ? { labelSelector: this.selectorQuery } : {}),
      // The first list may be served from the API server's watch cache (resourceVersion 0, as
      // client-go's reflector): one answer, where a consistent list is a page of 500 per request and
      // each page costs more as the collection grows (100,000 objects: 200 pages, ~6 s against ~1-2 s
      // on the test control plane). Relists (410, restarts) read consistently.
      ...(this.synced ? {} : { resourceVersion: '0' }),
      limit: this.options.pageSize ?? 500,
    });
    const seen = new Set<string>();
    const transform = this.options.transform;
    for (const item of list.items) {
      const obj = transform ? transform(item) : item;
      const key = objectKey(obj);
      seen.add(key);
      this.upsert(key, obj, true);
    }
    for (const [key, old] of this.store.entries()) {
      if (!seen.has(key)) {
        this.store.delete(key);
        for (const h of this.handlers) h.onDelete?.(old);
      }
    }
    this.resourceVersion = list.metadata.resourceVersion;
    this.setConnected(true);
    if (!this.synced) {
      this.synced = true;
      for (const w of this.syncWaiters.splice(0)) w();
    }
  }

  /** Stores `obj`; `listed`: from a (re)list, delivered as an update even when unchanged. */
  private upsert(key: string, obj: T, listed = false): void {
    const old = this.store.get(key);
    this.store.set(key, obj);
    if (old === undefined) {
      const initialList = listed && !this.synced;
      for (const h of this.handlers) h.onAdd?.(obj, initialList);
    } else if (listed || old.metadata?.resourceVersion !== obj.metadata?.resourceVersion) {
      for (const h of this.handlers) h.onUpdate?.(old, obj);
    }
  }

  private async watch(signal: AbortSignal): Promise<void> {
    if (this.restartRequested) {
      // Asked to restart while listing: list again with the new parameters.
      this.restartRequested = false;
      this.resourceVersion = undefined;
      return;
    }
    // Stopped while a list was answered regardless of its aborted signal: no watch to open.
    if (signal.aborted) return;
    this.stats.watches++;
    const extraQuery = this.listParams?.();
    await this.client.watch(
      {
        ...(extraQuery ? { extraQuery } : {}),
        ...(this.options.namespace ? { namespace: this.options.namespace } : {}),
        ...(this.selectorQuery ? { labelSelector: this.selectorQuery } : {}),
        ...(this.resourceVersion ? { resourceVersion: this.resourceVersion } : {}),
        allowWatchBookmarks: true,
        onOpen: () => this.setConnected(true),
        // Spread reconnects of many informers, like client-go (5-10 min).
        timeoutSeconds: 300 + Math.floor(Math.random() * 300),
        signal,
      },
      (event) => this.handle(event),
    );
  }

  private handle(event: WatchEvent<T>): void {
    this.stats.events++;
    if (event.type === 'ERROR') {
      const status = event.object as unknown as { code?: number; message?: string };
      if (status.code === 410) throw new WatchExpired(status.message ?? 'Gone');
      throw new Error(`watch error: ${status.code ?? ''} ${status.message ?? ''}`);
    }
    const rv = event.object.metadata?.resourceVersion;
    if (event.type === 'BOOKMARK') {
      if (rv) this.resourceVersion = rv;
      return;
    }
    const obj = this.options.transform ? this.options.transform(event.object) : event.object;
    const key = objectKey(obj);
    if (event.type === 'DELETED') {
      const old = this.store.get(key);
      this.store.delete(key);
      for (const h of this.handlers) h.onDelete?.(old ?? obj);
    } else {
      this.upsert(key, obj);
    }
    if (rv) this.resourceVersion = rv;
  }
}
