import { realClock, type Clock, type TimerHandle } from './clock.ts';
import { defaultControllerRateLimiter, type RateLimiter } from './rate-limiter.ts';

/** What a queue reports; the controller wires these to Prometheus metrics. */
export interface QueueMetrics {
  depth(n: number): void;
  add(): void;
  /** Seconds an item waited in the queue before a worker took it. */
  latency(seconds: number): void;
  /** Seconds a worker spent on an item. */
  workDuration(seconds: number): void;
  retry(): void;
}

const noMetrics: QueueMetrics = { depth() {}, add() {}, latency() {}, workDuration() {}, retry() {} };

/** controller-runtime's `handler.LowPriority`: initial-list and resync events go in at this priority. */
export const LOW_PRIORITY = -100;
/** The priority of live events and of plain `add(item)`. */
export const NORMAL_PRIORITY = 0;
/** The default of `WorkQueueOptions.maxSkips`. */
export const DEFAULT_MAX_SKIPS = 10;

export interface WorkQueueOptions<K> {
  readonly rateLimiter?: RateLimiter<K>;
  readonly clock?: Clock;
  readonly metrics?: QueueMetrics;
  /**
   * The aging rule that keeps lower priorities from starving: each time a worker is handed an item
   * while items of a lower priority wait, every such lower priority is "skipped" once; a priority
   * skipped `maxSkips` times is served next (its oldest item), and its count starts again. So under
   * a steady stream of higher-priority items a waiting lower priority still gets at least one item
   * in every `maxSkips + 1`, and an item of a higher priority waits at most one extra item per lower
   * priority. Default 10.
   */
  readonly maxSkips?: number;
}

/**
 * Everything the queue knows of one item, in one record (one map lookup per operation): whether it
 * is dirty (added, not yet handed out) and at which priority, its slot in a level while it waits,
 * whether a worker holds it, its timestamps for the metrics, and a pending delayed add. The record
 * is dropped when none of these holds.
 */
class Entry<K> {
  readonly item: K;
  /** Added and not yet handed out (client-go's dirty set). */
  dirty: boolean;
  /** The priority it is dirty at. */
  priority: number;
  /** The level it waits in (queued: dirty, not processing), else undefined. */
  level: Level<K> | undefined = undefined;
  /** The seq of its slot in `level` (0 when not queued); other slots holding it are stale. */
  seq = 0;
  /** Handed to a worker and not done yet. */
  processing = false;
  /** The priority it was handed out at (while processing). */
  handedPriority = NORMAL_PRIORITY;
  /** When it became dirty (for the queue-duration metric); -1 when not dirty. */
  addedAt: number;
  /** When a worker took it (for the work-duration metric); -1 when not processing. */
  startedAt = -1;
  /** A pending addAfter, else undefined. */
  delayed: Delayed | undefined = undefined;

  /** A record for an item added now (`dirty`), or with nothing yet (`addedAt` -1). */
  constructor(item: K, dirty: boolean, priority: number, addedAt: number) {
    this.item = item;
    this.dirty = dirty;
    this.priority = priority;
    this.addedAt = addedAt;
  }
}

/** A pending delayed add: its time, priority and timer. */
interface Delayed {
  at: number;
  priority: number;
  readonly timer: TimerHandle;
}

/** One priority's items in arrival order: slot i is `items[i]`, valid while its seq is `seqs[i]`. */
interface Level<K> {
  readonly priority: number;
  items: Entry<K>[];
  seqs: number[];
  head: number;
  /** Valid slots. */
  live: number;
  /** Times an item was handed out ahead of this level's oldest item. */
  skipped: number;
}

/**
 * A rate-limited priority work queue with client-go's guarantees: an item queued twice is processed
 * once (dirty set), an item is never handed to two workers at once (processing set; re-added items
 * wait until done()), delayed adds keep the earliest time, and failures back off per item.
 *
 * Priorities are controller-runtime's priority queue's (pkg/controller/priorityqueue): a higher
 * number is served first; items of one priority keep their arrival order (a queue with one priority
 * is exactly the FIFO queue); an item added again while it waits keeps its place at the higher of
 * the two priorities (moved to the end of the higher one when raised); a delayed add keeps the
 * earlier time and the higher priority. Unlike controller-runtime's, lower priorities age (see
 * `maxSkips`), so they cannot starve.
 *
 * The state of an item is one record (Entry) in one map; an add of a new item costs one map lookup,
 * one insert and two array pushes (docs/performance.md has the measured cost).
 */
export class WorkQueue<K = string> {
  /** Levels by descending priority. */
  private levels: Level<K>[] = [];
  /** Every item the queue holds state for: dirty, processing or delayed. */
  private readonly entries = new Map<K, Entry<K>>();
  private seq = 0;
  /** The level of the last enqueue (levels are never removed): most adds go to the same one. */
  private last: Level<K> | undefined = undefined;
  /** Items waiting in a level. */
  private queued = 0;
  /** Items handed to a worker and not done yet. */
  private processing = 0;
  private waiters: ((item: K | undefined) => void)[] = [];
  private shuttingDown = false;
  private drainWaiters: (() => void)[] = [];
  readonly rateLimiter: RateLimiter<K>;
  private readonly clock: Clock;
  private readonly metrics: QueueMetrics;
  private readonly maxSkips: number;

  constructor(options: WorkQueueOptions<K> = {}) {
    this.clock = options.clock ?? realClock;
    this.rateLimiter = options.rateLimiter ?? defaultControllerRateLimiter<K>(this.clock);
    this.metrics = options.metrics ?? noMetrics;
    this.maxSkips = Math.max(1, options.maxSkips ?? DEFAULT_MAX_SKIPS);
  }

  /** Items waiting for a worker. */
  get length(): number {
    return this.queued;
  }

  /** Items the queue keeps a record of (dirty, processing or with a delayed add pending). */
  get tracked(): number {
    return this.entries.size;
  }

  get isShuttingDown(): boolean {
    return this.shuttingDown;
  }

  /** Queues `item` at `priority` (default NORMAL_PRIORITY); if it is already queued, the higher priority wins. */
  add(item: K, priority: number = NORMAL_PRIORITY): void {
    if (this.shuttingDown) return;
    this.metrics.add();
    let e = this.entries.get(item);
    if (e === undefined) {
      // A new item (an informer's list: nearly every add): one record, straight to its level.
      e = new Entry(item, true, priority, this.clock.now());
      this.entries.set(item, e);
      this.push(e, priority);
      return;
    }
    if (e.dirty) {
      if (priority <= e.priority) return;
      e.priority = priority;
      // Waiting in a lower level: move it up (to the end of the higher level).
      if (e.level !== undefined) this.enqueue(e, priority);
      return;
    }
    e.dirty = true;
    e.priority = priority;
    e.addedAt = this.clock.now();
    if (e.processing) return;
    this.push(e, priority);
  }

  private push(e: Entry<K>, priority: number): void {
    if (this.waiters.length > 0) {
      const waiter = this.waiters.shift() as (item: K | undefined) => void;
      this.take(e);
      waiter(e.item);
      return;
    }
    this.enqueue(e, priority);
    this.metrics.depth(this.queued);
  }

  /** Puts `e` at the end of `priority`'s level (leaving a stale slot behind if it waited elsewhere). */
  private enqueue(e: Entry<K>, priority: number): void {
    const old = e.level;
    if (old !== undefined) {
      if (--old.live === 0) {
        old.items = [];
        old.seqs = [];
        old.head = 0;
        old.skipped = 0;
      }
    } else this.queued++;
    const seq = ++this.seq;
    const last = this.last;
    const level =
      last !== undefined && last.priority === priority ? last : (this.last = this.levelOf(priority));
    e.level = level;
    e.seq = seq;
    level.items.push(e);
    level.seqs.push(seq);
    level.live++;
  }

  private levelOf(priority: number): Level<K> {
    const levels = this.levels;
    let i = 0;
    while (i < levels.length && (levels[i] as Level<K>).priority > priority) i++;
    const at = levels[i];
    if (at !== undefined && at.priority === priority) return at;
    const level: Level<K> = { priority, items: [], seqs: [], head: 0, live: 0, skipped: 0 };
    levels.splice(i, 0, level);
    return level;
  }

  /** Hands `e` to a worker: no longer dirty, processing at the priority it had. */
  private take(e: Entry<K>): void {
    e.processing = true;
    this.processing++;
    e.handedPriority = e.dirty ? e.priority : NORMAL_PRIORITY;
    e.dirty = false;
    const now = this.clock.now();
    if (e.addedAt >= 0) this.metrics.latency((now - e.addedAt) / 1000);
    e.addedAt = -1;
    e.startedAt = now;
  }

  /** Drops `e`'s record once nothing about it is left to remember. */
  private release(e: Entry<K>): void {
    if (!e.dirty && !e.processing && e.delayed === undefined && e.level === undefined)
      this.entries.delete(e.item);
  }

  /**
   * Adds `item` after `ms` at `priority`; if it is already waiting, the earlier time and the higher
   * priority win.
   */
  addAfter(item: K, ms: number, priority: number = NORMAL_PRIORITY): void {
    if (this.shuttingDown) return;
    if (ms <= 0) {
      this.add(item, priority);
      return;
    }
    const at = this.clock.now() + ms;
    let e = this.entries.get(item);
    if (e === undefined) {
      e = new Entry(item, false, NORMAL_PRIORITY, -1);
      this.entries.set(item, e);
    } else if (e.delayed !== undefined) {
      const pending = e.delayed;
      if (pending.at <= at) {
        pending.priority = Math.max(pending.priority, priority);
        return;
      }
      this.clock.clearTimeout(pending.timer);
      priority = Math.max(pending.priority, priority);
    }
    const entry = e;
    entry.delayed = {
      at,
      priority,
      timer: this.clock.setTimeout(() => {
        const p = (entry.delayed as Delayed).priority;
        entry.delayed = undefined;
        this.add(item, p);
        this.release(entry);
      }, ms),
    };
  }

  /** Adds `item` after the rate limiter's delay: one more failure for it. */
  addRateLimited(item: K, priority: number = NORMAL_PRIORITY): void {
    this.metrics.retry();
    this.addAfter(item, this.rateLimiter.when(item), priority);
  }

  /** Clears the failure count of `item`: call after it was processed successfully. */
  forget(item: K): void {
    this.rateLimiter.forget(item);
  }

  numRequeues(item: K): number {
    return this.rateLimiter.numRequeues(item);
  }

  /** The priority `item` had when a worker was handed it (while it is being processed). */
  priorityOf(item: K): number | undefined {
    const e = this.entries.get(item);
    return e !== undefined && e.processing ? e.handedPriority : undefined;
  }

  /** The next item; waits while the queue is empty. `undefined` once the queue shuts down. */
  get(): Promise<K | undefined> {
    if (this.queued > 0) {
      const e = this.next();
      this.metrics.depth(this.queued);
      this.take(e);
      return Promise.resolve(e.item);
    }
    if (this.shuttingDown) return Promise.resolve(undefined);
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** Pops the item the priorities and the aging rule choose (the queue is not empty). */
  private next(): Entry<K> {
    let serve: Level<K> | undefined;
    let top: Level<K> | undefined;
    const levels = this.levels;
    for (let i = 0; i < levels.length; i++) {
      const level = levels[i] as Level<K>;
      if (level.live === 0) continue;
      if (top === undefined) top = level;
      else if (level.skipped >= this.maxSkips) {
        serve = level;
        break;
      }
    }
    serve ??= top as Level<K>;
    if (levels.length > 1) {
      for (let i = 0; i < levels.length; i++) {
        const level = levels[i] as Level<K>;
        if (level === serve) level.skipped = 0;
        else if (level.live > 0 && level.priority < serve.priority) level.skipped++;
      }
    } else serve.skipped = 0;
    for (;;) {
      const at = serve.head++;
      const e = serve.items[at] as Entry<K>;
      if (e.seq !== serve.seqs[at]) continue; // moved to a higher level
      e.level = undefined;
      e.seq = 0;
      this.queued--;
      serve.live--;
      if (serve.live === 0) {
        serve.items = [];
        serve.seqs = [];
        serve.head = 0;
        serve.skipped = 0;
      } else if (serve.head > 1024 && serve.head * 2 > serve.items.length) {
        serve.items = serve.items.slice(serve.head);
        serve.seqs = serve.seqs.slice(serve.head);
        serve.head = 0;
      }
      return e;
    }
  }

  /** Marks `item` as processed; if it was added meanwhile, it goes back in the queue now. */
  done(item: K): void {
    const e = this.entries.get(item);
    if (e === undefined) return;
    if (e.processing) {
      e.processing = false;
      this.processing--;
    }
    if (e.startedAt >= 0) this.metrics.workDuration((this.clock.now() - e.startedAt) / 1000);
    e.startedAt = -1;
    if (e.dirty && !this.shuttingDown) this.push(e, e.priority);
    this.release(e);
    if (this.processing === 0) {
      for (const d of this.drainWaiters.splice(0)) d();
    }
  }

  /** Stops intake: waiting get() calls return undefined, delayed adds are dropped. */
  shutDown(): void {
    this.shuttingDown = true;
    for (const e of [...this.entries.values()]) {
      if (e.delayed === undefined) continue;
      this.clock.clearTimeout(e.delayed.timer);
      e.delayed = undefined;
      this.release(e);
    }
    for (const w of this.waiters.splice(0)) w(undefined);
  }

  /** Shuts down and resolves once no item is being processed. */
  shutDownWithDrain(): Promise<void> {
    this.shutDown();
    if (this.processing === 0) return Promise.resolve();
    return new Promise((resolve) => this.drainWaiters.push(resolve));
  }
}
