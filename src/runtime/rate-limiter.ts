import type { Clock } from './clock.ts';
import { realClock } from './clock.ts';

/** Decides how long an item waits before it is processed again (client-go's RateLimiter). */
export interface RateLimiter<K = string> {
  /** The delay for the next retry of `item`; each call counts as one more failure. */
  when(item: K): number;
  /** Forget the failures of `item` (after a success). */
  forget(item: K): void;
  /** Failures counted for `item`. */
  numRequeues(item: K): number;
}

/** Per-item exponential backoff: base · 2^failures, capped (client-go: 5 ms → 1000 s). */
export class ItemExponentialFailureRateLimiter<K = string> implements RateLimiter<K> {
  private readonly failures = new Map<K, number>();
  private readonly baseMs: number;
  private readonly maxMs: number;

  constructor(baseMs = 5, maxMs = 1_000_000) {
    this.baseMs = baseMs;
    this.maxMs = maxMs;
  }

  when(item: K): number {
    const exp = this.failures.get(item) ?? 0;
    this.failures.set(item, exp + 1);
    const delay = this.baseMs * 2 ** exp;
    return delay > this.maxMs || !Number.isFinite(delay) ? this.maxMs : delay;
  }

  forget(item: K): void {
    this.failures.delete(item);
  }

  numRequeues(item: K): number {
    return this.failures.get(item) ?? 0;
  }
}

/**
 * An overall token bucket shared by all items (client-go: 10 qps, burst 100): with tokens left an item
 * goes now; otherwise it waits until its reserved token arrives.
 */
export class BucketRateLimiter<K = string> implements RateLimiter<K> {
  private tokens: number;
  private last: number;
  private readonly qps: number;
  private readonly burst: number;
  private readonly clock: Clock;

  constructor(qps = 10, burst = 100, clock: Clock = realClock) {
    this.qps = qps;
    this.burst = burst;
    this.clock = clock;
    this.tokens = burst;
    this.last = clock.now();
  }

  when(_item: K): number {
    const now = this.clock.now();
    this.tokens = Math.min(this.burst, this.tokens + ((now - this.last) / 1000) * this.qps);
    this.last = now;
    this.tokens -= 1;
    return this.tokens >= 0 ? 0 : Math.ceil((-this.tokens / this.qps) * 1000);
  }

  forget(_item: K): void {}

  numRequeues(_item: K): number {
    return 0;
  }
}

/** The longest delay of several limiters (client-go's MaxOfRateLimiter). */
export class MaxOfRateLimiter<K = string> implements RateLimiter<K> {
  private readonly limiters: readonly RateLimiter<K>[];

  constructor(...limiters: RateLimiter<K>[]) {
    this.limiters = limiters;
  }

  when(item: K): number {
    let max = 0;
    for (const l of this.limiters) max = Math.max(max, l.when(item));
    return max;
  }

  forget(item: K): void {
    for (const l of this.limiters) l.forget(item);
  }

  numRequeues(item: K): number {
    let max = 0;
    for (const l of this.limiters) max = Math.max(max, l.numRequeues(item));
    return max;
  }
}

/** controller-runtime's default: per-item 5 ms → 1000 s, combined with a 10 qps / 100 burst bucket. */
export function defaultControllerRateLimiter<K = string>(clock: Clock = realClock): RateLimiter<K> {
  return new MaxOfRateLimiter<K>(
    new ItemExponentialFailureRateLimiter<K>(5, 1_000_000),
    new BucketRateLimiter<K>(10, 100, clock),
  );
}
