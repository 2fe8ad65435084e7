import { kindKey, type Kind, type KindSpec } from '../client/kind.ts';
import {
  PARTIAL_METADATA_ACCEPT,
  PARTIAL_METADATA_LIST_ACCEPT,
  ResourceClient,
  type ObjectLike,
  type PartialObjectMetadata,
} from '../client/resource-client.ts';
import type { Query, Transport } from '../client/transport.ts';
import { Informer, stripManagedFields, type InformerHandlers, type ListWatcher } from './informer.ts';
import type { Logger } from './logger.ts';
import { OWNER_INDEX, ownerUids, sortedByKey, type IndexFunc, type StoreQuery } from './store-index.ts';

/** Keys the metadata-only informers of a kind apart from its full ones. */
const METADATA_SUFFIX = '#metadata';

export interface CacheOptions {
  /** Namespaces to watch; empty or absent: all namespaces. */
  readonly namespaces?: readonly string[];
  readonly resyncMs?: number;
  readonly logger: Logger;
  /** Drop metadata.managedFields from cached objects. Default true. */
  readonly stripManagedFields?: boolean;
  /** List by watch-list (InformerOptions.watchList). Default false. */
  readonly watchList?: boolean;
}

/** Whether the cache reaches the API server and is current; what a controller waits on after faults. */
export interface CacheConnection {
  /** True while every informer's last list or watch reached the server. */
  readonly connected: boolean;
  /** Calls `listener` each time every informer reaches the server again after a failure. */
  onConnected(listener: () => void): () => void;
  /**
   * Whether the cached copies of `kind`, and of the kind the API path `path` names (a write's path,
   * e.g. a 409's), are current: every informer of them connected, listed and not relisting
   * (Informer.inSync). A kind the cache does not hold counts as current (reads of it go to the server).
   */
  inSync(kind: KindSpec, path?: string): boolean;
  /** Calls `listener` each time one of the cache's informers becomes current again. */
  onInSync(listener: () => void): () => void;
}

/**
 * The manager's shared informer cache: one informer per kind (per watched namespace when the
 * manager is scoped to a list of namespaces), shared by every controller and the reconcile client.
 */
export class InformerCache implements CacheConnection {
  private readonly informers = new Map<string, Informer<ObjectLike>[]>();
  private readonly listParams = new Map<string, () => Query>();
  private readonly connectionListeners = new Set<() => void>();
  private readonly inSyncListeners = new Set<() => void>();
  /** The kinds held, by `group/plural` (how an API path names them, whatever its version). */
  private readonly kindsByResource = new Map<string, KindSpec>();
  private started = false;
  private readonly transport: Transport;
  private readonly options: CacheOptions;

  constructor(transport: Transport, options: CacheOptions) {
    this.transport = transport;
    this.options = options;
  }

  /** The informers for a kind, created on first use (and started if the cache runs). */
  informersFor<T extends ObjectLike>(kind: Kind<T>): Informer<T>[] {
    return this.informersOf(kind, false);
  }

  /**
   * The metadata-only informers for a kind (controller-runtime's metadata informers, for a
   * `PartialObjectMetadata` watch): they list and watch with the Accept header of client-go's
   * metadata client, so the server sends metadata only (no spec, status or data), and they are kept
   * apart from the kind's full informers (a kind may have both; `get`/`list`/`ctx.client` read the
   * full ones only).
   */
  metadataInformersFor(kind: Kind<unknown>): Informer<PartialObjectMetadata>[] {
    return this.informersOf(kind as Kind<PartialObjectMetadata>, true);
  }

  private informersOf<T extends ObjectLike>(kind: Kind<T>, metadataOnly: boolean): Informer<T>[] {
    const kindId = kindKey(kind);
    const key = metadataOnly ? `${kindId}${METADATA_SUFFIX}` : kindId;
    let list = this.informers.get(key) as Informer<T>[] | undefined;
    if (!list) {
      const client = new ResourceClient<T>(this.transport, kind);
      const source: ListWatcher<T> = metadataOnly
        ? {
            kind,
            listAll: (o) => client.listAll({ ...o, accept: PARTIAL_METADATA_LIST_ACCEPT }),
            listEach: (o, onItems) =>
              client.listEach({ ...o, accept: PARTIAL_METADATA_LIST_ACCEPT }, onItems),
            watch: (o, onEvent) => client.watch({ ...o, accept: PARTIAL_METADATA_ACCEPT }, onEvent),
          }
        : client;
      const namespaces =
        kind.namespaced && this.options.namespaces?.length ? this.options.namespaces : [undefined];
      list = namespaces.map(
        (namespace) =>
          new Informer<T>(source, {
            ...(namespace ? { namespace } : {}),
            ...(this.options.resyncMs ? { resyncMs: this.options.resyncMs } : {}),
            ...(this.options.stripManagedFields === false ? {} : { transform: stripManagedFields }),
            ...(this.listParams.has(kindId) ? { listParams: this.listParams.get(kindId)! } : {}),
            ...(this.options.watchList ? { watchList: true } : {}),
            logger: this.options.logger.child({
              informer: kind.kind,
              ...(metadataOnly ? { metadataOnly: true } : {}),
              ...(namespace ? { namespace } : {}),
            }),
          }),
      );
      for (const informer of list) {
        informer.onConnected(() => {
          if (this.connected) for (const l of [...this.connectionListeners]) l();
        });
        informer.onInSync(() => {
          for (const l of [...this.inSyncListeners]) l();
        });
      }
      this.kindsByResource.set(`${kind.group}/${kind.plural}`, kind);
      this.informers.set(key, list as unknown as Informer<ObjectLike>[]);
      if (this.started) for (const i of list) i.start();
    }
    return list;
  }

  /** Handlers on a kind's metadata-only informers (objects are PartialObjectMetadata). */
  addMetadataHandlers(kind: Kind<unknown>, handlers: InformerHandlers<PartialObjectMetadata>): void {
    for (const informer of this.metadataInformersFor(kind)) informer.addHandlers(handlers);
  }

  /** An object's metadata from the kind's metadata-only informers (created on first use). */
  getMetadata(
    kind: Kind<unknown>,
    namespace: string | undefined,
    name: string,
  ): PartialObjectMetadata | undefined {
    for (const informer of this.metadataInformersFor(kind)) {
      const obj = informer.get(kind.namespaced ? namespace : undefined, name);
      if (obj) return obj;
    }
    return undefined;
  }

  /** The metadata-only cache of a kind, as `list` answers the full one. */
  listMetadata(kind: Kind<unknown>, options: StoreQuery = {}): PartialObjectMetadata[] {
    const selected: [string, PartialObjectMetadata][] = [];
    for (const informer of this.metadataInformersFor(kind)) informer.select(options, selected);
    return sortedByKey(selected);
  }

  /** Extra list/watch query parameters for one kind's informers (sharding's shardSelector). */
  setListParams(kind: Kind<unknown>, params: () => Query): void {
    const key = kindKey(kind);
    this.listParams.set(key, params);
    for (const k of [key, `${key}${METADATA_SUFFIX}`])
      for (const informer of this.informers.get(k) ?? []) informer.setListParams(params);
  }

  /** Lists and watches one kind again (after its listParams changed). */
  restartListWatch(kind: Kind<unknown>): void {
    for (const key of [kindKey(kind), `${kindKey(kind)}${METADATA_SUFFIX}`])
      for (const informer of this.informers.get(key) ?? []) informer.restartListWatch();
  }

  isCached(kind: Kind<unknown>): boolean {
    return this.informers.has(kindKey(kind));
  }

  /** Whether `namespace` is one the cache watches (always, when it watches all). */
  watchesNamespace(namespace: string | undefined): boolean {
    const ns = this.options.namespaces;
    return !ns?.length || namespace === undefined || ns.includes(namespace);
  }

  addHandlers<T extends ObjectLike>(kind: Kind<T>, handlers: InformerHandlers<T>): void {
    for (const informer of this.informersFor(kind)) informer.addHandlers(handlers);
  }

  get<T extends ObjectLike>(kind: Kind<T>, namespace: string | undefined, name: string): T | undefined {
    for (const informer of this.informersFor(kind)) {
      const obj = informer.get(kind.namespaced ? namespace : undefined, name);
      if (obj) return obj;
    }
    return undefined;
  }

  /**
   * The cached objects matching `options`, sorted by namespace/name: from the namespace index, or a
   * field index when `field` names one (see indexField); only the answer is sorted.
   */
  list<T extends ObjectLike>(kind: Kind<T>, options: StoreQuery = {}): T[] {
    const selected: [string, T][] = [];
    for (const informer of this.informersFor(kind)) informer.select(options, selected);
    return sortedByKey(selected);
  }

  /**
   * Registers a field index on a kind's informers (controller-runtime's FieldIndexer.IndexField),
   * creating them if needed: `list(kind, { field: { [name]: value } })` (and ctx.client.list) then
   * answer from it. `extract` gives the values an object is filed under. Registered while the cache
   * runs, the index is built from what is cached. A name registered twice for a kind throws.
   */
  indexField<T extends ObjectLike>(kind: Kind<T>, name: string, extract: IndexFunc<T>): void {
    const informers = this.informersFor(kind);
    if (informers.some((i) => i.hasIndex(name))) {
      throw new Error(`cache.indexField: ${kind.kind} already has an index named "${name}"`);
    }
    for (const informer of informers) informer.addIndex(name, extract);
  }

  /**
   * Builds the owner index of a kind now (for `field: ownedBy(parent)`) unless it is there already;
   * without this call the first ownedBy lookup builds it.
   */
  indexOwners(kind: Kind<ObjectLike>): void {
    for (const informer of this.informersFor(kind)) {
      if (!informer.hasIndex(OWNER_INDEX)) informer.addIndex(OWNER_INDEX, ownerUids);
    }
  }

  start(): void {
    this.started = true;
    for (const list of this.informers.values()) for (const i of list) i.start();
  }

  async waitForSync(): Promise<void> {
    await Promise.all([...this.informers.values()].flat().map((i) => i.waitForSync()));
  }

  get connected(): boolean {
    return [...this.informers.values()].flat().every((i) => i.connected);
  }

  onConnected(listener: () => void): () => void {
    this.connectionListeners.add(listener);
    return () => this.connectionListeners.delete(listener);
  }

  inSync(kind: KindSpec, path?: string): boolean {
    const named = path === undefined ? undefined : this.kindAt(path);
    return this.kindInSync(kind) && (named === undefined || this.kindInSync(named));
  }

  onInSync(listener: () => void): () => void {
    this.inSyncListeners.add(listener);
    return () => this.inSyncListeners.delete(listener);
  }

  /** Every informer of `kind` (full and metadata-only) is current; true when none exists. */
  private kindInSync(kind: KindSpec): boolean {
    const id = kindKey(kind);
    for (const key of [id, `${id}${METADATA_SUFFIX}`])
      for (const informer of this.informers.get(key) ?? []) if (!informer.inSync) return false;
    return true;
  }

  /**
   * The held kind an API path (`/api/v1/namespaces/ns/configmaps/x`, `/apis/g/v/things/x/status`,
   * with or without a query) is about, matched by group and plural whatever the version.
   */
  private kindAt(path: string): KindSpec | undefined {
    const parts = path.split('?', 1)[0]!.split('/');
    // ['', 'api', v, ...rest] or ['', 'apis', group, v, ...rest]
    const group = parts[1] === 'api' ? '' : parts[1] === 'apis' ? parts[2] : undefined;
    if (group === undefined) return undefined;
    const rest = parts.slice(parts[1] === 'api' ? 3 : 4);
    // namespaces/<ns>/<plural>/... names a namespaced kind; namespaces/<name>[/status] is Namespace.
    const namespaced = rest[0] === 'namespaces' ? this.kindsByResource.get(`${group}/${rest[2]}`) : undefined;
    return namespaced ?? this.kindsByResource.get(`${group}/${rest[0]}`);
  }

  get hasSynced(): boolean {
    return [...this.informers.values()].flat().every((i) => i.hasSynced);
  }

  async stop(): Promise<void> {
    this.started = false;
    await Promise.all([...this.informers.values()].flat().map((i) => i.stop()));
  }

  /** Informer counters per kind, for tests and diagnostics (`lists` counts watch-lists too). */
  stats(): Record<string, Informer<ObjectLike>['stats']> {
    const out: Record<string, Informer<ObjectLike>['stats']> = {};
    for (const [key, list] of this.informers) {
      out[key] = list.reduce(
        (a, i) => ({
          lists: a.lists + i.stats.lists,
          watchLists: a.watchLists + i.stats.watchLists,
          watches: a.watches + i.stats.watches,
          relists: a.relists + i.stats.relists,
          events: a.events + i.stats.events,
        }),
        { lists: 0, watchLists: 0, watches: 0, relists: 0, events: 0 },
      );
    }
    return out;
  }
}
