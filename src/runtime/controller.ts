import { randomBytes } from 'node:crypto';
import { isConflict } from '../client/api-error.ts';
import type { Kind } from '../client/kind.ts';
import type { EventRecorder } from './events.ts';
import type { Logger } from './logger.ts';
import type { RuntimeMetrics } from './metrics.ts';
import { requestOf, type Request } from './object-key.ts';
import type { RateLimiter } from './rate-limiter.ts';
import type { ReconcileClient } from './reconcile-client.ts';
import { WorkQueue } from './workqueue.ts';

/** What a reconcile asks for next. Returning nothing means done: forget the item's failures. */
export interface Result {
  /** Requeue with the rate limiter's backoff. */
  readonly requeue?: boolean;
  /** Requeue after this many milliseconds (e.g. to poll something outside the cluster). */
  readonly requeueAfter?: number;
}

export interface ReconcileContext<T> {
  /** Reads from the cache, writes to the API. */
  readonly client: ReconcileClient;
  /** Logger carrying controller, namespace, name and reconcileId. */
  readonly log: Logger;
  readonly recorder: EventRecorder;
  /** Aborted when the manager shuts down past its grace period. */
  readonly signal: AbortSignal;
  /** The kind this controller reconciles. */
  readonly kind: Kind<T>;
  readonly controller: string;
  readonly reconcileId: string;
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
}

/**
 * Workers pulling keys from a rate-limited queue and calling the reconciler, as controller-runtime's
 * internal controller does: errors back off per key, a Conflict (stale cache) is an expected retry,
 * `requeueAfter` schedules, success forgets the key's failures.
 */
export class Controller<T> {
  readonly name: string;
  readonly queue: WorkQueue<string>;
  private readonly deps: ControllerDeps<T>;
  private readonly abort = new AbortController();
  private workers: Promise<void>[] = [];
  private readonly labels: { controller: string };

  constructor(deps: ControllerDeps<T>) {
    this.deps = deps;
    this.name = deps.name;
    this.labels = { controller: deps.name };
    const m = deps.metrics;
    const q = { name: deps.name };
    this.queue = new WorkQueue<string>({
      ...(deps.options.rateLimiter ? { rateLimiter: deps.options.rateLimiter } : {}),
      metrics: {
        depth: (n) => m.workqueueDepth.set(q, n),
        add: () => m.workqueueAdds.inc(q),
        latency: (s) => m.workqueueLatency.observe(q, s),
        workDuration: (s) => m.workqueueWorkDuration.observe(q, s),
        retry: () => m.workqueueRetries.inc(q),
      },
    });
  }

  enqueue(key: string): void {
    this.queue.add(key);
  }

  start(): void {
    const n = Math.max(1, this.deps.options.maxConcurrentReconciles ?? 1);
    this.workers = Array.from({ length: n }, () => this.work());
    this.deps.logger.info('starting workers', { controller: this.name, workers: n });
  }

  /** Stops intake, lets in-flight reconciles finish until the deadline, then aborts their signal. */
  async stop(deadlineMs: number): Promise<void> {
    const drained = this.queue.shutDownWithDrain();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timedOut = new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(true), deadlineMs);
    });
    const late = await Promise.race([drained.then(() => false), timedOut]);
    clearTimeout(timer);
    if (late) {
      this.deps.logger.warn('reconciles still running at the shutdown deadline; aborting them', {
        controller: this.name,
      });
      this.abort.abort();
    }
    await Promise.race([Promise.all(this.workers), new Promise((r) => setTimeout(r, 1000))]);
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
      this.deps.metrics.activeWorkers.add(this.labels, 1);
      try {
        await this.process(key);
      } finally {
        this.deps.metrics.activeWorkers.add(this.labels, -1);
        this.queue.done(key);
        gate?.end(key);
      }
    }
  }

  private async process(key: string): Promise<void> {
    const req = requestOf(key);
    const reconcileId = randomBytes(6).toString('hex');
    const log = this.deps.logger.child({
      controller: this.name,
      ...(req.namespace ? { namespace: req.namespace } : {}),
      name: req.name,
      reconcileId,
    });
    const ctx: ReconcileContext<T> = {
      client: this.deps.client,
      log,
      recorder: this.deps.recorder,
      signal: this.abort.signal,
      kind: this.deps.kind,
      controller: this.name,
      reconcileId,
    };
    const m = this.deps.metrics;
    const started = performance.now();
    let outcome: 'success' | 'error' | 'requeue' | 'requeue_after' = 'success';
    try {
      const result = await this.deps.reconciler.reconcile(ctx, req);
      if (result?.requeueAfter !== undefined && result.requeueAfter > 0) {
        outcome = 'requeue_after';
        this.queue.forget(key);
        this.queue.addAfter(key, result.requeueAfter);
      } else if (result?.requeue) {
        outcome = 'requeue';
        this.queue.addRateLimited(key);
      } else {
        this.queue.forget(key);
      }
    } catch (err) {
      outcome = 'error';
      m.reconcileErrors.inc(this.labels);
      if (isConflict(err)) {
        // The cache was behind the server: expected; retry with a fresh read after backoff.
        log.debug('conflict writing a stale object; requeueing', { error: err });
      } else {
        log.error('reconcile failed', { error: err, retries: this.queue.numRequeues(key) });
      }
      if (!this.queue.isShuttingDown) this.queue.addRateLimited(key);
    } finally {
      m.reconcileTotal.inc({ ...this.labels, result: outcome });
      m.reconcileTime.observe(this.labels, (performance.now() - started) / 1000);
    }
  }
}
