import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, it } from 'node:test';
import { ApiError } from '../../../src/client/api-error.ts';
import { Controller, type Reconciler, type Result } from '../../../src/runtime/controller.ts';
import { createLogger } from '../../../src/runtime/logger.ts';
import { metricValue, RuntimeMetrics } from '../../../src/runtime/metrics.ts';
import type { RateLimiter } from '../../../src/runtime/rate-limiter.ts';
import type { ReconcileClient } from '../../../src/runtime/reconcile-client.ts';

/**
 * The controller's contract with its reconciler (controller-runtime's): `requeue` backs off through the
 * rate limiter, `requeueAfter` schedules without counting a failure, an error backs off, success
 * forgets the failures, at most maxConcurrentReconciles run at once, and stop() aborts the signal of
 * reconciles still running at the deadline. Fakes at the controller's own seams (rate limiter,
 * reconciler); every wait polls for a condition, nothing measures time.
 */

/** A rate limiter that records every call and always answers 1 ms. */
class RecordingLimiter implements RateLimiter<string> {
  readonly whens: string[] = [];
  readonly forgets: string[] = [];
  private readonly failures = new Map<string, number>();
  when(item: string): number {
    this.whens.push(item);
    this.failures.set(item, (this.failures.get(item) ?? 0) + 1);
    return 1;
  }
  forget(item: string): void {
    this.forgets.push(item);
    this.failures.delete(item);
  }
  numRequeues(item: string): number {
    return this.failures.get(item) ?? 0;
  }
}

const KIND = { group: 'example.com', version: 'v1', kind: 'Widget', plural: 'widgets', namespaced: true };

async function until(what: string, condition: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(2);
  }
}

const running: Controller<unknown>[] = [];
afterEach(async () => {
  for (const c of running.splice(0)) await c.stop(1000);
});

function controller(
  reconciler: Reconciler<unknown>,
  options: { maxConcurrentReconciles?: number } = {},
): { c: Controller<unknown>; limiter: RecordingLimiter; metrics: RuntimeMetrics; logs: string[] } {
  const limiter = new RecordingLimiter();
  const metrics = new RuntimeMetrics();
  const logs: string[] = [];
  const c = new Controller<unknown>({
    name: 'widget',
    kind: KIND as never,
    reconciler,
    // The reconcilers here never touch the client or the recorder.
    client: {} as ReconcileClient,
    recorder: { event: () => undefined },
    logger: createLogger({ level: 'debug', write: (line) => void logs.push(line) }),
    metrics,
    options: { ...options, rateLimiter: limiter },
  });
  running.push(c);
  return { c, limiter, metrics, logs };
}

/** A reconciler that answers from a script, one entry per call, then `undefined` (done). */
function scripted(script: (Result | Error)[]): Reconciler<unknown> & { calls: number } {
  const r = {
    calls: 0,
    async reconcile(): Promise<Result | void> {
      const next = script[r.calls++];
      if (next instanceof Error) throw next;
      return next;
    },
  };
  return r;
}

describe('Controller', () => {
  it('requeue: true backs off through the rate limiter until the reconcile is done, then forgets', async () => {
    const r = scripted([{ requeue: true }, { requeue: true }]);
    const { c, limiter, metrics } = controller(r);
    c.start();
    c.enqueue('ns/a');
    await until('three reconciles and a forget', () => r.calls === 3 && limiter.forgets.length > 0);
    assert.deepEqual(limiter.whens, ['ns/a', 'ns/a'], 'one backoff per requeue');
    assert.equal(limiter.numRequeues('ns/a'), 0, 'success forgets the failures');
    assert.equal(await metricValue(metrics.reconcileTotal, { controller: 'widget', result: 'requeue' }), 2);
    assert.equal(await metricValue(metrics.reconcileTotal, { controller: 'widget', result: 'success' }), 1);
  });

  it('requeueAfter schedules the key again without counting a failure', async () => {
    const r = scripted([{ requeueAfter: 5 }]);
    const { c, limiter, metrics } = controller(r);
    c.start();
    c.enqueue('ns/b');
    await until('the scheduled reconcile', () => r.calls === 2);
    for (let i = 0; i < 500; i++) {
      if ((await metricValue(metrics.reconcileTotal, { controller: 'widget', result: 'success' })) === 1)
        break;
      await sleep(2);
    }
    assert.deepEqual(limiter.whens, [], 'the rate limiter is not asked');
    assert.equal(
      await metricValue(metrics.reconcileTotal, { controller: 'widget', result: 'requeue_after' }),
      1,
    );
  });

  it('an error backs off and is logged with its retry count; a Conflict is an expected retry', async () => {
    const conflict = new ApiError(409, 'PUT', '/x', { reason: 'Conflict', message: 'stale' });
    const r = scripted([new Error('boom'), conflict]);
    const { c, limiter, metrics, logs } = controller(r);
    c.start();
    c.enqueue('ns/c');
    await until('the third, successful reconcile', () => r.calls === 3 && limiter.forgets.length > 0);
    assert.deepEqual(limiter.whens, ['ns/c', 'ns/c']);
    assert.equal(await metricValue(metrics.reconcileErrors, { controller: 'widget' }), 2);
    const lines = logs.map(
      (l) => JSON.parse(l) as { level: string; msg: string; error?: { message: string } },
    );
    assert.deepEqual(
      lines.filter((l) => l.level === 'error').map((l) => [l.msg, l.error?.message]),
      [['reconcile failed', 'boom']],
      'only the real error is logged as an error',
    );
    assert.ok(lines.some((l) => l.level === 'debug' && l.msg.startsWith('conflict writing a stale object')));
  });

  for (const max of [1, 3]) {
    it(`runs at most maxConcurrentReconciles=${max} at once, and that many when there is work`, async () => {
      let inFlight = 0;
      let peak = 0;
      let finished = 0;
      const gates: (() => void)[] = [];
      const { c } = controller(
        {
          async reconcile() {
            inFlight++;
            peak = Math.max(peak, inFlight);
            await new Promise<void>((resolve) => gates.push(resolve));
            inFlight--;
            finished++;
          },
        },
        { maxConcurrentReconciles: max },
      );
      c.start();
      for (const name of ['a', 'b', 'c', 'd', 'e']) c.enqueue(`ns/${name}`);
      await until(`${max} reconciles in flight`, () => inFlight === max);
      // Let the workers take more if they could: none may start while all are busy.
      await sleep(20);
      assert.equal(inFlight, max);
      while (finished < 5) {
        gates.shift()?.();
        await sleep(1);
      }
      assert.equal(peak, max);
    });
  }

  it('one key is never reconciled by two workers at once', async () => {
    let inFlight = 0;
    let overlap = false;
    let calls = 0;
    const { c } = controller(
      {
        async reconcile() {
          calls++;
          if (++inFlight > 1) overlap = true;
          await sleep(5);
          inFlight--;
        },
      },
      { maxConcurrentReconciles: 4 },
    );
    c.start();
    c.enqueue('ns/same');
    await until('the first reconcile', () => calls === 1);
    c.enqueue('ns/same');
    c.enqueue('ns/same');
    await until('the second reconcile', () => calls === 2 && inFlight === 0);
    assert.equal(overlap, false);
  });

  it('stop() waits for a reconcile that finishes within the deadline, and does not abort it', async () => {
    let signal: AbortSignal | undefined;
    let finished = false;
    const { c } = controller({
      async reconcile(ctx) {
        signal = ctx.signal;
        await sleep(10);
        finished = true;
      },
    });
    c.start();
    c.enqueue('ns/quick');
    await until('the reconcile to start', () => signal !== undefined);
    await c.stop(10_000);
    assert.equal(finished, true);
    assert.equal(signal?.aborted, false);
  });

  it('stop() aborts the signal of a reconcile still running at the deadline, and returns', async () => {
    let signal: AbortSignal | undefined;
    const { c, logs } = controller({
      async reconcile(ctx) {
        signal = ctx.signal;
        // A reconcile that only ends when aborted.
        await new Promise<void>((resolve) => ctx.signal.addEventListener('abort', () => resolve()));
      },
    });
    c.start();
    c.enqueue('ns/slow');
    await until('the reconcile to start', () => signal !== undefined);
    await c.stop(20);
    assert.equal(signal?.aborted, true);
    assert.ok(logs.some((l) => l.includes('reconciles still running at the shutdown deadline')));
  });
});
