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
}
