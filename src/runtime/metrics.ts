/**
 * A small Prometheus registry: counters, gauges and histograms with labels, rendered in the text
 * exposition format (version 0.0.4). Enough for the runtime's own metrics without a dependency.
 */
type Labels = Readonly<Record<string, string>>;

/** Rendered keys of frozen label sets (callers on hot paths reuse one frozen object per series). */
const frozenKeys = new WeakMap<Labels, string>();

function labelKey(labels: Labels): string {
  if (Object.isFrozen(labels)) {
    let key = frozenKeys.get(labels);
    if (key === undefined) {
      key = renderLabels(labels);
      frozenKeys.set(labels, key);
    }
    return key;
  }
  return renderLabels(labels);
}

function renderLabels(labels: Labels): string {
  return Object.keys(labels)
    .sort()
    .map(
      (k) => `${k}="${String(labels[k]).replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n')}"`,
    )
    .join(',');
}

function fmt(v: number): string {
  if (v === Infinity) return '+Inf';
  return Number.isInteger(v) ? String(v) : String(Number(v.toPrecision(15)));
}

interface Metric {
  readonly name: string;
  render(): string;
}

/** A value per label set, rendered as one Prometheus type: what counters and gauges share. */
abstract class LabeledValues implements Metric {
  readonly name: string;
  private readonly help: string;
  private readonly type: 'counter' | 'gauge';
  protected readonly values = new Map<string, number>();
  constructor(name: string, help: string, type: 'counter' | 'gauge') {
    this.name = name;
    this.help = help;
    this.type = type;
  }
  protected addTo(labels: Labels, by: number): void {
    const k = labelKey(labels);
    this.values.set(k, (this.values.get(k) ?? 0) + by);
  }
  get(labels: Labels = {}): number {
    return this.values.get(labelKey(labels)) ?? 0;
  }
  render(): string {
    const lines = [`# HELP ${this.name} ${this.help}`, `# TYPE ${this.name} ${this.type}`];
    for (const [k, v] of this.values) lines.push(`${this.name}${k ? `{${k}}` : ''} ${fmt(v)}`);
    return lines.join('\n');
  }
}

export class Counter extends LabeledValues {
  constructor(name: string, help: string) {
    super(name, help, 'counter');
  }
  inc(labels: Labels = {}, by = 1): void {
    this.addTo(labels, by);
  }
}

export class Gauge extends LabeledValues {
  constructor(name: string, help: string) {
    super(name, help, 'gauge');
  }
  set(labels: Labels, value: number): void {
    this.values.set(labelKey(labels), value);
  }
  add(labels: Labels, by: number): void {
    this.addTo(labels, by);
  }
}

export class Histogram implements Metric {
  readonly name: string;
  private readonly help: string;
  private readonly buckets: readonly number[];
  private readonly series = new Map<string, { counts: number[]; sum: number; count: number }>();
  constructor(name: string, help: string, buckets: readonly number[]) {
    this.name = name;
    this.help = help;
    this.buckets = [...buckets].sort((a, b) => a - b);
  }
  observe(labels: Labels, value: number): void {
    const k = labelKey(labels);
    let s = this.series.get(k);
    if (!s) {
      s = { counts: this.buckets.map(() => 0), sum: 0, count: 0 };
      this.series.set(k, s);
    }
    for (let i = 0; i < this.buckets.length; i++) if (value <= this.buckets[i]!) s.counts[i]!++;
    s.sum += value;
    s.count++;
  }
  count(labels: Labels = {}): number {
    return this.series.get(labelKey(labels))?.count ?? 0;
  }
  render(): string {
    const lines = [`# HELP ${this.name} ${this.help}`, `# TYPE ${this.name} histogram`];
    for (const [k, s] of this.series) {
      const sep = k ? `${k},` : '';
      this.buckets.forEach((b, i) => lines.push(`${this.name}_bucket{${sep}le="${fmt(b)}"} ${s.counts[i]}`));
      lines.push(`${this.name}_bucket{${sep}le="+Inf"} ${s.count}`);
      lines.push(`${this.name}_sum${k ? `{${k}}` : ''} ${fmt(s.sum)}`);
      lines.push(`${this.name}_count${k ? `{${k}}` : ''} ${s.count}`);
    }
    return lines.join('\n');
  }
}

/** Exponential buckets: start, start·factor, ... (count of them). */
export function exponentialBuckets(start: number, factor: number, count: number): number[] {
  return Array.from({ length: count }, (_, i) => start * factor ** i);
}

export class Registry {
  private readonly metrics = new Map<string, Metric>();

  private register<M extends Metric>(metric: M): M {
    const existing = this.metrics.get(metric.name);
    if (existing) return existing as M;
    this.metrics.set(metric.name, metric);
    return metric;
  }
  counter(name: string, help: string): Counter {
    return this.register(new Counter(name, help));
  }
  gauge(name: string, help: string): Gauge {
    return this.register(new Gauge(name, help));
  }
  histogram(name: string, help: string, buckets: readonly number[]): Histogram {
    return this.register(new Histogram(name, help, buckets));
  }
  /** The text exposition of every metric. */
  render(): string {
    return `${[...this.metrics.values()].map((m) => m.render()).join('\n')}\n`;
  }
}

const DURATION_BUCKETS = exponentialBuckets(0.005, 2, 14);

/** The runtime's metrics, named like controller-runtime's so dashboards carry over. */
export class RuntimeMetrics {
  readonly registry: Registry;
  readonly reconcileTotal: Counter;
  readonly reconcileErrors: Counter;
  readonly terminalReconcileErrors: Counter;
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
    );
    this.reconcileErrors = registry.counter(
      'controller_runtime_reconcile_errors_total',
      'Total number of reconciliation errors per controller',
    );
    this.terminalReconcileErrors = registry.counter(
      'controller_runtime_terminal_reconcile_errors_total',
      'Total number of terminal reconciliation errors per controller',
    );
    this.reconcileTime = registry.histogram(
      'controller_runtime_reconcile_time_seconds',
      'Length of time per reconciliation per controller',
      DURATION_BUCKETS,
    );
    this.workqueueDepth = registry.gauge('workqueue_depth', 'Current depth of workqueue');
    this.workqueueAdds = registry.counter(
      'workqueue_adds_total',
      'Total number of adds handled by workqueue',
    );
    this.workqueueLatency = registry.histogram(
      'workqueue_queue_duration_seconds',
      'How long in seconds an item stays in workqueue before being requested',
      DURATION_BUCKETS,
    );
    this.workqueueWorkDuration = registry.histogram(
      'workqueue_work_duration_seconds',
      'How long in seconds processing an item from workqueue takes',
      DURATION_BUCKETS,
    );
    this.workqueueRetries = registry.counter(
      'workqueue_retries_total',
      'Total number of retries handled by workqueue',
    );
    this.activeWorkers = registry.gauge(
      'controller_runtime_active_workers',
      'Number of currently used workers per controller',
    );
    this.leader = registry.gauge(
      'leader_election_master_status',
      'Gauge of if the reporting system is master of the relevant lease, 0 indicates backup, 1 indicates master',
    );
  }
}
