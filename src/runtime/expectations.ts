import { realClock, type Clock } from './clock.ts';

interface Expectation {
  adds: number;
  deletes: number;
  at: number;
}

/**
 * Creations and deletions a controller has asked for but not yet seen in its cache (client-go's
 * ControllerExpectations). A reconcile that acts on a stale cache would create twice; with
 * expectations it waits for its own earlier writes to show up. Expectations expire after 5 minutes
 * in case an event was lost.
 */
export class Expectations {
  private readonly entries = new Map<string, Expectation>();
  private readonly clock: Clock;
  private readonly ttlMs: number;

  constructor(options: { clock?: Clock; ttlMs?: number } = {}) {
    this.clock = options.clock ?? realClock;
    this.ttlMs = options.ttlMs ?? 5 * 60 * 1000;
  }

  expectCreations(key: string, n: number): void {
    this.bump(key, n, 0);
  }

  expectDeletions(key: string, n: number): void {
    this.bump(key, 0, n);
  }

  /** Call from the watch handler when a created object appears. */
  creationObserved(key: string): void {
    this.lower(key, 'adds');
  }

  deletionObserved(key: string): void {
    this.lower(key, 'deletes');
  }

  /** True when every expected creation/deletion was observed (or expired): safe to act on the cache. */
  satisfied(key: string): boolean {
    const e = this.entries.get(key);
    if (!e) return true;
    if ((e.adds <= 0 && e.deletes <= 0) || this.clock.now() - e.at > this.ttlMs) {
      this.entries.delete(key);
      return true;
    }
    return false;
  }

  /** Keys with an expectation (satisfied ones included until `satisfied` or `forget` is called). */
  get size(): number {
    return this.entries.size;
  }

  forget(key: string): void {
    this.entries.delete(key);
  }

  private bump(key: string, adds: number, deletes: number): void {
    const e = this.entries.get(key) ?? { adds: 0, deletes: 0, at: this.clock.now() };
    e.adds += adds;
    e.deletes += deletes;
    e.at = this.clock.now();
    this.entries.set(key, e);
  }

  private lower(key: string, field: 'adds' | 'deletes'): void {
    const e = this.entries.get(key);
    if (e) e[field] = Math.max(0, e[field] - 1);
  }
}
