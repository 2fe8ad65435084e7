import type { ObjectLike } from '../client/resource-client.ts';
import { keyOf, objectKey } from './object-key.ts';
import { IndexedStore, type IndexFunc, type StoreQuery } from './store-index.ts';
import type { WatcherEvent } from './watcher.ts';

export interface InformerHandlers<T> {
  /**
   * `initialList`: the object came with the informer's first list (client-go's isInInitialList).
   * `key`: the object's store key (`namespace/name`) when the store has it at hand.
   */
  onAdd?(obj: T, initialList: boolean, key?: string): void;
  /** `key`: the object's store key when the store has it at hand. */
  onUpdate?(oldObj: T, newObj: T, key?: string): void;
  onDelete?(obj: T): void;
}

/**
 * The state a watcher's events build (kube-rs's reflector store, client-go's DeltaFIFO + indexer
 * + processor in one): an indexed store of one kind, the handlers every change is fanned out to,
 * and the resync that re-delivers the store. It talks to no server; apply() is fed the events.
 *
 * A `list` event replaces the content: every listed object is delivered, new ones as adds and the
 * others as updates even when their resourceVersion did not change (client-go's Replace does the
 * same), so a controller re-queues everything after a watch gap; objects the list lacks are
 * deleted. The store holds the objects as given (after `transform`): treat them as read-only.
 */
export class InformerStore<T extends ObjectLike> {
  private readonly store = new IndexedStore<T>();
  private readonly handlers: InformerHandlers<T>[] = [];
  private readonly transform: ((obj: T) => T) | undefined;
  private synced = false;
  /**
   * While a list streams in (between `init` and `initDone`): the keys it has given, to delete the
   * others at its end; undefined when the store was empty at `init` (nothing to delete).
   */
  private seen: Set<string> | undefined;
  private syncWaiters: (() => void)[] = [];
  private resyncTimer: ReturnType<typeof setInterval> | undefined;

  constructor(transform?: (obj: T) => T) {
    this.transform = transform;
  }

  addHandlers(handlers: InformerHandlers<T>): void {
    this.handlers.push(handlers);
    // Late handlers see what is already cached, as client-go's shared informers do.
    if (this.synced) for (const obj of this.store.values()) handlers.onAdd?.(obj, true);
  }

  get hasSynced(): boolean {
    return this.synced;
  }

  /** Resolves once the first list is in the store. */
  waitForSync(): Promise<void> {
    if (this.synced) return Promise.resolve();
    return new Promise((resolve) => this.syncWaiters.push(resolve));
  }

  /** Applies one watcher event to the store and tells the handlers; `error` events change nothing. */
  apply(event: WatcherEvent<T>): void {
    switch (event.type) {
      case 'list':
        this.init();
        for (const obj of event.objects) this.initApply(obj);
        return this.initDone();
      case 'init':
        return this.init();
      case 'initApply':
        return this.initApply(event.object);
      case 'initDone':
        return this.initDone();
      case 'applied': {
        const obj = this.transform ? this.transform(event.object) : event.object;
        return this.upsert(objectKey(obj), obj, false);
      }
      case 'deleted': {
        const obj = this.transform ? this.transform(event.object) : event.object;
        const key = objectKey(obj);
        const old = this.store.get(key);
        this.store.delete(key);
        for (const h of this.handlers) h.onDelete?.(old ?? obj);
        return;
      }
      case 'error':
        return;
    }
  }

  /** A list begins: remember the keys it gives if there is anything it may delete. */
  private init(): void {
    this.seen = this.store.size > 0 ? new Set<string>() : undefined;
  }

  /** One object of the list: stored, delivered as an add, or as an update even when unchanged. */
  private initApply(item: T): void {
    const obj = this.transform ? this.transform(item) : item;
    const key = objectKey(obj);
    this.seen?.add(key);
    this.upsert(key, obj, true);
  }

  /** The list is complete: what it did not give is deleted; the store is synced. */
  private initDone(): void {
    const seen = this.seen;
    this.seen = undefined;
    if (seen !== undefined) {
      for (const [key, old] of this.store.entries()) {
        if (!seen.has(key)) {
          this.store.delete(key);
          for (const h of this.handlers) h.onDelete?.(old);
        }
      }
    }
    if (!this.synced) {
      this.synced = true;
      for (const w of this.syncWaiters.splice(0)) w();
    }
  }

  /** Stores `obj`; `listed`: from a (re)list, delivered as an update even when unchanged. */
  private upsert(key: string, obj: T, listed: boolean): void {
    const old = this.store.set(key, obj);
    if (old === undefined) {
      const initialList = listed && !this.synced;
      for (const h of this.handlers) h.onAdd?.(obj, initialList, key);
    } else if (listed || old.metadata?.resourceVersion !== obj.metadata?.resourceVersion) {
      for (const h of this.handlers) h.onUpdate?.(old, obj, key);
    }
  }

  /** Re-delivers every stored object to the handlers as an update every `ms` (0: never). */
  startResync(ms: number | undefined): void {
    this.stopResync();
    if (!ms || ms <= 0) return;
    this.resyncTimer = setInterval(() => {
      for (const obj of this.store.values()) for (const h of this.handlers) h.onUpdate?.(obj, obj);
    }, ms);
    this.resyncTimer.unref();
  }

  stopResync(): void {
    if (this.resyncTimer) clearInterval(this.resyncTimer);
    this.resyncTimer = undefined;
  }

  get(namespace: string | undefined, name: string): T | undefined {
    return this.store.get(keyOf(namespace, name));
  }

  values(): IterableIterator<T> {
    return this.store.values();
  }

  get size(): number {
    return this.store.size;
  }

  addIndex(name: string, extract: IndexFunc<T>): void {
    this.store.addIndex(name, extract);
  }

  hasIndex(name: string): boolean {
    return this.store.hasIndex(name);
  }

  select(query: StoreQuery, out?: [string, T][]): [string, T][] {
    return this.store.select(query, out);
  }
}
