import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import type { ObjectLike } from '../../../src/client/resource-client.ts';
import type { Transport, TransportRequest } from '../../../src/client/transport.ts';
import { InformerCache } from '../../../src/runtime/cache.ts';
import { FakeClock } from '../../../src/runtime/clock.ts';
import {
  Controller,
  ReconcileTimeoutError,
  type ReconcileContext,
  type Reconciler,
} from '../../../src/runtime/controller.ts';
import { metricValue, RuntimeMetrics } from '../../../src/runtime/metrics.ts';
import type { RateLimiter } from '../../../src/runtime/rate-limiter.ts';
import { ReconcileClient } from '../../../src/runtime/reconcile-client.ts';
import { Thing, quietLogger as quiet, settle } from '../../helpers/runtime-fakes.ts';

/**
 * The reconcile deadline (`withOptions({ reconcileTimeoutMs })`, controller-runtime's
 * ReconciliationTimeout), on the fake clock: past it `ctx.signal` aborts, the API requests of
 * `ctx.client` with it, the reconcile is an error backed off through the rate limiter and counted in
 * controller_runtime_reconcile_timeouts_total; a reconcile within it is untouched.
 */

class RecordingLimiter implements RateLimiter<string> {
  readonly whens: string[] = [];
  readonly forgets: string[] = [];
  when(item: string): number {
    this.whens.push(item);
    return 1_000;
  }
  forget(item: string): void {
    this.forgets.push(item);
  }
  numRequeues(): number {
    return 0;
  }
}

/** A transport whose requests hang until their signal aborts (and record that they had one). */
class HangingTransport implements Transport {
  readonly requests: TransportRequest[] = [];
  request<T>(req: TransportRequest): Promise<T> {
    this.requests.push(req);
    return new Promise<T>((_resolve, reject) => {
      if (!req.signal) return; // hangs for ever: the test would time out
      req.signal.addEventListener(
        'abort',
        () => reject(Object.assign(new Error('aborted'), { name: 'AbortError' })),
        {
          once: true,
        },
      );
    });
  }
  stream(): Promise<void> {
    return new Promise(() => {});
  }
  close(): void {}
}

const running: Controller<unknown>[] = [];
afterEach(async () => {
  for (const c of running.splice(0)) await c.stop(100);
});

function setup(reconciler: Reconciler<unknown>, reconcileTimeoutMs?: number) {
  const clock = new FakeClock();
  const transport = new HangingTransport();
  const client = new ReconcileClient(transport, new InformerCache(transport, { logger: quiet }), 'test');
  const limiter = new RecordingLimiter();
  const metrics = new RuntimeMetrics();
  const c = new Controller<unknown>({
    name: 'things',
    kind: Thing as never,
    reconciler,
    client,
    recorder: { event: () => undefined },
    logger: quiet,
    metrics,
    clock,
    options: { rateLimiter: limiter, ...(reconcileTimeoutMs !== undefined ? { reconcileTimeoutMs } : {}) },
  });
  running.push(c);
  c.start();
  return { c, clock, transport, limiter, metrics };
}

const timeouts = async (m: RuntimeMetrics) =>
  (await metricValue(m.reconcileTimeouts, { controller: 'things' })) ?? 0;

describe('reconcileTimeoutMs', () => {
  it('aborts ctx.signal at the deadline; the reconcile is an error, backed off and counted', async () => {
    const seen: unknown[] = [];
    let calls = 0;
    const { c, clock, limiter, metrics } = setup(
      {
        async reconcile(ctx: ReconcileContext<unknown>) {
          calls++;
          if (calls > 1) return;
          await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve, { once: true }));
          seen.push(ctx.signal.reason);
          // Returns "success" after the abort: still a timeout.
        },
      },
      5_000,
    );
    c.enqueue('ns/a');
    await settle();
    assert.equal(calls, 1);
    clock.step(4_999);
    await settle();
    assert.equal(seen.length, 0, 'not before the deadline');
    clock.step(1);
    await settle();
    assert.ok(seen[0] instanceof ReconcileTimeoutError);
    assert.equal(await timeouts(metrics), 1);
    assert.equal(await metricValue(metrics.reconcileErrors, { controller: 'things' }), 1);
    assert.deepEqual(limiter.whens, ['ns/a'], 'requeued through the rate limiter (backoff)');
    clock.step(1_000);
    await settle();
    assert.equal(calls, 2, 'reconciled again after the backoff');
    assert.equal(await timeouts(metrics), 1);
  });

  it('aborts the API requests of ctx.client at the deadline', async () => {
    let thrown: unknown;
    const { c, clock, transport, metrics } = setup(
      {
        async reconcile(ctx: ReconcileContext<unknown>) {
          try {
            await ctx.client.create(Thing, { metadata: { name: 'child', namespace: 'ns' } } as ObjectLike);
          } catch (err) {
            thrown = err;
            throw err;
          }
        },
      },
      2_000,
    );
    c.enqueue('ns/a');
    await settle();
    assert.equal(transport.requests.length, 1);
    assert.ok(transport.requests[0]!.signal, 'the request carries the reconcile’s signal');
    clock.step(2_000);
    await settle();
    assert.match(String((thrown as Error)?.name), /AbortError/);
    assert.equal(await timeouts(metrics), 1);
  });

  it('leaves a reconcile within the deadline alone, and none is set by default', async () => {
    const signals: AbortSignal[] = [];
    const within = setup(
      {
        async reconcile(ctx: ReconcileContext<unknown>) {
          signals.push(ctx.signal);
        },
      },
      1_000,
    );
    within.c.enqueue('ns/a');
    await settle();
    within.clock.step(5_000);
    await settle();
    assert.equal(await timeouts(within.metrics), 0);
    assert.deepEqual(within.limiter.forgets, ['ns/a'], 'success forgets the key');
    assert.ok(!(signals[0]!.reason instanceof ReconcileTimeoutError));

    const none = setup({
      async reconcile(ctx: ReconcileContext<unknown>) {
        signals.push(ctx.signal);
        await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve, { once: true }));
      },
    });
    none.c.enqueue('ns/b');
    await settle();
    none.clock.step(3_600_000);
    await settle();
    assert.equal(signals[1]!.aborted, false, 'no deadline without the option');
    assert.equal(await timeouts(none.metrics), 0);
  });
});
