import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ApiError } from '../../../src/client/api-error.ts';
import type { ObjectLike } from '../../../src/client/resource-client.ts';
import type { KindSpec } from '../../../src/client/kind.ts';
import { InformerCache, type CacheConnection } from '../../../src/runtime/cache.ts';
import { FakeClock, type Clock } from '../../../src/runtime/clock.ts';
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
  /** Whether the cache is current (every kind alike). */
  current = true;
  /** The arguments of every inSync call. */
  readonly asked: { kind: string; path: string | undefined }[] = [];
  private readonly listeners = new Set<() => void>();
  private readonly inSyncListeners = new Set<() => void>();
  onConnected(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
  inSync(kind: KindSpec, path?: string): boolean {
    this.asked.push({ kind: kind.kind, path });
    return this.current;
  }
  onInSync(listener: () => void): () => void {
    this.inSyncListeners.add(listener);
    return () => this.inSyncListeners.delete(listener);
  }
  reconnect(): void {
    this.connected = true;
    for (const l of this.listeners) l();
  }
  /** The relist is done: current again. */
  catchUp(): void {
    this.current = true;
    for (const l of this.inSyncListeners) l();
  }
  get subscribers(): number {
    return this.listeners.size + this.inSyncListeners.size;
  }
}

function controller(
  reconciler: Reconciler<ObjectLike>,
  cache: CacheConnection,
  limiter: RateLimiter<string>,
  clock?: Clock,
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
    ...(clock ? { clock } : {}),
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

/** The API server's answer to a write over a stale resourceVersion. */
function conflict(): ApiError {
  return new ApiError(409, 'PATCH', '/apis/test.op-gen.dev/v1/namespaces/ns/things/a/status', {
    reason: 'Conflict',
    message: 'the object has been modified; please apply your changes to the latest version and try again',
  });
}

describe('Controller: a Conflict while the cache is out of date', () => {
  it('waits for the cache to catch up (no token, no retry), then reconciles exactly once more', async () => {
    const cache = new FakeConnection();
    const limiter = new CountingLimiter();
    let calls = 0;
    let ok = false;
    const c = controller(
      {
        async reconcile() {
          calls++;
          // Stale until the cache has caught up: every write over it is refused (bounded, so a
          // controller that retried at once would end its loop and fail the asserts below).
          if (!cache.current && calls <= 20) throw conflict();
          ok = true;
        },
      },
      cache,
      limiter,
    );
    c.start();
    cache.current = false; // connected again, but relisting
    c.enqueue('ns/a');
    await until('parked', () => c.parkedKeys === 1);
    assert.equal(calls, 1, 'no retry while the cache is stale');
    assert.equal(limiter.whens, 0, 'no rate-limiter token');
    assert.deepEqual(cache.asked.at(-1), {
      kind: 'Thing',
      path: '/apis/test.op-gen.dev/v1/namespaces/ns/things/a/status',
    });

    cache.reconnect(); // reconnected but not yet relisted: an outage's wake-up is not enough
    assert.equal(c.parkedKeys, 1);
    cache.catchUp();
    await until('reconciled', () => ok);
    assert.equal(calls, 2, 'exactly one reconcile after the cache caught up');
    assert.equal(c.parkedKeys, 0);
    assert.equal(limiter.whens, 0);
    await c.stop(1_000);
    assert.equal(cache.subscribers, 0, 'stop unsubscribes from both');
  });

  it('retries through the rate limiter as before when the cache is current', async () => {
    const cache = new FakeConnection();
    const limiter = new CountingLimiter();
    let conflicts = 2;
    let ok = false;
    const c = controller(
      {
        async reconcile() {
          if (conflicts-- > 0) throw conflict();
          ok = true;
        },
      },
      cache,
      limiter,
    );
    c.start();
    c.enqueue('ns/a');
    await until('reconciled after two retries', () => ok);
    assert.equal(limiter.whens, 2, 'each Conflict retried with backoff');
    assert.equal(c.parkedKeys, 0);
    await c.stop(1_000);
  });

  it('retries after the fallback delay when the cache never says it caught up', async () => {
    const cache = new FakeConnection();
    const limiter = new CountingLimiter();
    const clock = new FakeClock();
    let calls = 0;
    const c = controller(
      {
        async reconcile() {
          calls++;
          if (calls === 1) throw conflict();
        },
      },
      cache,
      limiter,
      clock,
    );
    c.start();
    cache.current = false;
    c.enqueue('ns/a');
    await until('parked', () => c.parkedKeys === 1);
    clock.step(4_999);
    assert.equal(c.parkedKeys, 1, 'still waiting before the fallback delay');
    clock.step(1);
    await until('retried once', () => calls === 2);
    assert.equal(c.parkedKeys, 0);
    assert.equal(limiter.whens, 0);
    await c.stop(1_000);
  });
  it('gives each parked key its own fallback delay', async () => {
    const cache = new FakeConnection();
    const clock = new FakeClock();
    const calls = new Map<string, number>();
    const c = controller(
      {
        async reconcile(_ctx, req) {
          calls.set(req.name, (calls.get(req.name) ?? 0) + 1);
          if (calls.get(req.name) === 1) throw conflict();
        },
      },
      cache,
      new CountingLimiter(),
      clock,
    );
    c.start();
    cache.current = false;
    c.enqueue('ns/a');
    await until('a parked', () => c.parkedKeys === 1);
    clock.step(4_000);
    c.enqueue('ns/b');
    await until('b parked', () => c.parkedKeys === 2);
    clock.step(1_000);
    await until('a retried at its deadline', () => calls.get('a') === 2);
    assert.equal(calls.get('b'), 1, 'b still waits: parked 1 s ago');
    assert.equal(c.parkedKeys, 1);
    clock.step(3_999);
    assert.equal(c.parkedKeys, 1);
    clock.step(1);
    await until('b retried at its own deadline', () => calls.get('b') === 2);
    assert.equal(c.parkedKeys, 0);
    await c.stop(1_000);
  });
});

describe('InformerCache.inSync', () => {
  it('counts the controller kind and the kind a write path names, when the cache holds it', async () => {
    const { FakeApiServer } = await import('../../../src/testing/fake-api-server.ts');
    const { builtinKinds } = await import('../../../src/runtime/builtin-kinds.ts');
    const cache = new InformerCache(new FakeApiServer().transport(), { logger: quiet });
    cache.informersFor(Thing); // held, not listed yet: not current
    const { ConfigMap } = builtinKinds;
    const thingStatus = '/apis/test.op-gen.dev/v1/namespaces/ns/things/a/status?fieldManager=x';
    assert.equal(cache.inSync(Thing), false);
    assert.equal(cache.inSync(ConfigMap), true, 'a kind the cache does not hold is read from the server');
    assert.equal(cache.inSync(ConfigMap, thingStatus), false, 'the path names a held kind that is behind');
    assert.equal(
      cache.inSync(ConfigMap, '/apis/test.op-gen.dev/v2/namespaces/ns/things/a'),
      false,
      'any version',
    );
    assert.equal(cache.inSync(ConfigMap, '/api/v1/namespaces/ns/configmaps/a'), true);
    assert.equal(cache.inSync(ConfigMap, '/api/v1/namespaces/ns'), true);
    let caughtUp = 0;
    cache.onInSync(() => caughtUp++);
    cache.start();
    await cache.waitForSync();
    await until('listed and watching', () => cache.inSync(ConfigMap, thingStatus));
    assert.equal(cache.inSync(Thing), true);
    assert.equal(caughtUp, 1);
    await cache.stop();
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
