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

export interface WorkQueueOptions<K> {
  readonly rateLimiter?: RateLimiter<K>;
  readonly clock?: Clock;
  readonly metrics?: QueueMetrics;
}

/**
 * A rate-limited work queue with client-go's guarantees: an item queued twice is processed once
 * (dirty set), an item is never handed to two workers at once (processing set; re-added items wait
 * until done()), delayed adds keep the earliest time, and failures back off per item.
 */
export class WorkQueue<K = string> {
  private items: K[] = [];
  private head = 0;
  private readonly dirty = new Set<K>();
  private readonly processing = new Set<K>();
  private readonly addedAt = new Map<K, number>();
  private readonly startedAt = new Map<K, number>();
  private readonly waiting = new Map<K, { at: number; timer: TimerHandle }>();
  private waiters: ((item: K | undefined) => void)[] = [];
  private shuttingDown = false;
  private drainWaiters: (() => void)[] = [];
  readonly rateLimiter: RateLimiter<K>;
  private readonly clock: Clock;
  private readonly metrics: QueueMetrics;

  constructor(options: WorkQueueOptions<K> = {}) {
    this.clock = options.clock ?? realClock;
    this.rateLimiter = options.rateLimiter ?? defaultControllerRateLimiter<K>(this.clock);
    this.metrics = options.metrics ?? noMetrics;
  }

  /** Items waiting for a worker. */
  get length(): number {
    return this.items.length - this.head;
  }

  get isShuttingDown(): boolean {
    return this.shuttingDown;
  }

  add(item: K): void {
    if (this.shuttingDown) return;
    this.metrics.add();
    if (this.dirty.has(item)) return;
    this.dirty.add(item);
    if (!this.addedAt.has(item)) this.addedAt.set(item, this.clock.now());
    if (this.processing.has(item)) return;
    this.push(item);
  }

  private push(item: K): void {
    const waiter = this.waiters.shift();
    if (waiter) {
      this.take(item);
      waiter(item);
      return;
    }
    this.items.push(item);
    this.metrics.depth(this.length);
  }

  private take(item: K): void {
    this.processing.add(item);
    this.dirty.delete(item);
    const added = this.addedAt.get(item);
    if (added !== undefined) this.metrics.latency((this.clock.now() - added) / 1000);
    this.addedAt.delete(item);
    this.startedAt.set(item, this.clock.now());
  }

  /** Adds `item` after `ms`; if it is already waiting, the earlier time wins. */
  addAfter(item: K, ms: number): void {
    if (this.shuttingDown) return;
    if (ms <= 0) {
      this.add(item);
      return;
    }
    const at = this.clock.now() + ms;
    const existing = this.waiting.get(item);
    if (existing) {
      if (existing.at <= at) return;
      this.clock.clearTimeout(existing.timer);
    }
    const timer = this.clock.setTimeout(() => {
      this.waiting.delete(item);
      this.add(item);
    }, ms);
    this.waiting.set(item, { at, timer });
  }

  /** Adds `item` after the rate limiter's delay: one more failure for it. */
  addRateLimited(item: K): void {
    this.metrics.retry();
    this.addAfter(item, this.rateLimiter.when(item));
  }

  /** Clears the failure count of `item`: call after it was processed successfully. */
  forget(item: K): void {
    this.rateLimiter.forget(item);
  }

  numRequeues(item: K): number {
    return this.rateLimiter.numRequeues(item);
  }

  /** The next item; waits while the queue is empty. `undefined` once the queue shuts down. */
  get(): Promise<K | undefined> {
    if (this.length > 0) {
      const item = this.items[this.head] as K;
      this.head++;
      if (this.head > 1024 && this.head * 2 > this.items.length) {
        this.items = this.items.slice(this.head);
        this.head = 0;
      }
      this.metrics.depth(this.length);
      this.take(item);
      return Promise.resolve(item);
    }
    if (this.shuttingDown) return Promise.resolve(undefined);
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** Marks `item` as processed; if it was added meanwhile, it goes back in the queue now. */
  done(item: K): void {
    this.processing.delete(item);
    const started = this.startedAt.get(item);
    if (started !== undefined) this.metrics.workDuration((this.clock.now() - started) / 1000);
    this.startedAt.delete(item);
    if (this.dirty.has(item) && !this.shuttingDown) this.push(item);
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
