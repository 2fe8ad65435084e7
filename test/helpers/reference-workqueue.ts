/**
 * The work queue as it was before its state went into one record per item (main at 4cba2ca,
 * src/runtime/workqueue.ts, unchanged but for this comment, its name and its imports): the oracle of
 * test/unit/runtime/workqueue-model.test.ts, which checks that the restructured queue hands out the
 * same items in the same order and reports the same metrics for any sequence of operations.
 * Test code only; not the runtime's queue.
 */
import { realClock, type Clock, type TimerHandle } from '../../src/runtime/clock.ts';
import { defaultControllerRateLimiter, type RateLimiter } from '../../src/runtime/rate-limiter.ts';
import {
  DEFAULT_MAX_SKIPS,
  NORMAL_PRIORITY,
  type QueueMetrics,
  type WorkQueueOptions,
} from '../../src/runtime/workqueue.ts';

const noMetrics: QueueMetrics = { depth() {}, add() {}, latency() {}, workDuration() {}, retry() {} };

/** One priority's items in arrival order; entries whose seq no longer matches were moved up. */
interface Level<K> {
  readonly priority: number;
  entries: { item: K; seq: number }[];
  head: number;
  /** Valid entries. */
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
 */
export class ReferenceWorkQueue<K = string> {
  /** Levels by descending priority. */
  private levels: Level<K>[] = [];
  /** Waiting items (dirty, not processing): their level and entry seq. */
  private readonly queued = new Map<K, { priority: number; seq: number }>();
  private seq = 0;
  /** Items added and not yet handed out, with their priority. */
  private readonly dirty = new Map<K, number>();
  private readonly processing = new Map<K, number>();
  private readonly addedAt = new Map<K, number>();
  private readonly startedAt = new Map<K, number>();
  private readonly waiting = new Map<K, { at: number; priority: number; timer: TimerHandle }>();
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
    return this.queued.size;
  }

  get isShuttingDown(): boolean {
    return this.shuttingDown;
  }

  /** Queues `item` at `priority` (default NORMAL_PRIORITY); if it is already queued, the higher priority wins. */
  add(item: K, priority: number = NORMAL_PRIORITY): void {
    if (this.shuttingDown) return;
    this.metrics.add();
    const had = this.dirty.get(item);
    if (had !== undefined) {
      if (priority <= had) return;
      this.dirty.set(item, priority);
      // Waiting in a lower level: move it up (to the end of the higher level).
      if (this.queued.has(item)) this.enqueue(item, priority);
      return;
    }
    this.dirty.set(item, priority);
    if (!this.addedAt.has(item)) this.addedAt.set(item, this.clock.now());
    if (this.processing.has(item)) return;
    this.push(item, priority);
  }

  private push(item: K, priority: number): void {
    const waiter = this.waiters.shift();
    if (waiter) {
      this.take(item);
      waiter(item);
      return;
    }
    this.enqueue(item, priority);
    this.metrics.depth(this.length);
  }

  private enqueue(item: K, priority: number): void {
    const prev = this.queued.get(item);
    if (prev) {
      const old = this.levels.find((l) => l.priority === prev.priority);
      if (old && --old.live === 0) {
        old.entries = [];
        old.head = 0;
        old.skipped = 0;
      }
    }
    const seq = ++this.seq;
    this.queued.set(item, { priority, seq });
    const level = this.levelOf(priority);
    level.entries.push({ item, seq });
    level.live++;
  }

  private levelOf(priority: number): Level<K> {
    let i = 0;
    while (i < this.levels.length && (this.levels[i] as Level<K>).priority > priority) i++;
    const at = this.levels[i];
    if (at && at.priority === priority) return at;
    const level: Level<K> = { priority, entries: [], head: 0, live: 0, skipped: 0 };
    this.levels.splice(i, 0, level);
    return level;
  }

  private take(item: K): void {
    this.processing.set(item, this.dirty.get(item) ?? NORMAL_PRIORITY);
    this.dirty.delete(item);
    const added = this.addedAt.get(item);
    if (added !== undefined) this.metrics.latency((this.clock.now() - added) / 1000);
    this.addedAt.delete(item);
    this.startedAt.set(item, this.clock.now());
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
    const existing = this.waiting.get(item);
    if (existing) {
      if (existing.at <= at) {
        existing.priority = Math.max(existing.priority, priority);
        return;
      }
      this.clock.clearTimeout(existing.timer);
      priority = Math.max(existing.priority, priority);
    }
    const entry = {
      at,
      priority,
      timer: this.clock.setTimeout(() => {
        this.waiting.delete(item);
        this.add(item, entry.priority);
      }, ms),
    };
    this.waiting.set(item, entry);
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
    return this.processing.get(item);
  }

  /** The next item; waits while the queue is empty. `undefined` once the queue shuts down. */
  get(): Promise<K | undefined> {
    if (this.length > 0) {
      const item = this.next();
      this.metrics.depth(this.length);
      this.take(item);
      return Promise.resolve(item);
    }
    if (this.shuttingDown) return Promise.resolve(undefined);
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** Pops the item the priorities and the aging rule choose (the queue is not empty). */
  private next(): K {
    let serve: Level<K> | undefined;
    let top: Level<K> | undefined;
    for (const level of this.levels) {
      if (level.live === 0) continue;
      if (!top) top = level;
      else if (level.skipped >= this.maxSkips) {
        serve = level;
        break;
      }
    }
    serve ??= top as Level<K>;
    for (const level of this.levels) {
      if (level === serve) level.skipped = 0;
      else if (level.live > 0 && level.priority < serve.priority) level.skipped++;
    }
    for (;;) {
      const entry = serve.entries[serve.head] as { item: K; seq: number };
      serve.head++;
      if (this.queued.get(entry.item)?.seq !== entry.seq) continue; // moved to a higher level
      this.queued.delete(entry.item);
      serve.live--;
      if (serve.live === 0) {
        serve.entries = [];
        serve.head = 0;
        serve.skipped = 0;
      } else if (serve.head > 1024 && serve.head * 2 > serve.entries.length) {
        serve.entries = serve.entries.slice(serve.head);
        serve.head = 0;
      }
      return entry.item;
    }
  }

  /** Marks `item` as processed; if it was added meanwhile, it goes back in the queue now. */
  done(item: K): void {
    this.processing.delete(item);
    const started = this.startedAt.get(item);
    if (started !== undefined) this.metrics.workDuration((this.clock.now() - started) / 1000);
    this.startedAt.delete(item);
    const priority = this.dirty.get(item);
    if (priority !== undefined && !this.shuttingDown) this.push(item, priority);
    if (this.processing.size === 0) {
      for (const d of this.drainWaiters.splice(0)) d();
    }
  }

  /** Stops intake: waiting get() calls return undefined, delayed adds are dropped. */
  shutDown(): void {
    this.shuttingDown = true;
    for (const { timer } of this.waiting.values()) this.clock.clearTimeout(timer);
    this.waiting.clear();
    for (const w of this.waiters.splice(0)) w(undefined);
  }

  /** Shuts down and resolves once no item is being processed. */
  shutDownWithDrain(): Promise<void> {
    this.shutDown();
    if (this.processing.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.drainWaiters.push(resolve));
  }
}
