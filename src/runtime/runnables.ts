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
  /**
   * How the shutdown reports this runnable when it has not returned by the shutdown deadline.
   * Default: the function's or class's name, else `runnable #n`.
   */
  readonly name?: string;
}

/**
 * The one deadline of a manager's shutdown (`gracefulShutdownTimeoutMs` from when stop() began):
 * every group is stopped with what is left of it.
 */
export class ShutdownDeadline {
  readonly graceMs: number;
  private readonly at: number;

  constructor(graceMs: number, now: number = Date.now()) {
    this.graceMs = graceMs;
    this.at = now + graceMs;
  }

  /** Milliseconds left (0 once passed). */
  left(): number {
    return Math.max(0, this.at - Date.now());
  }

  /**
   * What a step that talks to the API server (flush events, leave the ring, release the lease) may
   * take: what is left, but at least a second, so a late group does not skip the release of the lease
   * and a hung API server still cannot hold the exit long past the deadline.
   */
  leftForApi(): number {
    return Math.max(1_000, this.left());
  }
}

/**
 * A part of the manager (a server, the cache, the controllers, a group of user runnables) in one of
 * its ordered groups: started when its group starts, stopped when the shutdown reaches its group.
 */
export interface ManagedRunnable {
  readonly name: string;
  /** Starts it; resolves once it is started (a server listens, the caches were told to list). */
  start(): Promise<void> | void;
  /**
   * Stops it by the deadline; may resolve with the names of parts that did not stop in time. Unless
   * `boundsItself`, a stop still running at `deadline.leftForApi()` is reported under `name`.
   */
  stop(deadline: ShutdownDeadline): Promise<readonly string[] | void> | readonly string[] | void;
  /** stop() returns by the deadline on its own (and names what is late): it is not raced. */
  readonly boundsItself?: boolean;
}

/**
 * The manager's groups, in start order (controller-runtime's `runnables`: HTTPServers, Webhooks,
 * Caches, Others, LeaderElection). Differences, kept from op-gen's manager before the groups:
 * `others` (runnables every replica runs) start before the caches and do not wait for them, so a
 * standby's runnables never depend on the API server; `lease` is the leader lease, whose stop
 * releases it; `caches` start before the lease unless leadership gates them (leader election
 * without warmup), then they start once leadership is won, before `leaderElection`.
 */
export const GROUP_ORDER = [
  'httpServers',
  'webhooks',
  'others',
  'caches',
  'lease',
  'leaderElection',
] as const;
export type GroupName = (typeof GROUP_ORDER)[number];

/**
 * Ordered groups of managed runnables: a group starts its members one after the other; stop() stops
 * the started groups in reverse order, the members of one group together, all within one deadline.
 * A member whose start is still under way when the stop reaches it is stopped once that start is
 * done (a server that was binding is closed, not left listening). Nothing starts after stop().
 */
export class RunnableGroups {
  private readonly members = new Map<GroupName, ManagedRunnable[]>();
  private readonly starts = new Map<GroupName, Map<ManagedRunnable, Promise<void>>>();
  private stopped = false;
  private readonly log: Logger;

  constructor(log: Logger) {
    this.log = log;
  }

  add(group: GroupName, member: ManagedRunnable): void {
    let list = this.members.get(group);
    if (!list) this.members.set(group, (list = []));
    list.push(member);
  }

  /** Starts the members of `group` in the order added, once; nothing after stop(). */
  async start(group: GroupName): Promise<void> {
    if (this.stopped || this.starts.has(group)) return;
    const starts = new Map<ManagedRunnable, Promise<void>>();
    this.starts.set(group, starts);
    for (const member of this.members.get(group) ?? []) {
      if (this.stopped) return;
      const started = (async () => member.start())();
      starts.set(member, started);
      await started;
    }
  }

  /**
   * Stops the started groups in reverse order, each group's members concurrently; resolves with the
   * names of what had not stopped by the deadline (those are left running and logged).
   */
  async stop(deadline: ShutdownDeadline): Promise<string[]> {
    this.stopped = true;
    const late: string[] = [];
    for (const group of [...GROUP_ORDER].reverse()) {
      const starts = this.starts.get(group);
      if (!starts) continue;
      const outcomes = await Promise.all([...starts].map(([m, started]) => stopWithin(m, started, deadline)));
      late.push(...outcomes.flat());
    }
    if (late.length > 0)
      this.log.warn('runnables still running at the shutdown deadline', {
        runnables: late,
        gracefulShutdownTimeoutMs: deadline.graceMs,
      });
    return late;
  }
}

/**
 * Stops `member` once its start is done, waiting at most `deadline.leftForApi()` for both unless it
 * bounds itself; the names of what is still running.
 */
async function stopWithin(
  member: ManagedRunnable,
  started: Promise<void>,
  deadline: ShutdownDeadline,
): Promise<readonly string[]> {
  const stopped = (async () => {
    await started.catch(() => undefined);
    return (await member.stop(deadline)) ?? [];
  })().catch(() => [] as readonly string[]);
  if (member.boundsItself) return stopped;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<readonly string[]>((resolve) => {
    timer = setTimeout(() => resolve([member.name]), deadline.leftForApi());
  });
  const outcome = await Promise.race([stopped, late]);
  clearTimeout(timer);
  return outcome;
}

interface Entry {
  readonly name: string;
  readonly run: RunnableFunction;
  running: Promise<void> | undefined;
  done: boolean;
}

/**
 * Users' runnables of one kind (every replica, or the leader only): started together with one abort
 * signal, which stop() aborts; a rejection before the stop calls `onFailure` (the manager stops).
 */
export class RunnableGroup implements ManagedRunnable {
  readonly name: string;
  readonly boundsItself = true;
  private readonly entries: Entry[] = [];
  private readonly abort = new AbortController();
  private started = false;
  private readonly log: Logger;
  private readonly onFailure: (err: Error) => void;

  constructor(name: string, log: Logger, onFailure: (err: Error) => void) {
    this.name = name;
    this.log = log;
    this.onFailure = onFailure;
  }

  get size(): number {
    return this.entries.length;
  }

  add(runnable: Runnable | RunnableFunction, name?: string): void {
    const run: RunnableFunction =
      typeof runnable === 'function' ? runnable : (signal) => runnable.start(signal);
    const named = typeof runnable === 'function' ? runnable.name : runnable.constructor.name;
    const entry: Entry = {
      name: name ?? (named && named !== 'Object' ? named : `runnable #${this.entries.length + 1}`),
      run,
      running: undefined,
      done: false,
    };
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
    entry.running = (async () => entry.run(signal))()
      .catch((err: unknown) => {
        if (signal.aborted) {
          this.log.debug('a runnable failed while stopping', { runnable: entry.name, error: err });
          return;
        }
        const error = err instanceof Error ? err : new Error(String(err));
        this.log.error('a runnable failed; stopping the manager', { runnable: entry.name, error });
        this.onFailure(error);
      })
      .finally(() => (entry.done = true));
  }

  /** Aborts the signal and waits for every runnable to return until the deadline; the late ones' names. */
  async stop(deadline: ShutdownDeadline): Promise<string[]> {
    this.abort.abort();
    const all = Promise.all(this.entries.map((e) => e.running));
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, deadline.left());
    });
    await Promise.race([all, late]);
    clearTimeout(timer);
    return this.entries.filter((e) => e.running && !e.done).map((e) => `${this.name}: ${e.name}`);
  }
}
