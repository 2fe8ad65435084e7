import { isApiError, isGone } from '../client/api-error.ts';
import type {
  ListOptions,
  ObjectLike,
  ObjectList,
  ResourceClient,
  WatchEvent,
} from '../client/resource-client.ts';
import type { Query } from '../client/transport.ts';
import { realClock, type Clock } from './clock.ts';
import { labelSelectorString } from './label-selector.ts';
import type { Logger } from './logger.ts';
import { isServerUnavailable } from './server-unavailable.ts';

/**
 * What a watcher needs of a client: list and watch one kind (ResourceClient; a fake in tests). With
 * `listEach` a list's objects are passed on as they are decoded (init, initApply…, initDone); without
 * it, as one `list` event once the whole list is in.
 */
export type ListWatcher<T extends ObjectLike> = Pick<ResourceClient<T>, 'kind' | 'listAll' | 'watch'> &
  Partial<Pick<ResourceClient<T>, 'listEach'>>;

/**
 * What a watcher yields (kube-rs's `watcher::Event`): a complete list comes streamed as `init`, one
 * `initApply` per object and `initDone` (list requests decoded as they arrive, or a watch-list), or at
 * once as `list` (from a ListWatcher without listEach); either way a store replaces its content with it (the first list, or a relist after 410 Gone or
 * restart()). An `init` may be followed by another `init` without `initDone` (the stream failed and
 * starts over, or a `list` replaces it). `applied` (added or modified) and `deleted` come from the
 * watch; `error` is a failed list or watch the watcher retries after `retryInMs` (resuming from the
 * last resourceVersion), for consumers that count or show them.
 */
export type WatcherEvent<T> =
  | { readonly type: 'list'; readonly objects: readonly T[]; readonly resourceVersion: string }
  | { readonly type: 'init' }
  | { readonly type: 'initApply'; readonly object: T }
  | { readonly type: 'initDone'; readonly resourceVersion: string }
  | { readonly type: 'applied'; readonly object: T }
  | { readonly type: 'deleted'; readonly object: T }
  | { readonly type: 'error'; readonly error: unknown; readonly retryInMs: number };

export interface WatcherOptions {
  /** Watch one namespace; omit for all namespaces (or a cluster-scoped kind). */
  readonly namespace?: string;
  readonly labelSelector?: string;
  readonly logger: Logger;
  readonly clock?: Clock;
  /** Page size of the lists. */
  readonly pageSize?: number;
  /**
   * More list/watch query parameters, read at every list and watch (e.g. sharding's
   * `shardSelector`); after they change, call restart().
   */
  readonly listParams?: () => Query;
  /**
   * List by watch-list (the API server's WatchList feature, client-go's WatchListClient): one watch
   * streams every object as an ADDED event and a BOOKMARK ends the list; the watch then goes on. A
   * server that refuses it (or ends the watch before that bookmark) is listed from then on. Default
   * false: at 100,000 objects it took a third less memory than a list read whole, but more CPU and,
   * with the API server on the same loaded machine, far longer to sync; list requests are now decoded
   * as they arrive and take as little memory (docs/performance.md).
   */
  readonly watchList?: boolean;
}

/** An ERROR event with code 410: the resourceVersion is too old to watch from. */
class WatchExpired extends Error {}

/** The annotation of the BOOKMARK that ends a watch-list's initial events. */
const INITIAL_EVENTS_END = 'k8s.io/initial-events-end';
/**
 * The answers of a server that does not serve watch-list: 400/422 from a server with the WatchList
 * feature off ("sendInitialEvents is forbidden for watch unless the WatchList feature gate is
 * enabled"), 405/406/415/501 from proxies and servers that know no such watch.
 */
const WATCH_LIST_REFUSED = new Set([400, 405, 406, 415, 422, 501]);

const MIN_BACKOFF_MS = 800;
const MAX_BACKOFF_MS = 30_000;
/**
 * While the server cannot be reached (connection refused or reset, 5xx), or answers 404 / 429 (a
 * restarted server not serving the CRD yet, or overloaded), retries stay at most this far apart: a
 * refused connection costs the server nothing, and the controllers wait for the watcher to
 * reconnect, so a 30 s backoff would become 30 s of recovery after an outage.
 */
const MAX_UNREACHABLE_BACKOFF_MS = 2_000;

/**
 * List, then watch, of one kind as an async stream of events (client-go's ListWatch, kube-rs's
 * `watcher()`): lists (paginated), watches from the list's resourceVersion with bookmarks, resumes
 * from the last resourceVersion it saw when a watch closes or fails (with backoff on failure), and
 * lists again on 410 Gone. It holds no objects: a store (the informer's) builds the state.
 *
 * `for await (const event of watcher)` runs it; the stream ends when stop() is called or the consumer
 * leaves the loop. One consumer at a time; iterating again after the end resumes from the last
 * resourceVersion. `connected` is false while lists and watches fail because the server is
 * unreachable (socket errors, 5xx), true again once one gets through.
 */
export class Watcher<T extends ObjectLike> implements AsyncIterable<WatcherEvent<T>> {
  private readonly client: ListWatcher<T>;
  private readonly options: WatcherOptions;
  private readonly clock: Clock;
  /** The selector as the API server is sent it, parsed and validated once here. */
  private readonly selectorQuery: string | undefined;
  private listParams: (() => Query) | undefined;
  private version: string | undefined;
  private abort: AbortController | undefined;
  private running = false;
  private stopped = true;
  private restartRequested = false;
  /** A list has been answered: later lists (after 410, a restart) are consistent reads. */
  private listed = false;
  /** The server refused a watch-list (or ended it before its bookmark): list instead from now on. */
  private watchListRefused = false;
  private connectedNow = false;
  private readonly connectionListeners = new Set<() => void>();
  /**
   * What the consumer holds is as new as the server's answers: a list was completed, or (after a
   * failure) the resumed watch delivered an event or bookmark. False from a failure or a relist on.
   */
  private fresh = false;
  private inSyncNow = false;
  private readonly inSyncListeners = new Set<() => void>();
  /** Counts, for tests and metrics (`lists` counts watch-lists too; `watchLists` those alone). */
  readonly stats = { lists: 0, watches: 0, relists: 0, events: 0, watchLists: 0 };

  constructor(client: ListWatcher<T>, options: WatcherOptions) {
    this.client = client;
    this.options = options;
    this.clock = options.clock ?? realClock;
    this.selectorQuery = labelSelectorString(options.labelSelector);
    this.listParams = options.listParams;
  }

  /** The resourceVersion the next watch resumes from (undefined: the next step lists). */
  get resourceVersion(): string | undefined {
    return this.version;
  }

  /** False while list and watch fail because the server is unreachable; true once one gets through. */
  get connected(): boolean {
    return this.connectedNow;
  }

  /** Calls `listener` each time the watcher reaches the server again after a failure. */
  onConnected(listener: () => void): () => void {
    this.connectionListeners.add(listener);
    return () => this.connectionListeners.delete(listener);
  }

  /**
   * True while the stream is current: connected, listed, and not relisting; after a failure, only
   * once a list completed or the resumed watch delivered something (an opened watch that the server
   * then ends with 410 Gone never counts as current).
   */
  get inSync(): boolean {
    return this.inSyncNow;
  }

  /** Calls `listener` each time the stream becomes current again (see inSync). */
  onInSync(listener: () => void): () => void {
    this.inSyncListeners.add(listener);
    return () => this.inSyncListeners.delete(listener);
  }

  /** Replaces the extra list/watch query parameters (takes effect at the next list or watch). */
  setListParams(params: (() => Query) | undefined): void {
    this.listParams = params;
  }

  /** Ends the current list or watch and lists again (with the current listParams). */
  restart(): void {
    if (this.stopped) return;
    this.restartRequested = true;
    this.version = undefined;
    this.setFresh(false);
    this.abort?.abort();
  }

  /** Ends the stream: the list, watch or backoff wait under way is aborted. */
  stop(): void {
    this.stopped = true;
    this.abort?.abort();
  }

  /**
   * Runs list and watch until stop(), calling `onEvent` with each event as it arrives, in order. A
   * throw from `onEvent` counts as a failed list or watch: retried after a backoff from the
   * resourceVersion before that event (so the event comes again). Rejects if already running.
   */
  async run(onEvent: (event: WatcherEvent<T>) => void): Promise<void> {
    if (this.running) throw new Error(`Watcher(${this.client.kind.kind}): already running`);
    this.running = true;
    this.stopped = false;
    try {
      await this.loop(onEvent);
    } finally {
      this.running = false;
    }
  }

  /**
   * The events as an async stream: the stream ends when stop() is called, and leaving the loop
   * stops the watcher. Events that arrive while the consumer is busy wait in order.
   */
  async *[Symbol.asyncIterator](): AsyncGenerator<WatcherEvent<T>, void, undefined> {
    const queue: WatcherEvent<T>[] = [];
    let wake: (() => void) | undefined;
    let ended = false;
    const poke = (): void => {
      const w = wake;
      wake = undefined;
      w?.();
    };
    const running = this.run((event) => {
      queue.push(event);
      poke();
    }).finally(() => {
      ended = true;
      poke();
    });
    try {
      for (;;) {
        const event = queue.shift();
        if (event) yield event;
        else if (ended) break;
        else await new Promise<void>((resolve) => (wake = resolve));
      }
      await running;
    } finally {
      this.stop();
      await running.catch(() => undefined);
    }
  }

  private setConnected(connected: boolean): void {
    if (this.connectedNow === connected) return;
    this.connectedNow = connected;
    if (!connected) this.fresh = false;
    this.updateInSync();
    if (connected) for (const l of [...this.connectionListeners]) l();
  }

  /** Records whether what was delivered is current (see `fresh`), and tells listeners when it is again. */
  private setFresh(fresh: boolean): void {
    this.fresh = fresh;
    this.updateInSync();
  }

  private updateInSync(): void {
    const now = this.connectedNow && this.fresh && this.version !== undefined;
    if (now === this.inSyncNow) return;
    this.inSyncNow = now;
    if (now) for (const l of [...this.inSyncListeners]) l();
  }

  /**
   * The abort signal of the next list, watch or backoff wait, which stop() and restart() abort; none
   * once stopped. Every step takes a fresh one here, after checking `stopped` with no await in
   * between: a stop() that came while a list was in flight ends the stream instead of opening a
   * watch nothing would abort (which held a manager's shutdown until the watch timed out).
   */
  private nextSignal(): AbortSignal | undefined {
    if (this.stopped) return undefined;
    this.abort = new AbortController();
    return this.abort.signal;
  }

  private async loop(onEvent: (event: WatcherEvent<T>) => void): Promise<void> {
    let failures = 0;
    for (let signal = this.nextSignal(); signal; signal = this.nextSignal()) {
      try {
        if (this.restartRequested) {
          this.restartRequested = false;
          this.version = undefined;
        }
        if (this.version === undefined && this.options.watchList === true && !this.watchListRefused) {
          await this.watchList(signal, onEvent);
          failures = 0;
          continue;
        }
        if (this.version === undefined) await this.list(signal, onEvent);
        // Stopped or restarted while the list was answered regardless of its aborted signal.
        if (signal.aborted) continue;
        await this.watch(signal, onEvent);
        failures = 0;
      } catch (err) {
        if (this.stopped) break;
        if (this.restartRequested) continue;
        if (err instanceof WatchExpired || isGone(err)) {
          this.options.logger.info('watch expired (410 Gone); relisting', { kind: this.client.kind.kind });
          this.version = undefined;
          this.setFresh(false);
          this.stats.relists++;
          continue;
        }
        failures++;
        const retryInMs = this.backoff(err, failures);
        const wait = this.nextSignal();
        if (!wait) break;
        onEvent({ type: 'error', error: err, retryInMs });
        await this.sleep(retryInMs, wait);
      }
    }
  }

  /** How long to wait after the `failures`-th failure in a row (logged), jittered. */
  private backoff(err: unknown, failures: number): number {
    const unreachable = isServerUnavailable(err);
    if (unreachable) this.setConnected(false);
    // Right after an API server restart, custom resources answer 404 until their CRDs are served
    // again, and an overloaded server answers 429: retry those as fast as an outage.
    const transient = unreachable || (isApiError(err) && (err.statusCode === 404 || err.statusCode === 429));
    const cap = transient ? MAX_UNREACHABLE_BACKOFF_MS : MAX_BACKOFF_MS;
    const delay = Math.min(cap, MIN_BACKOFF_MS * 2 ** (failures - 1)) * (0.5 + Math.random() / 2);
    this.options.logger.warn('list/watch failed; retrying', {
      kind: this.client.kind.kind,
      error: err,
      retryInMs: Math.round(delay),
    });
    return delay;
  }

  private sleep(ms: number, signal: AbortSignal): Promise<void> {
    return new Promise<void>((resolve) => {
      const t = this.clock.setTimeout(resolve, ms);
      signal.addEventListener('abort', () => {
        this.clock.clearTimeout(t);
        resolve();
      });
    });
  }

  private query(): Pick<ListOptions, 'extraQuery' | 'namespace' | 'labelSelector'> {
    const extraQuery = this.listParams?.();
    return {
      ...(extraQuery ? { extraQuery } : {}),
      ...(this.options.namespace ? { namespace: this.options.namespace } : {}),
      ...(this.selectorQuery ? { labelSelector: this.selectorQuery } : {}),
    };
  }

  private async list(signal: AbortSignal, onEvent: (event: WatcherEvent<T>) => void): Promise<void> {
    this.stats.lists++;
    const options = {
      signal,
      ...this.query(),
      // The first list may be served from the API server's watch cache (resourceVersion 0, as
      // client-go's reflector asks): one answer, where a consistent list is a page of 500 a request
      // and each page costs more as the collection grows (100,000 ConfigMaps: 200 pages, ~6 s against
      // ~1-2 s on the test control plane). Relists (after 410, a restart) read consistently.
      ...(this.listed ? {} : { resourceVersion: '0' }),
      limit: this.options.pageSize ?? 500,
    };
    let list: ObjectList<T>;
    let started = false;
    if (this.client.listEach) {
      // Objects are passed on as their part of the answer is decoded (list-decoder.ts): a store
      // fills while the server is still sending, as with a watch-list.
      list = await this.client.listEach(options, (items) => {
        if (signal.aborted) return;
        if (!started) {
          started = true;
          this.setConnected(true);
          onEvent({ type: 'init' });
        }
        for (const object of items) onEvent({ type: 'initApply', object });
      });
    } else {
      list = await this.client.listAll(options);
    }
    this.setConnected(true);
    // Stopped or restarted meanwhile: the list is stale, the loop ends or lists again.
    if (signal.aborted) return;
    this.listed = true;
    const resourceVersion = list.metadata.resourceVersion ?? '';
    if (!this.client.listEach) onEvent({ type: 'list', objects: list.items, resourceVersion });
    else {
      if (!started) onEvent({ type: 'init' });
      onEvent({ type: 'initDone', resourceVersion });
    }
    this.version = list.metadata.resourceVersion;
    this.setFresh(true);
  }

  /**
   * The list as a watch-list: one watch with sendInitialEvents; its ADDED events are passed on as
   * `initApply` as they arrive (after an `init`), and the BOOKMARK annotated
   * k8s.io/initial-events-end is `initDone` with the list's resourceVersion; then the same watch goes
   * on as watch() does. No resourceVersion is sent, so the list is consistent (as a list without one
   * is), served from the watch cache. Until that bookmark the resume point does not move: a failure
   * or 410 in between starts over. Refused (WATCH_LIST_REFUSED), or ended by the server before the
   * bookmark (a server that ignored sendInitialEvents), it is not asked again and the loop lists.
   */
  private async watchList(signal: AbortSignal, onEvent: (event: WatcherEvent<T>) => void): Promise<void> {
    this.stats.lists++;
    this.stats.watchLists++;
    let initial = true;
    let started = false;
    try {
      await this.client.watch(
        {
          ...this.query(),
          sendInitialEvents: true,
          resourceVersionMatch: 'NotOlderThan',
          allowWatchBookmarks: true,
          onOpen: () => this.setConnected(true),
          timeoutSeconds: 300 + Math.floor(Math.random() * 300),
          signal,
        },
        (event) => {
          if (!initial) return this.receive(event, onEvent);
          this.stats.events++;
          switch (event.type) {
            case 'ADDED':
            case 'MODIFIED':
              if (!started) {
                started = true;
                onEvent({ type: 'init' });
              }
              onEvent({ type: 'initApply', object: event.object });
              return;
            case 'BOOKMARK': {
              const meta = event.object.metadata as { annotations?: Record<string, string> } | undefined;
              if (meta?.annotations?.[INITIAL_EVENTS_END] !== 'true') return;
              const resourceVersion = event.object.metadata?.resourceVersion ?? '';
              initial = false;
              this.listed = true;
              if (!started) onEvent({ type: 'init' });
              onEvent({ type: 'initDone', resourceVersion });
              this.version = resourceVersion;
              this.setFresh(true);
              return;
            }
            case 'DELETED':
              throw new Error('watch-list: a DELETED event before the initial-events-end bookmark');
            default:
              return this.receive(event, onEvent);
          }
        },
      );
    } catch (err) {
      if (!(initial && isApiError(err) && WATCH_LIST_REFUSED.has(err.statusCode))) throw err;
      this.refuseWatchList(`the server answered ${err.statusCode}`);
      return;
    }
    if (initial && !signal.aborted)
      this.refuseWatchList('the watch ended before its initial-events-end bookmark');
  }

  private refuseWatchList(why: string): void {
    this.watchListRefused = true;
    this.options.logger.debug('watch-list not served; listing instead', {
      kind: this.client.kind.kind,
      reason: why,
    });
  }

  /**
   * One watch request, until the server closes it (the loop resumes from the last resourceVersion),
   * it fails (thrown), or `signal` aborts. An ERROR event ends it: 410 as WatchExpired (the loop
   * relists), any other code as an error (backoff, then resume).
   */
  private async watch(signal: AbortSignal, onEvent: (event: WatcherEvent<T>) => void): Promise<void> {
    this.stats.watches++;
    await this.client.watch(
      {
        ...this.query(),
        ...(this.version ? { resourceVersion: this.version } : {}),
        allowWatchBookmarks: true,
        onOpen: () => this.setConnected(true),
        // Spread reconnects of many watchers, like client-go (5-10 min).
        timeoutSeconds: 300 + Math.floor(Math.random() * 300),
        signal,
      },
      (event) => this.receive(event, onEvent),
    );
  }

  /** One watch event: passed on (bookmarks are not), then the resume point moves past it. */
  private receive(event: WatchEvent<T>, onEvent: (event: WatcherEvent<T>) => void): void {
    this.stats.events++;
    if (event.type === 'ERROR') {
      const status = event.object as unknown as { code?: number; message?: string };
      if (status.code === 410) throw new WatchExpired(status.message ?? 'Gone');
      throw new Error(`watch error: ${status.code ?? ''} ${status.message ?? ''}`);
    }
    if (event.type === 'DELETED') onEvent({ type: 'deleted', object: event.object });
    else if (event.type !== 'BOOKMARK') onEvent({ type: 'applied', object: event.object });
    const rv = event.object.metadata?.resourceVersion;
    if (rv) this.version = rv;
    if (!this.fresh) this.setFresh(true);
  }
}
