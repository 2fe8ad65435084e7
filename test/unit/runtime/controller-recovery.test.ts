import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ApiError } from '../../../src/client/api-error.ts';
import type { ObjectLike } from '../../../src/client/resource-client.ts';
import type { CacheConnection } from '../../../src/runtime/cache.ts';
import { Controller, type Reconciler } from '../../../src/runtime/controller.ts';
import { RuntimeMetrics } from '../../../src/runtime/metrics.ts';
import type { RateLimiter } from '../../../src/runtime/rate-limiter.ts';
import type { ReconcileClient } from '../../../src/runtime/reconcile-client.ts';
import { isServerUnavailable } from '../../../src/runtime/server-unavailable.ts';
import { Thing, quietLogger as quiet } from '../../helpers/runtime-fakes.ts';

/** Counts the delays asked of it; every retry is immediate so the test never waits. */
class CountingLimiter implements RateLimiter<string> {
  whens = 0;
  when(): number {
    this.whens++;
    return 0;
  }
  forget(): void {}
  numRequeues(): number {
    return 0;
  }
}

class FakeConnection implements CacheConnection {
  connected = true;
  private readonly listeners = new Set<() => void>();
  onConnected(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
  reconnect(): void {
    this.connected = true;
    for (const l of this.listeners) l();
  }
  get subscribers(): number {
    return this.listeners.size;
  }
}

function controller(
  reconciler: Reconciler<ObjectLike>,
  cache: CacheConnection,
  limiter: RateLimiter<string>,
) {
  return new Controller<ObjectLike>({
    name: 'things',
    kind: Thing,
    reconciler,
    client: {} as ReconcileClient,
    recorder: { event() {} },
    logger: quiet,
    metrics: new RuntimeMetrics(),
    options: { rateLimiter: limiter },
    cache,
  });
}

async function until(what: string, check: () => boolean): Promise<void> {
  for (let i = 0; i < 10_000; i++) {
    if (check()) return;
    await new Promise<void>((r) => setImmediate(r));
  }
  assert.fail(`never happened: ${what}`);
}

function refused(): Error {
  return Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:6443'), { code: 'ECONNREFUSED' });
}

describe('isServerUnavailable', () => {
  it('is true for socket errors and 5xx answers, false for answers a retry cannot fix by waiting', () => {
    assert.equal(isServerUnavailable(refused()), true);
    assert.equal(isServerUnavailable(Object.assign(new Error('x'), { code: 'ECONNRESET' })), true);
    assert.equal(isServerUnavailable(new Error('socket hang up')), true);
    assert.equal(isServerUnavailable(new ApiError(503, 'GET', '/x', {})), true);
    assert.equal(isServerUnavailable(new ApiError(500, 'GET', '/x', {})), true);
    assert.equal(isServerUnavailable(new ApiError(409, 'PUT', '/x', {})), false);
    assert.equal(isServerUnavailable(new ApiError(422, 'PATCH', '/x', {})), false);
    assert.equal(isServerUnavailable(new Error('boom')), false);
    assert.equal(isServerUnavailable('ECONNREFUSED'), false);
  });
});

describe('Controller during an API server outage', () => {
  it('parks failures while the cache is disconnected (no rate-limiter tokens) and requeues them on reconnect', async () => {
    const cache = new FakeConnection();
    const limiter = new CountingLimiter();
    let serverUp = false;
    const done = new Set<string>();
    let calls = 0;
    const c = controller(
      {
        async reconcile(_ctx, req) {
          calls++;
          if (!serverUp) throw refused();
          done.add(req.name);
        },
      },
      cache,
      limiter,
    );
    c.start();
    cache.connected = false;
    for (let i = 0; i < 50; i++) c.enqueue(`ns/o${i}`);
    await until('all 50 parked', () => c.parkedKeys === 50);
    assert.equal(limiter.whens, 0, 'no token taken during the outage');
    assert.equal(calls, 50, 'each key tried once, no hot loop');

    serverUp = true;
    cache.reconnect();
    await until('all reconciled', () => done.size === 50);
    assert.equal(c.parkedKeys, 0);
    assert.equal(limiter.whens, 0);
    await c.stop(1_000);
    assert.equal(cache.subscribers, 0, 'stop unsubscribes');
  });

  it('retries through the rate limiter when the cache is connected, or the failure is not an outage', async () => {
    const cache = new FakeConnection();
    const limiter = new CountingLimiter();
    let failures = 2;
    let ok = false;
    const c = controller(
      {
        async reconcile() {
          if (failures-- > 0) throw failures === 1 ? refused() : new ApiError(422, 'PATCH', '/x', {});
          ok = true;
        },
      },
      cache,
      limiter,
    );
    c.start();
    c.enqueue('ns/a');
    await until('reconciled after two retries', () => ok);
    assert.equal(limiter.whens, 2);
    assert.equal(c.parkedKeys, 0);
    await c.stop(1_000);
  });
});

describe('Controller.stop', () => {
  it('leaves no timer behind once the workers are idle', async () => {
    const c = controller({ async reconcile() {} }, new FakeConnection(), new CountingLimiter());
    const timers = () => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;
    const before = timers();
    c.start();
    c.enqueue('ns/a');
    const outcome = await c.stop(30_000);
    assert.deepEqual(outcome, { aborted: 0 });
    assert.equal(timers(), before, 'no pending timer keeps the process alive after stop');
  });

  it('aborts reconciles still running at the deadline and reports how many', async () => {
    let sawAbort = false;
    let started = false;
    const c = controller(
      {
        reconcile(ctx) {
          started = true;
          return new Promise<void>((resolve) => {
            ctx.signal.addEventListener('abort', () => {
              sawAbort = true;
              resolve();
            });
          });
        },
      },
      new FakeConnection(),
      new CountingLimiter(),
    );
    c.start();
    c.enqueue('ns/slow');
    await until('the reconcile runs', () => started);
    const outcome = await c.stop(20);
    assert.deepEqual(outcome, { aborted: 1 });
    assert.equal(sawAbort, true);
  });
});

describe('Manager shutdown', () => {
  it('start() rejects with ShutdownDeadlineError when reconciles are aborted at the deadline', async () => {
    const { Manager, ShutdownDeadlineError } = await import('../../../src/runtime/manager.ts');
    const { FakeApiServer } = await import('../../../src/testing/fake-api-server.ts');
    const mgr = await Manager.create({
      transport: new FakeApiServer().transport(),
      metricsBindAddress: '0',
      healthProbeBindAddress: '0',
      handleSignals: false,
      gracefulShutdownTimeoutMs: 20,
      logger: quiet,
    });
    let running = false;
    const c = mgr
      .controller('hangs')
      .for(Thing)
      .complete({
        reconcile: (ctx) =>
          new Promise<void>((resolve) => {
            running = true;
            ctx.signal.addEventListener('abort', () => resolve());
          }),
      });
    const started = mgr.start();
    await mgr.ready;
    c.enqueue('ns/a');
    await until('the reconcile runs', () => running);
    await mgr.stop();
    await assert.rejects(
      started,
      (err: unknown) => err instanceof ShutdownDeadlineError && err.aborted === 1,
    );
  });

  it('start() resolves when every reconcile finished in time', async () => {
    const { KubeConfig } = await import('@kubernetes/client-node');
    const { Manager } = await import('../../../src/runtime/manager.ts');
    const kc = new KubeConfig();
    kc.loadFromOptions({
      clusters: [{ name: 'c', server: 'https://127.0.0.1:1', skipTLSVerify: true }],
      users: [{ name: 'u', token: 't' }],
      contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
      currentContext: 'x',
    });
    const mgr = await Manager.create({
      kubeConfig: kc,
      metricsBindAddress: '0',
      healthProbeBindAddress: '0',
      handleSignals: false,
      logger: quiet,
    });
    const started = mgr.start();
    await mgr.ready;
    await mgr.stop();
    await started;
  });
});
