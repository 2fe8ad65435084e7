/**
 * The runtime's Prometheus metrics, on prom-client: `Registry` is prom-client's registry (users add
 * their own metrics to it with prom-client, e.g. `new Counter({ ..., registers: [mgr.metrics.registry] })`)
 * with get-or-create helpers for the runtime's own series.
 */
import {
  collectDefaultMetrics,
  Counter,
  Gauge,
  Histogram,
  Registry as PromRegistry,
  exponentialBuckets,
  type LabelValues,
} from 'prom-client';
import type { QueueMetrics } from './workqueue.ts';

export { Counter, Gauge, Histogram, exponentialBuckets };

/** prom-client's Registry, with the get-or-create helpers the runtime registers its metrics through. */
export class Registry extends PromRegistry {
  private existing<M>(name: string, type: new (...args: never[]) => M): M | undefined {
    const found = this.getSingleMetric(name);
    if (found === undefined) return undefined;
    if (!(found instanceof type)) throw new Error(`metric ${name} is registered as another type`);
    return found;
  }

  /** The counter `name`, registered on first use. */
  counter(name: string, help: string, labelNames: readonly string[] = []): Counter {
    return (
      this.existing(name, Counter) ??
      new Counter({ name, help, labelNames: [...labelNames], registers: [this] })
    );
  }

  gauge(name: string, help: string, labelNames: readonly string[] = []): Gauge {
    return (
      this.existing(name, Gauge) ?? new Gauge({ name, help, labelNames: [...labelNames], registers: [this] })
    );
  }

  histogram(
    name: string,
    help: string,
    buckets: readonly number[],
    labelNames: readonly string[] = [],
  ): Histogram {
    return (
      this.existing(name, Histogram) ??
      new Histogram({ name, help, buckets: [...buckets], labelNames: [...labelNames], registers: [this] })
    );
  }

  /** The text exposition of every metric (Prometheus 0.0.4). */
  render(): Promise<string> {
    return this.metrics();
  }

  /**
   * Adds prom-client's process and Node.js metrics: CPU, resident memory, open file descriptors,
   * heap and GC, and event-loop lag (`nodejs_eventloop_lag_seconds` and its percentiles), which
   * matters for a single-threaded controller.
   */
  collectDefaults(): void {
    if (this.getSingleMetric('nodejs_eventloop_lag_seconds')) return;
    collectDefaultMetrics({ register: this, eventLoopMonitoringPrecision: 10 });
  }
}

/** The value of one series of a counter or gauge (0 when absent), or a histogram's count. */
export async function metricValue(
  metric: Counter | Gauge | Histogram,
  labels: LabelValues<string> = {},
): Promise<number> {
  const { values } = await metric.get();
  const wanted = Object.entries(labels);
  const match = values.find(
    (v) =>
      (metric instanceof Histogram ? (v as { metricName?: string }).metricName?.endsWith('_count') : true) &&
      wanted.every(([k, val]) => String(v.labels[k]) === String(val)) &&
      Object.keys(v.labels).filter((k) => k !== 'le').length === wanted.length,
  );
  return match?.value ?? 0;
}

/** One label set's series of a counter (e.g. `workqueue_adds_total{name="x"}`), bound once. */
export interface BoundCounter {
  readonly inc: () => void;
}

/** One label set's series of a gauge, bound once. */
export interface BoundGauge {
  readonly set: (value: number) => void;
  readonly add: (delta: number) => void;
}

/** One label set's series of a histogram, bound once. */
export interface BoundHistogram {
  readonly observe: (value: number) => void;
}

/** A controller's per-reconcile series (RuntimeMetrics.controllerMetrics). */
export interface ControllerSeries {
  readonly activeWorkers: BoundGauge;
  readonly reconcileTime: BoundHistogram;
  /** `controller_runtime_reconcile_total{controller, result}`. */
  readonly reconcileTotal: (result: string) => BoundCounter;
}

/** prom-client 15's series record: counters and gauges `{ value, labels }`, histograms `{ sum, count, bucketValues }`. */
interface Series {
  value: number;
  sum: number;
  count: number;
  bucketValues: Record<string, number>;
  labels: Record<string, string | number>;
}

/**
 * A series of `metric` for fixed `labels`, updated without prom-client's per-call work: its label
 * hashing (a string built from the labels), validation and lookup, which were about a third of a
 * queue add's CPU with V8's optimiser off (docs/performance.md). prom-client 15 keeps a metric's
 * series in a plain object of records (`hashMap`) and re-reads them at every scrape; `labels()`
 * children still hash per call. So the first update goes through prom-client's public API (it
 * validates, creates the series at its place in the output), the record it made is found once, and
 * later updates write that record as prom-client itself would (same additions in the same order, so
 * the exposition is identical, sums included). Before each write the record is checked to still be
 * the metric's (a `reset()`, `remove()` or another writer's `set()` replaces it): if not, that
 * update goes through the public API again and the new record is bound. When the records do not
 * look like prom-client 15's (another version), every update uses the public API.
 */
class Bound {
  private readonly metric: { hashMap?: Record<string, Series> };
  private readonly labels: Record<string, string>;
  private hash: string | undefined;
  private series: Series | undefined;
  private readonly check: (s: Series) => boolean;

  constructor(metric: object, labels: Record<string, string>, check: (s: Series) => boolean) {
    this.metric = metric as { hashMap?: Record<string, Series> };
    this.labels = labels;
    this.check = check;
  }

  /** The bound record if it is still the metric's, else undefined. */
  current(): Series | undefined {
    const series = this.series;
    if (series === undefined) return undefined;
    const map = this.metric.hashMap;
    return map !== undefined && map[this.hash as string] === series ? series : undefined;
  }

  /** After a public-API update: finds the record of our labels (undefined when it looks foreign). */
  rebind(): void {
    this.series = undefined;
    const map = this.metric.hashMap;
    if (typeof map !== 'object' || map === null) return;
    const names = Object.keys(this.labels);
    for (const [hash, series] of Object.entries(map)) {
      const got = series?.labels;
      if (
        typeof got === 'object' &&
        got !== null &&
        Object.keys(got).length === names.length &&
        names.every((n) => String(got[n]) === this.labels[n])
      ) {
        if (this.check(series)) {
          this.hash = hash;
          this.series = series;
        }
        return;
      }
    }
  }
}

const isCounting = (s: Series): boolean => typeof s.value === 'number';

/** `counter`'s series for `labels` (see Bound). */
export function bindCounter(counter: Counter, labels: Record<string, string>): BoundCounter {
  const b = new Bound(counter, labels, isCounting);
  return {
    inc(): void {
      const s = b.current();
      if (s !== undefined) s.value += 1;
      else {
        counter.inc(labels);
        b.rebind();
      }
    },
  };
}

/** `gauge`'s series for `labels` (see Bound). */
export function bindGauge(gauge: Gauge, labels: Record<string, string>): BoundGauge {
  const b = new Bound(gauge, labels, isCounting);
  return {
    set(value: number): void {
      const s = b.current();
      if (s !== undefined && typeof value === 'number') s.value = value;
      else {
        gauge.set(labels, value);
        b.rebind();
      }
    },
    add(delta: number): void {
      const s = b.current();
      if (s !== undefined && typeof delta === 'number') s.value += delta;
      else {
        gauge.inc(labels, delta);
        b.rebind();
      }
    },
  };
}

/** `histogram`'s series for `labels` (see Bound); `buckets` are the histogram's upper bounds. */
export function bindHistogram(
  histogram: Histogram,
  labels: Record<string, string>,
  buckets: readonly number[],
): BoundHistogram {
  const bounds = [...buckets]; // in prom-client's order: the first bound the value fits under counts it
  // prom-client keys a series' bucket counts by the bound as a property name (String(bound)).
  const keys = bounds.map(String);
  const b = new Bound(
    histogram,
    labels,
    (s) =>
      typeof s.sum === 'number' &&
      typeof s.count === 'number' &&
      typeof s.bucketValues === 'object' &&
      s.bucketValues !== null &&
      keys.every((k) => typeof s.bucketValues[k] === 'number') &&
      Object.keys(s.bucketValues).length === keys.length,
  );
  return {
    observe(value: number): void {
      const s = b.current();
      if (s === undefined || !Number.isFinite(value)) {
        // prom-client validates (and throws on a non-finite value) and creates the series.
        histogram.observe(labels, value);
        b.rebind();
        return;
      }
      s.sum += value;
      s.count += 1;
      for (let i = 0; i < bounds.length; i++) {
        if (value <= (bounds[i] as number)) {
          s.bucketValues[keys[i] as string]! += 1;
          return;
        }
      }
    },
  };
}

const DURATION_BUCKETS = exponentialBuckets(0.005, 2, 14);
const CONTROLLER = ['controller'] as const;
const QUEUE = ['name'] as const;

/** The runtime's metrics, named like controller-runtime's so dashboards carry over. */
export class RuntimeMetrics {
  readonly registry: Registry;
  readonly reconcileTotal: Counter;
  readonly reconcileErrors: Counter;
  readonly terminalReconcileErrors: Counter;
  readonly reconcileTimeouts: Counter;
  readonly reconcileTime: Histogram;
  readonly workqueueDepth: Gauge;
  readonly workqueueAdds: Counter;
  readonly workqueueLatency: Histogram;
  readonly workqueueWorkDuration: Histogram;
  readonly workqueueRetries: Counter;
  readonly activeWorkers: Gauge;
  readonly leader: Gauge;
  /** The bucket bounds of the duration histograms. */
  private readonly buckets: readonly number[] = DURATION_BUCKETS;

  constructor(registry = new Registry()) {
    this.registry = registry;
    this.reconcileTotal = registry.counter(
      'controller_runtime_reconcile_total',
      'Total number of reconciliations per controller',
      ['controller', 'result'],
    );
    this.reconcileErrors = registry.counter(
      'controller_runtime_reconcile_errors_total',
      'Total number of reconciliation errors per controller',
      CONTROLLER,
    );
    this.terminalReconcileErrors = registry.counter(
      'controller_runtime_terminal_reconcile_errors_total',
      'Total number of terminal reconciliation errors per controller',
      CONTROLLER,
    );
    this.reconcileTimeouts = registry.counter(
      'controller_runtime_reconcile_timeouts_total',
      'Total number of reconciliations that ran past the reconcile timeout per controller',
      CONTROLLER,
    );
    this.reconcileTime = registry.histogram(
      'controller_runtime_reconcile_time_seconds',
      'Length of time per reconciliation per controller',
      DURATION_BUCKETS,
      CONTROLLER,
    );
    this.workqueueDepth = registry.gauge('workqueue_depth', 'Current depth of workqueue', QUEUE);
    this.workqueueAdds = registry.counter(
      'workqueue_adds_total',
      'Total number of adds handled by workqueue',
      QUEUE,
    );
    this.workqueueLatency = registry.histogram(
      'workqueue_queue_duration_seconds',
      'How long in seconds an item stays in workqueue before being requested',
      DURATION_BUCKETS,
      QUEUE,
    );
    this.workqueueWorkDuration = registry.histogram(
      'workqueue_work_duration_seconds',
      'How long in seconds processing an item from workqueue takes',
      DURATION_BUCKETS,
      QUEUE,
    );
    this.workqueueRetries = registry.counter(
      'workqueue_retries_total',
      'Total number of retries handled by workqueue',
      QUEUE,
    );
    this.activeWorkers = registry.gauge(
      'controller_runtime_active_workers',
      'Number of currently used workers per controller',
      CONTROLLER,
    );
    this.leader = registry.gauge(
      'leader_election_master_status',
      'Gauge of if the reporting system is master of the relevant lease, 0 indicates backup, 1 indicates master',
      ['name'],
    );
  }

  /**
   * The per-reconcile series of controller `name` (label `controller`), bound once (see bindCounter):
   * `controller_runtime_active_workers`, `..._reconcile_time_seconds` and `..._reconcile_total` by
   * result (each result's series bound at its first use, so the output order stays the first-use order).
   */
  controllerMetrics(name: string): ControllerSeries {
    const labels = { controller: name };
    const totals = new Map<string, BoundCounter>();
    return {
      activeWorkers: bindGauge(this.activeWorkers, labels),
      reconcileTime: bindHistogram(this.reconcileTime, labels, this.buckets),
      reconcileTotal: (result) => {
        let c = totals.get(result);
        if (c === undefined)
          totals.set(result, (c = bindCounter(this.reconcileTotal, { ...labels, result })));
        return c;
      },
    };
  }

  /**
   * The series of work queue `name` (controller-runtime's workqueue metrics, label `name`), each
   * bound once: what a controller hands its queue, so no add hashes labels (see bindCounter).
   */
  queueMetrics(name: string): QueueMetrics {
    const labels = { name };
    const depth = bindGauge(this.workqueueDepth, labels);
    const adds = bindCounter(this.workqueueAdds, labels);
    const latency = bindHistogram(this.workqueueLatency, labels, this.buckets);
    const work = bindHistogram(this.workqueueWorkDuration, labels, this.buckets);
    const retries = bindCounter(this.workqueueRetries, labels);
    return {
      depth: depth.set,
      add: adds.inc,
      latency: latency.observe,
      workDuration: work.observe,
      retry: retries.inc,
    };
  }
}
