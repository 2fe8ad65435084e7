/** Time as the runtime sees it; tests swap in FakeClock. */
export interface Clock {
  now(): number;
  setTimeout(fn: () => void, ms: number): TimerHandle;
  clearTimeout(handle: TimerHandle): void;
}

export interface TimerHandle {
  readonly id: number;
}

const realTimers = new Map<number, ReturnType<typeof setTimeout>>();
let nextRealId = 1;

export const realClock: Clock = {
  now: () => Date.now(),
  setTimeout(fn, ms) {
    const id = nextRealId++;
    const timer = setTimeout(() => {
      realTimers.delete(id);
      fn();
    }, ms);
    timer.unref();
    realTimers.set(id, timer);
    return { id };
  },
  clearTimeout(handle) {
    const timer = realTimers.get(handle.id);
    if (timer !== undefined) clearTimeout(timer);
    realTimers.delete(handle.id);
  },
};

interface Pending {
  readonly id: number;
  readonly at: number;
  readonly fn: () => void;
}

/** A clock that moves only when told to: `step(ms)` runs the timers that became due, in order. */
export class FakeClock implements Clock {
  private time: number;
  private nextId = 1;
  private pending: Pending[] = [];

  constructor(start = 0) {
    this.time = start;
  }

  now(): number {
    return this.time;
  }

  setTimeout(fn: () => void, ms: number): TimerHandle {
    const id = this.nextId++;
    this.pending.push({ id, at: this.time + Math.max(0, ms), fn });
    return { id };
  }

  clearTimeout(handle: TimerHandle): void {
    this.pending = this.pending.filter((p) => p.id !== handle.id);
  }

  /** Advances time by `ms`, running every timer due on the way. */
  step(ms: number): void {
    const target = this.time + ms;
    for (;;) {
      const due = this.pending.filter((p) => p.at <= target).sort((a, b) => a.at - b.at || a.id - b.id)[0];
      if (!due) break;
      this.pending = this.pending.filter((p) => p !== due);
      this.time = due.at;
      due.fn();
    }
    this.time = target;
  }

  /** Number of timers still waiting. */
  get waiting(): number {
    return this.pending.length;
  }
}
