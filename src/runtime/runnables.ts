import type { Logger } from './logger.ts';

/**
 * Something the manager runs for its lifetime (controller-runtime's `manager.Runnable`): `start`
 * runs until `signal` aborts (the manager stops) and then returns; it may also return earlier when
 * its work is done. A rejection stops the manager, and `mgr.start()` rejects with it.
 */
export interface Runnable {
  start(signal: AbortSignal): Promise<void> | void;
}

export type RunnableFunction = (signal: AbortSignal) => Promise<void> | void;

export interface AddOptions {
  /**
   * Run only on the replica that holds the leader lease (started with the controllers, after
   * leadership is won). `false`: run on every replica from start() on (e.g. a cache warmer or an
   * HTTP server). Default true, as in controller-runtime. Without leader election the two are alike.
   */
  readonly needLeaderElection?: boolean;
}

interface Entry {
  readonly run: RunnableFunction;
  running: Promise<void> | undefined;
}

/** One group of runnables started and stopped together. */
export class RunnableGroup {
  private readonly entries: Entry[] = [];
  private readonly abort = new AbortController();
  private started = false;
  private readonly log: Logger;
  private readonly onFailure: (err: Error) => void;

  constructor(log: Logger, onFailure: (err: Error) => void) {
    this.log = log;
    this.onFailure = onFailure;
  }

  get size(): number {
    return this.entries.length;
  }

  add(runnable: Runnable | RunnableFunction): void {
    const run: RunnableFunction =
      typeof runnable === 'function' ? runnable : (signal) => runnable.start(signal);
    const entry: Entry = { run, running: undefined };
    this.entries.push(entry);
    if (this.started) this.launch(entry);
  }

  start(): void {
    if (this.started || this.abort.signal.aborted) return;
    this.started = true;
    for (const e of this.entries) this.launch(e);
  }

  private launch(entry: Entry): void {
    const signal = this.abort.signal;
    entry.running = (async () => entry.run(signal))().catch((err: unknown) => {
      if (signal.aborted) {
        this.log.debug('a runnable failed while stopping', { error: err });
        return;
      }
      const error = err instanceof Error ? err : new Error(String(err));
      this.log.error('a runnable failed; stopping the manager', { error });
      this.onFailure(error);
    });
  }

  /** Aborts the signal and waits for every runnable to return, at most `graceMs`. */
  async stop(graceMs: number): Promise<void> {
    this.abort.abort();
    const all = Promise.all(this.entries.map((e) => e.running)).then(() => true);
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(false), graceMs);
    });
    const done = await Promise.race([all, late]);
    clearTimeout(timer);
    if (!done) this.log.warn('runnables still running at the shutdown deadline', { graceMs });
  }
}
