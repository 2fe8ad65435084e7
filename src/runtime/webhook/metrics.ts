import type { Counter, Gauge, Histogram } from '../metrics.ts';
import { Registry } from '../metrics.ts';

/** Prometheus's default buckets, which controller-runtime's webhook latency histogram uses. */
const DEFAULT_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** The webhook server's metrics, with controller-runtime's names and labels (`webhook` is the path). */
export class WebhookMetrics {
  readonly requests: Counter;
  readonly latency: Histogram;
  readonly inFlight: Gauge;

  constructor(registry: Registry = new Registry()) {
    this.requests = registry.counter(
      'controller_runtime_webhook_requests_total',
      'Total number of admission requests by HTTP status code.',
      ['webhook', 'code'],
    );
    this.latency = registry.histogram(
      'controller_runtime_webhook_latency_seconds',
      'Histogram of the latency of processing admission requests',
      DEFAULT_BUCKETS,
      ['webhook'],
    );
    this.inFlight = registry.gauge(
      'controller_runtime_webhook_requests_in_flight',
      'Current number of admission requests being served.',
      ['webhook'],
    );
  }
}
