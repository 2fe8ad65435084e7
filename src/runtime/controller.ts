import { randomUUID } from 'node:crypto';
import { context as otelContext, trace, type Context, type Span, type Tracer } from '@opentelemetry/api';
import { isApiError, isConflict } from '../client/api-error.ts';
import type { Kind } from '../client/kind.ts';
import type { CacheConnection } from './cache.ts';
import { realClock, type Clock, type TimerHandle } from './clock.ts';
import type { EventRecorder } from './events.ts';
import type { Logger } from './logger.ts';
import type { ObjectLike } from '../client/resource-client.ts';
import type { ControllerSeries, RuntimeMetrics } from './metrics.ts';
import { requestOf, type Request } from './object-key.ts';
import type { RateLimiter } from './rate-limiter.ts';
import type { ReconcileClient } from './reconcile-client.ts';
import { isServerUnavailable } from './server-unavailable.ts';
import { NORMAL_PRIORITY, WorkQueue } from './workqueue.ts';
import { defaultErrorAction, type ErrorAction, type ErrorPolicy } from './terminal-error.ts';
import { recordFailure, runtimeTracer, tracedTransport } from './tracing.ts';

/** What a reconcile asks for next. Returning nothing means done: forget the item's failures. */
export interface Result {
  /** Requeue with the rate limiter's backoff. */
  readonly requeue?: boolean;
  /** Requeue after this many milliseconds (e.g. to poll something outside the cluster). */
  readonly requeueAfter?: number;
  /**
   * The priority of the requeue (`requeue` or `requeueAfter`; controller-runtime's
   * `Result.Priority`). Default: the priority the item had when it was handed to this reconcile.
   */
  readonly priority?: number;
}

export interface ReconcileContext<T> {
  /** Reads from the cache, writes to the API. */
  readonly client: ReconcileClient;
  /**
   * Logger carrying controller-runtime's keys: `controller`, `controllerGroup`, `controllerKind`, the
   * object as `{name, namespace}` under its kind's name, `namespace`, `name`, `reconcileID`; and
   * `traceID`/`spanID` when the reconcile's span is recording.
   */
  readonly log: Logger;
  readonly recorder: EventRecorder;
  /**
   * Aborted when the manager shuts down past its grace period, and with `reconcileTimeoutMs` when
   * the reconcile's deadline passes (then `signal.reason` is a ReconcileTimeoutError).
   */
  readonly signal: AbortSignal;
  /** The kind this controller reconciles. */
  readonly kind: Kind<T>;
  readonly controller: string;
  readonly reconcileId: string;
  /**
   * The reconcile's span when a tracer provider records it (see tracing.ts): start child spans from
   * it (`trace.setSpan(context.active(), ctx.span)`). Absent when tracing is off.
   */
  readonly span?: Span;
}

/** Brings one object's world in line with its spec. Must be idempotent and must not wait. */
export interface Reconciler<T> {
  reconcile(ctx: ReconcileContext<T>, req: Request): Promise<Result | void>;
}

export interface ControllerOptions {
  readonly maxConcurrentReconciles?: number;
  readonly rateLimiter?: RateLimiter<string>;
  /**
   * With the manager's `sharding` option: split this controller's objects among the replicas by
   * hash of metadata.uid (docs/sharding.md). Unsharded controllers of a sharded manager run on one
   * replica at a time (the holder of ring slot 0).
   */
  readonly sharded?: boolean;
  /**
   * Decides what a failed reconcile leads to: backoff, terminal (no requeue) or a requeue after a
   * delay. Default: a TerminalError is terminal, everything else backs off.
   */
  readonly errorPolicy?: ErrorPolicy;
  /** Record a Warning event (reason `ReconcileError`) on the object when a reconcile fails terminally. */
  readonly terminalErrorEvents?: boolean;
  /**
   * A deadline for each reconcile (controller-runtime's `ReconciliationTimeout`): when it passes,
   * `ctx.signal` is aborted, and with it every API request of `ctx.client`; the reconcile counts as
   * failed with a ReconcileTimeoutError (whatever it returns), goes through the error policy (by
   * default: requeued with backoff) and is counted in `controller_runtime_reconcile_timeouts_total`.
   * The worker waits for the reconcile to return, so one key is never reconciled twice at once.
   * Default: none.
   */
  readonly reconcileTimeoutMs?: number;
  /**
   * Serve the queue by priority (controller-runtime's `UsePriorityQueue`, its default since 0.23):
   * events of an informer's initial list and of resyncs go in at LOW_PRIORITY, live changes at
   * NORMAL_PRIORITY, so after a restart a user's edit is reconciled before the backlog. `false`:
   * every item at one priority, first in first out. Default: true.
   */
  readonly usePriorityQueue?: boolean;
  /** The priority queue's aging rule (WorkQueueOptions.maxSkips). Default 10. */
  readonly maxSkips?: number;
}

/** A reconcile that ran past its controller's `reconcileTimeoutMs`. */
export class ReconcileTimeoutError extends Error {
  readonly timeoutMs: number;

  constructor(timeoutMs: number) {
    super(`the reconcile did not finish within ${timeoutMs} ms`);
    this.name = 'ReconcileTimeoutError';
    this.timeoutMs = timeoutMs;
  }
}

/**
 * Asked before every reconcile (sharding's "may I reconcile this key now"): `false` drops the key
 * (its new owner reconciles it); every `true` is paired with end(key) when the reconcile is over.
 */
export interface ReconcileGate {
  tryBegin(key: string): boolean;
  end(key: string): void;
}

export interface ControllerDeps<T> {
  readonly name: string;
  readonly kind: Kind<T>;
  readonly reconciler: Reconciler<T>;
  readonly client: ReconcileClient;
  readonly recorder: EventRecorder;
  readonly logger: Logger;
  readonly metrics: RuntimeMetrics;
  readonly options: ControllerOptions;
  readonly gate?: ReconcileGate;
  /**
   * The cache the reconciler reads: while it cannot reach the API server, reconciles that fail
   * because the server is unavailable wait for it to reconnect instead of taking rate-limiter tokens;
   * while it is out of date, reconciles that fail with a Conflict wait for it to catch up.
   */
  readonly cache?: CacheConnection;
  /** Time for the queue's delays and backoff (FakeClock in tests). */
  readonly clock?: Clock;
  /** The tracer of reconcile and API request spans. Default: the global provider's (tracing.ts). */
  readonly tracer?: Tracer;
}

/** What Controller.stop reports. */
export interface StopOutcome {
  /** Reconciles still running at the shutdown deadline, whose signal was aborted. */
  readonly aborted: number;
}

/** How long a parked key waits at most when the cache does not report reconnecting (or catching up). */
const PARKED_RETRY_MS = 5_000;

/**
 * Workers pulling keys from a rate-limited queue and calling the reconciler, as controller-runtime's
 * internal controller does: errors back off per key, a Conflict (stale cache) is an expected retry,
 * `requeueAfter` schedules, success forgets the key's failures.
 *
 * During an API server outage every reconcile fails at once; retried through the rate limiter, those
 * failures would drain its shared 10 qps bucket and push every retry tens of seconds past the
 * server's return. So a failure that says the server is unavailable (socket error, 5xx) while the
 * cache is disconnected parks its key instead; parked keys are queued again (without a token) when
 * the cache reconnects, or every few seconds while it stays disconnected, and the relist that
 * follows a watch gap queues every object anyway.
 *
 * Likewise a Conflict while the cache of the controller's kind, or of the kind the rejected write
 * was for, is not current (disconnected, or relisting after a watch gap): every retry would read the
 * same stale object and be refused again, so the key is parked until that cache is current again
 * (then queued once), or the same few seconds. A Conflict with a current cache is retried as before.
 */
export class Controller<T> {
  readonly name: string;
  readonly queue: WorkQueue<string>;
  private readonly deps: ControllerDeps<T>;
  private readonly abort = new AbortController();
  private workers: Promise<void>[] = [];
  private readonly labels: { controller: string };
  private inFlight = 0;
  private readonly parked = new Set<string>();
  /** Keys whose write met a Conflict while the cache was out of date, with the rejected write's path. */
  private readonly parkedOnConflict = new Map<
    string,
    { readonly path: string | undefined; readonly until: number }
  >();
  private parkTimer: TimerHandle | undefined;
  private conflictTimer: TimerHandle | undefined;
  private readonly clock: Clock;
  private unsubscribe: (() => void) | undefined;
  private unsubscribeInSync: (() => void) | undefined;
  private readonly tracer: Tracer;
  private readonly spanName: string;
  /** controller-runtime's per-controller log keys. */
  private readonly logKeys: { controller: string; controllerGroup: string; controllerKind: string };
  private readonly usePriority: boolean;
  /** This controller's per-reconcile series, bound once. */
  private readonly series: ControllerSeries;

  constructor(deps: ControllerDeps<T>) {
    this.deps = deps;
    this.name = deps.name;
    this.labels = { controller: deps.name };
    this.clock = deps.clock ?? realClock;
    this.tracer = deps.tracer ?? runtimeTracer();
    this.spanName = `reconcile ${deps.name}`;
    this.logKeys = {
      controller: deps.name,
      controllerGroup: deps.kind.group,
      controllerKind: deps.kind.kind,
    };
    this.usePriority = deps.options.usePriorityQueue ?? true;
    this.series = deps.metrics.controllerMetrics(deps.name);
    this.queue = new WorkQueue<string>({
      ...(deps.options.rateLimiter ? { rateLimiter: deps.options.rateLimiter } : {}),
      ...(deps.options.maxSkips !== undefined ? { maxSkips: deps.options.maxSkips } : {}),
      clock: this.clock,
      metrics: deps.metrics.queueMetrics(deps.name),
    });
  }

  /** Queues `key` at `priority` (LOW_PRIORITY for initial-list and resync events); default NORMAL_PRIORITY. */
  enqueue(key: string, priority: number = NORMAL_PRIORITY): void {
    this.queue.add(key, this.usePriority ? priority : NORMAL_PRIORITY);
  }

  /** Keys waiting for the cache to reconnect or catch up (see the class comment). */
  get parkedKeys(): number {
    return this.parked.size + this.parkedOnConflict.size;
  }

  start(): void {
    const n = Math.max(1, this.deps.options.maxConcurrentReconciles ?? 1);
    this.unsubscribe = this.deps.cache?.onConnected(() => this.unparkReconnected());
    this.unsubscribeInSync = this.deps.cache?.onInSync(() => this.unparkConflicts());
    this.workers = Array.from({ length: n }, () => this.work());
    this.deps.logger.info('starting workers', { controller: this.name, workers: n });
  }

  private park(key: string): void {
    this.parked.add(key);
    // A fallback for a cache that stays disconnected (or reconnects unnoticed): retry anyway.
    if (!this.parkTimer) {
      this.parkTimer = this.clock.setTimeout(() => {
        this.parkTimer = undefined;
        this.unparkReconnected();
      }, PARKED_RETRY_MS);
    }
  }

  /** The cache reaches the server again (or the fallback delay passed): outage-parked keys go back. */
  private unparkReconnected(): void {
    if (this.parkTimer) this.clock.clearTimeout(this.parkTimer);
    this.parkTimer = undefined;
    this.requeueParked([...this.parked], 'waited for the API server');
    this.parked.clear();
  }

  /**
   * Parks `key` after a Conflict until the caches concerned are current, or PARKED_RETRY_MS after
   * this park at the latest (its own deadline: a key parked just before another's deadline still
   * waits its full delay).
   */
  private parkOnConflict(key: string, path: string | undefined): void {
    this.parkedOnConflict.delete(key); // parked again: its deadline moves to the end
    this.parkedOnConflict.set(key, { path, until: this.clock.now() + PARKED_RETRY_MS });
    if (!this.conflictTimer) this.armConflictTimer();
  }

  /** A timer for the earliest deadline (the first entry: deadlines are in park order). */
  private armConflictTimer(): void {
    const first = this.parkedOnConflict.values().next();
    if (first.done) return;
    this.conflictTimer = this.clock.setTimeout(
      () => {
        this.conflictTimer = undefined;
        const now = this.clock.now();
        const due: string[] = [];
        for (const [key, parked] of this.parkedOnConflict) {
          if (parked.until > now) break;
          due.push(key);
        }
        for (const key of due) this.parkedOnConflict.delete(key);
        this.requeueParked(due, 'met a Conflict and waited for the cache');
        this.armConflictTimer();
      },
      Math.max(0, first.value.until - this.clock.now()),
    );
  }

  /** An informer is current again: the Conflict-parked keys whose caches are all current go back. */
  private unparkConflicts(): void {
    const cache = this.deps.cache;
    if (!cache || this.parkedOnConflict.size === 0) return;
    const ready: string[] = [];
    for (const [key, parked] of this.parkedOnConflict) {
      if (cache.inSync(this.deps.kind, parked.path)) ready.push(key);
    }
    for (const key of ready) this.parkedOnConflict.delete(key);
    this.requeueParked(ready, 'met a Conflict while the cache was out of date');
    if (this.parkedOnConflict.size === 0 && this.conflictTimer) {
      this.clock.clearTimeout(this.conflictTimer);
      this.conflictTimer = undefined;
    }
  }

  private requeueParked(keys: readonly string[], why: string): void {
    if (keys.length === 0) return;
    this.deps.logger.info(`requeueing reconciles that ${why}`, { controller: this.name, count: keys.length });
    for (const key of keys) this.queue.add(key);
  }

  /**
   * Stops intake, lets in-flight reconciles finish until the deadline, then aborts their signal and
   * gives them one more second. Leaves no timer behind, so the process can exit at once.
   */
  async stop(deadlineMs: number): Promise<StopOutcome> {
    this.unsubscribe?.();
    this.unsubscribeInSync?.();
    if (this.parkTimer) this.clock.clearTimeout(this.parkTimer);
    if (this.conflictTimer) this.clock.clearTimeout(this.conflictTimer);
    this.parked.clear();
    this.parkedOnConflict.clear();
    const drained = this.queue.shutDownWithDrain();
    const late = await raceTimeout(
      drained.then(() => false),
      deadlineMs,
      true,
    );
    let aborted = 0;
    if (late) {
      aborted = this.inFlight;
      this.deps.logger.warn('reconciles still running at the shutdown deadline; aborting them', {
        controller: this.name,
        aborted,
      });
      this.abort.abort();
    }
    await raceTimeout(
      Promise.all(this.workers).then(() => undefined),
      1000,
      undefined,
    );
    return { aborted };
  }

  private async work(): Promise<void> {
    for (;;) {
      const key = await this.queue.get();
      if (key === undefined || this.queue.isShuttingDown) {
        if (key !== undefined) this.queue.done(key);
        return;
      }
      const gate = this.deps.gate;
      if (gate && !gate.tryBegin(key)) {
        this.queue.forget(key);
        this.queue.done(key);
        continue;
      }
      this.series.activeWorkers.add(1);
      this.inFlight++;
      try {
        await this.process(key);
      } finally {
        this.inFlight--;
        this.series.activeWorkers.add(-1);
        this.queue.done(key);
        gate?.end(key);
      }
    }
  }

  private async process(key: string): Promise<void> {
    const req = requestOf(key);
    // A UUID as controller-runtime's reconcileID; randomUUID draws from a cached entropy pool, where
    // randomBytes per reconcile was 2% of the operator's CPU in the runtime bench.
    const reconcileId = randomUUID();
    // With no tracer provider registered this span is the API's non-recording no-op, and nothing
    // else below is done for tracing (docs/runtime.md has the measured cost).
    const span = this.tracer.startSpan(this.spanName);
    const traced = span.isRecording();
    const kind = this.deps.kind;
    if (traced)
      span.setAttributes({
        'controller.name': this.name,
        'controller.group': kind.group,
        'controller.kind': kind.kind,
        ...(req.namespace ? { 'k8s.namespace.name': req.namespace } : {}),
        'k8s.object.name': req.name,
        'reconcile.id': reconcileId,
      });
    const sc = traced ? span.spanContext() : undefined;
    const log = this.deps.logger.child({
      ...this.logKeys,
      [kind.kind]: req.namespace ? { name: req.name, namespace: req.namespace } : { name: req.name },
      ...(req.namespace ? { namespace: req.namespace } : {}),
      name: req.name,
      reconcileID: reconcileId,
      ...(sc ? { traceID: sc.traceId, spanID: sc.spanId } : {}),
    });
    const timeoutMs = this.deps.options.reconcileTimeoutMs;
    let deadline: AbortController | undefined;
    let deadlineTimer: TimerHandle | undefined;
    if (timeoutMs !== undefined && timeoutMs > 0) {
      const d = (deadline = new AbortController());
      const onShutdown = (): void => d.abort(this.abort.signal.reason);
      if (this.abort.signal.aborted) onShutdown();
      else this.abort.signal.addEventListener('abort', onShutdown, { once: true, signal: d.signal });
      deadlineTimer = this.clock.setTimeout(() => d.abort(new ReconcileTimeoutError(timeoutMs)), timeoutMs);
    }
    const signal = deadline ? deadline.signal : this.abort.signal;
    let client = deadline ? this.deps.client.withSignal(signal) : this.deps.client;
    let spanContext: Context | undefined;
    if (traced) {
      const parent = (spanContext = trace.setSpan(otelContext.active(), span));
      client = client.withTransport((t) => tracedTransport(t, this.tracer, parent));
    }
    const ctx: ReconcileContext<T> = {
      client,
      log,
      recorder: this.deps.recorder,
      signal,
      kind: this.deps.kind,
      controller: this.name,
      reconcileId,
      ...(traced ? { span } : {}),
    };
    const m = this.deps.metrics;
    const started = performance.now();
    let outcome: 'success' | 'error' | 'requeue' | 'requeue_after' = 'success';
    try {
      let result: Result | void;
      try {
        result = await (spanContext
          ? otelContext.with(spanContext, () => this.deps.reconciler.reconcile(ctx, req))
          : this.deps.reconciler.reconcile(ctx, req));
      } finally {
        if (deadlineTimer !== undefined) this.clock.clearTimeout(deadlineTimer);
      }
      // Past the deadline the reconcile failed, whatever it answered (its writes may be cut short).
      if (deadline?.signal.reason instanceof ReconcileTimeoutError) throw deadline.signal.reason;
      const priority = this.requeuePriority(key, result?.priority);
      if (result?.requeueAfter !== undefined && result.requeueAfter > 0) {
        outcome = 'requeue_after';
        if (traced) span.addEvent('requeue', { 'requeue.after_ms': result.requeueAfter });
        this.queue.forget(key);
        this.queue.addAfter(key, result.requeueAfter, priority);
      } else if (result?.requeue) {
        outcome = 'requeue';
        if (traced) span.addEvent('requeue', { 'requeue.rate_limited': true });
        this.queue.addRateLimited(key, priority);
      } else {
        this.queue.forget(key);
      }
    } catch (thrown) {
      outcome = 'error';
      m.reconcileErrors.inc(this.labels);
      // An error thrown because the deadline aborted a request is the timeout.
      const timedOut = deadline?.signal.reason instanceof ReconcileTimeoutError;
      const err: unknown = timedOut ? deadline!.signal.reason : thrown;
      if (timedOut) m.reconcileTimeouts.inc(this.labels);
      if (traced) recordFailure(span, err);
      const cache = this.deps.cache;
      if (isServerUnavailable(err) && cache && !cache.connected && !this.queue.isShuttingDown) {
        // An outage: retrying before the server is back only burns rate-limiter tokens.
        log.debug('API server unavailable; the reconcile waits for the cache to reconnect', { error: err });
        if (traced) span.addEvent('parked');
        this.park(key);
        return;
      }
      const path = isApiError(err) ? err.path : undefined;
      if (isConflict(err) && cache && !this.queue.isShuttingDown && !cache.inSync(this.deps.kind, path)) {
        // The write was based on a cached object the cache has not caught up on: a retry before it
        // does reads the same object and is refused again.
        log.debug('conflict while the cache is out of date; the reconcile waits for it to catch up', {
          error: err,
        });
        if (traced) span.addEvent('parked');
        this.parkOnConflict(key, path);
        return;
      }
      this.onError(err, key, req, log, traced ? span : undefined);
    } finally {
      deadline?.abort();
      this.series.reconcileTotal(outcome).inc();
      this.series.reconcileTime.observe((performance.now() - started) / 1000);
      if (traced) {
        span.setAttribute('reconcile.result', outcome);
        span.end();
      }
    }
  }

  /** A failed reconcile: the error policy says backoff, terminal or requeue-after. */
  private onError(err: unknown, key: string, req: Request, log: Logger, span?: Span): void {
    const action = decide(this.deps.options.errorPolicy, err, req, log);
    if (action === 'terminal') {
      span?.addEvent('terminal');
      this.deps.metrics.terminalReconcileErrors.inc(this.labels);
      log.error('reconcile failed terminally; not requeued', { error: err });
      this.queue.forget(key);
      if (this.deps.options.terminalErrorEvents) void this.recordTerminal(req, err, log);
      return;
    }
    if (isConflict(err)) {
      // The cache was behind the server: expected; retry with a fresh read after backoff.
      log.debug('conflict writing a stale object; requeueing', { error: err });
    } else {
      log.error('reconcile failed', { error: err, retries: this.queue.numRequeues(key) });
    }
    if (this.queue.isShuttingDown) return;
    const priority = this.requeuePriority(key, undefined);
    if (action === 'backoff') {
      span?.addEvent('requeue', { 'requeue.rate_limited': true, 'requeue.error': true });
      this.queue.addRateLimited(key, priority);
    } else {
      span?.addEvent('requeue', { 'requeue.after_ms': action.requeueAfter, 'requeue.error': true });
      this.queue.forget(key);
      this.queue.addAfter(key, action.requeueAfter, priority);
    }
  }

  /** A requeue's priority: the result's, else the one the key was handed out at (one level without the priority queue). */
  private requeuePriority(key: string, asked: number | undefined): number {
    if (!this.usePriority) return NORMAL_PRIORITY;
    return asked ?? this.queue.priorityOf(key) ?? NORMAL_PRIORITY;
  }

  private async recordTerminal(req: Request, err: unknown, log: Logger): Promise<void> {
    try {
      const obj = await this.deps.client.get(this.deps.kind as Kind<ObjectLike>, req);
      if (obj)
        this.deps.recorder.event(
          obj,
          'Warning',
          'ReconcileError',
          err instanceof Error ? err.message : String(err),
        );
    } catch (eventErr) {
      log.debug('could not record the terminal error as an event', { error: eventErr });
    }
  }
}

/** The error policy's answer, or the default one when it has none (or throws). */
function decide(policy: ErrorPolicy | undefined, err: unknown, req: Request, log: Logger): ErrorAction {
  if (policy) {
    try {
      const action = policy(err, req);
      if (action !== undefined) return action;
    } catch (policyErr) {
      log.error('the error policy threw; using the default', { error: policyErr });
    }
  }
  return defaultErrorAction(err);
}

/** `promise`'s value, or `onTimeout` after `ms`; the timer is cleared either way. */
async function raceTimeout<V>(promise: Promise<V>, ms: number, onTimeout: V): Promise<V> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timedOut = new Promise<V>((resolve) => {
    timer = setTimeout(() => resolve(onTimeout), ms);
  });
  try {
    return await Promise.race([promise, timedOut]);
  } finally {
    clearTimeout(timer);
  }
}
