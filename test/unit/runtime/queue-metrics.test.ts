import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FakeClock } from '../../../src/runtime/clock.ts';
import {
  bindCounter,
  bindGauge,
  bindHistogram,
  exponentialBuckets,
  Histogram,
  Registry,
  RuntimeMetrics,
} from '../../../src/runtime/metrics.ts';
import { ItemExponentialFailureRateLimiter } from '../../../src/runtime/rate-limiter.ts';
import { LOW_PRIORITY, WorkQueue, type QueueMetrics } from '../../../src/runtime/workqueue.ts';

/**
 * The queue's metrics are bound once per queue (RuntimeMetrics.queueMetrics) and written without
 * prom-client's per-call label hashing. What /metrics shows must be what prom-client's own calls
 * (the controller's wiring before) show for the same operations: names, labels, values, sums to the
 * last digit, the order of the series; also across a registry reset and another writer's set().
 */
function publicApi(m: RuntimeMetrics, name: string): QueueMetrics {
  const q = { name };
  return {
    depth: (n) => m.workqueueDepth.set(q, n),
    add: () => m.workqueueAdds.inc(q),
    latency: (s) => m.workqueueLatency.observe(q, s),
    workDuration: (s) => m.workqueueWorkDuration.observe(q, s),
    retry: () => m.workqueueRetries.inc(q),
  };
}

/** A fixed sequence of operations on two queues; returns the exposition at each checkpoint. */
async function script(wire: (m: RuntimeMetrics, name: string) => QueueMetrics): Promise<string[]> {
  const m = new RuntimeMetrics(new Registry());
  const clock = new FakeClock(1_700_000_000_000);
  const queue = (name: string): WorkQueue<string> =>
    new WorkQueue<string>({
      clock,
      metrics: wire(m, name),
      rateLimiter: new ItemExponentialFailureRateLimiter(5, 1000),
    });
  // beta's series come first: they must stay first.
  const beta = queue('beta');
  const alpha = queue('alpha');
  const out: string[] = [];
  const scrape = async (): Promise<void> => void out.push(await m.registry.render());
  const cycle = async (q: WorkQueue<string>, stepMs: number): Promise<void> => {
    const item = (await q.get()) as string;
    clock.step(stepMs);
    q.done(item);
  };

  beta.add('x', LOW_PRIORITY);
  for (let i = 0; i < 50; i++) alpha.add(`ns/obj-${i}`, i % 3 === 0 ? LOW_PRIORITY : 0);
  alpha.add('ns/obj-3', 10); // raised: an add, no depth change
  await scrape();
  // Durations that do not add up exactly in binary (0.1 ms = 0.0001 s), and above the last bucket.
  for (let i = 0; i < 20; i++) {
    clock.step(0.1);
    await cycle(alpha, 0.3);
  }
  clock.step(100_000);
  await cycle(alpha, 45_000);
  await cycle(beta, 7);
  alpha.addRateLimited('ns/obj-1');
  beta.addRateLimited('y');
  clock.step(5);
  await scrape();
  // A registry reset (prom-client drops every series) and another writer's value.
  m.registry.resetMetrics();
  m.workqueueDepth.set({ name: 'alpha' }, 42);
  await scrape();
  alpha.add('late');
  await cycle(alpha, 2.5);
  beta.add('late');
  await cycle(beta, 0.01);
  await scrape();
  m.workqueueAdds.remove({ name: 'beta' });
  beta.add('again');
  await cycle(beta, 1);
  await scrape();
  return out;
}

describe('work queue metrics', () => {
  it('show what prom-client’s own calls show for the same operations', async () => {
    const bound = await script((m, name) => m.queueMetrics(name));
    const plain = await script(publicApi);
    assert.equal(bound.length, 5);
    for (let i = 0; i < bound.length; i++) assert.equal(bound[i], plain[i], `scrape ${i + 1}`);
    // The checkpoints saw the interesting values (not five empty pages).
    assert.match(bound[1]!, /workqueue_queue_duration_seconds_bucket\{le="\+Inf",name="alpha"\} 21/);
    assert.match(bound[1]!, /workqueue_work_duration_seconds_sum\{name="alpha"\} 45\.00600\d+\n/);
    assert.match(bound[2]!, /workqueue_depth\{name="alpha"\} 42/);
    assert.match(bound[4]!, /workqueue_adds_total\{name="beta"\} 1\n/);
  });

  it('a controller’s per-reconcile series show what prom-client’s own calls show', async () => {
    const bound = new RuntimeMetrics(new Registry());
    const plain = new RuntimeMetrics(new Registry());
    const b = { x: bound.controllerMetrics('x'), y: bound.controllerMetrics('y') };
    const results = ['success', 'error', 'success', 'requeue_after', 'requeue', 'success'];
    for (let i = 0; i < results.length; i++) {
      for (const name of ['y', 'x'] as const) {
        const took = 0.0007 * (i + 1) ** 3;
        b[name].activeWorkers.add(1);
        plain.activeWorkers.inc({ controller: name });
        b[name].activeWorkers.add(-1);
        plain.activeWorkers.dec({ controller: name });
        b[name].reconcileTotal(results[i]!).inc();
        plain.reconcileTotal.inc({ controller: name, result: results[i]! });
        b[name].reconcileTime.observe(took);
        plain.reconcileTime.observe({ controller: name }, took);
      }
      if (i === 3) {
        bound.registry.resetMetrics();
        plain.registry.resetMetrics();
      }
    }
    b.x.activeWorkers.add(1);
    plain.activeWorkers.inc({ controller: 'x' });
    const text = await bound.registry.render();
    assert.equal(text, await plain.registry.render());
    assert.match(text, /controller_runtime_reconcile_total\{controller="y",result="success"\} 1\n/);
    assert.match(text, /controller_runtime_active_workers\{controller="x"\} 1\n/);
    assert.match(text, /controller_runtime_reconcile_time_seconds_count\{controller="x"\} 2\n/);
  });

  it('a bound series goes through prom-client when its records are not prom-client 15’s', async () => {
    const registry = new Registry();
    const buckets = exponentialBuckets(0.005, 2, 14);
    const other = registry.histogram('h_seconds', 'h', [0.1, 1], ['name']);
    const h = bindHistogram(other, { name: 'q' }, buckets); // bucket keys differ: not bound
    h.observe(0.05);
    h.observe(0.5);
    h.observe(5);
    const text = await registry.render();
    assert.match(text, /h_seconds_bucket\{le="0\.1",name="q"\} 1\n/);
    assert.match(text, /h_seconds_bucket\{le="1",name="q"\} 2\n/);
    assert.match(text, /h_seconds_count\{name="q"\} 3\n/);
    assert.throws(() => h.observe(Number.NaN), TypeError, 'prom-client refuses a non-finite value');
    const c = bindCounter(registry.counter('c_total', 'c', ['name']), { name: 'q' });
    const g = bindGauge(registry.gauge('g', 'g', ['name']), { name: 'q' });
    c.inc();
    c.inc();
    g.set(3);
    g.add(-1);
    g.add(0.5);
    const after = await registry.render();
    assert.match(after, /c_total\{name="q"\} 2\n/);
    assert.match(after, /g\{name="q"\} 2\.5/);
    assert.ok(other instanceof Histogram);
  });
});
