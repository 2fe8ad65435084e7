import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, it } from 'node:test';
import { isConflict } from '../../../src/client/api-error.ts';
import { defineKind } from '../../../src/client/kind.ts';
import { ResourceClient, type ObjectLike } from '../../../src/client/resource-client.ts';
import { builtinKinds } from '../../../src/runtime/builtin-kinds.ts';
import { createLogger } from '../../../src/runtime/logger.ts';
import { Manager } from '../../../src/runtime/manager.ts';
import { metricValue } from '../../../src/runtime/metrics.ts';
import type { Request } from '../../../src/runtime/object-key.ts';
import { TerminalError } from '../../../src/runtime/terminal-error.ts';
import { FakeApiServer } from '../../../src/testing/fake-api-server.ts';

/**
 * A Manager on the fake API server: the builder maps owned and watched objects to reconcile
 * requests, status writes go to the status subresource, a stale update conflicts and is retried,
 * a TerminalError is not requeued (counted, logged, an event), the error policy decides, and
 * runnables start and stop with the manager.
 */
const Widget = defineKind<ObjectLike & { spec?: { size?: number }; status?: { seen?: number } }>({
  group: 'test.op-gen.dev',
  version: 'v1',
  kind: 'Widget',
  plural: 'widgets',
  namespaced: true,
});

async function until(what: string, condition: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(2);
  }
}

const managers: Manager[] = [];
afterEach(async () => {
  for (const m of managers.splice(0)) await m.stop();
});

async function manager(logs: string[] = []) {
  const server = new FakeApiServer().register(Widget, { statusSubresource: true });
  const mgr = await Manager.create({
    transport: server.transport('manager'),
    metricsBindAddress: '0',
    healthProbeBindAddress: '0',
    handleSignals: false,
    gracefulShutdownTimeoutMs: 100,
    logger: createLogger({
      level: 'debug',
      write: (l) => {
        logs.push(l);
        if (process.env.DBG) process.stderr.write(l);
      },
    }),
  });
  managers.push(mgr);
  const widgets = new ResourceClient(server.transport('test'), Widget);
  return { server, mgr, widgets, logs };
}

describe('Manager on the fake API server', () => {
  it('builder: for() enqueues the object, owns() its controller owner, watches() what the map says', async () => {
    const { mgr, server, widgets } = await manager();
    const seen: string[] = [];
    mgr
      .controller('widget')
      .for(Widget)
      .owns(builtinKinds.ConfigMap)
      .watches(builtinKinds.Secret, (s): Request[] => [
        { namespace: s.metadata?.namespace ?? '', name: `from-${s.metadata?.name}` },
      ])
      .complete({
        async reconcile(_ctx, req) {
          seen.push(`${req.namespace}/${req.name}`);
        },
      });
    const running = mgr.start();
    await mgr.ready;
    const w = await widgets.create({ metadata: { name: 'w1', namespace: 'ns' } });
    await until('the widget reconciled', () => seen.includes('ns/w1'));
    await sleep(20);
    seen.length = 0;
    const configMaps = new ResourceClient(server.transport('test'), builtinKinds.ConfigMap);
    await configMaps.create({
      metadata: {
        name: 'cm',
        namespace: 'ns',
        ownerReferences: [
          {
            apiVersion: 'test.op-gen.dev/v1',
            kind: 'Widget',
            name: 'w1',
            uid: w.metadata?.uid ?? '',
            controller: true,
          },
        ],
      },
    });
    // Not a controller reference, or another kind: no request.
    await configMaps.create({
      metadata: {
        name: 'cm2',
        namespace: 'ns',
        ownerReferences: [
          { apiVersion: 'test.op-gen.dev/v1', kind: 'Gadget', name: 'p', uid: 'u', controller: true },
        ],
      },
    });
    await until('the owner reconciled for its ConfigMap', () => seen.includes('ns/w1'));
    const secrets = new ResourceClient(server.transport('test'), builtinKinds.Secret);
    await secrets.create({ metadata: { name: 's', namespace: 'ns' } });
    await until('the mapped request', () => seen.includes('ns/from-s'));
    assert.ok(!seen.includes('ns/p'), 'a ConfigMap controlled by another kind of the group maps to nothing');
    await mgr.stop();
    await running;
  });

  it('status().update writes only the status; a stale update conflicts and the retry succeeds', async () => {
    const { mgr, server, widgets } = await manager();
    let calls = 0;
    let conflicts = 0;
    mgr
      .controller('widget')
      .for(Widget)
      .withOptions({ rateLimiter: { when: () => 1, forget: () => {}, numRequeues: () => 0 } })
      .complete({
        async reconcile(ctx, req) {
          calls++;
          const obj = await ctx.client.get(Widget, req);
          if (!obj) return;
          if (calls === 1) {
            // Someone else writes first: this reconcile's copy is stale now.
            await widgets.patch(req, 'merge', { metadata: { labels: { other: 'writer' } } });
          }
          try {
            await ctx.client.status().update(Widget, {
              ...obj,
              spec: { size: 99 },
              status: { seen: 1 },
            });
          } catch (err) {
            if (isConflict(err)) conflicts++;
            throw err;
          }
        },
      });
    const running = mgr.start();
    await mgr.ready;
    await widgets.create({ metadata: { name: 'w', namespace: 'ns' }, spec: { size: 1 } });
    await until('the status written', () => server.get(Widget, 'ns', 'w')?.status !== undefined);
    assert.equal(conflicts, 1);
    const stored = server.get(Widget, 'ns', 'w') as unknown as {
      spec: { size: number };
      status: { seen: number };
    };
    assert.equal(stored.spec.size, 1, 'the status write left the spec alone');
    assert.equal(stored.status.seen, 1);
    const statusWrites = server.requests.filter((r) => r.method === 'PUT' && r.client === 'manager');
    assert.ok(statusWrites.every((r) => r.path.endsWith('/status')));
    await mgr.stop();
    await running;
  });

  it('a TerminalError is not requeued: counted, logged with its cause, and recorded as an event', async () => {
    const { mgr, widgets, server, logs } = await manager();
    let calls = 0;
    mgr
      .controller('widget')
      .for(Widget)
      .withOptions({ terminalErrorEvents: true })
      .complete({
        async reconcile() {
          calls++;
          throw new TerminalError('spec.size must be even', { cause: new Error('odd: 3') });
        },
      });
    const running = mgr.start();
    await mgr.ready;
    await widgets.create({ metadata: { name: 'w', namespace: 'ns' }, spec: { size: 3 } });
    await until('the event', () =>
      server.requests.some((r) => r.method === 'POST' && r.path.includes('events')),
    );
    // The event is recorded after the controller decided what to do with the key: had it requeued
    // it, the queue's retry counter would already show it (no waiting for a requeue to show up).
    assert.equal(await metricValue(mgr.metrics.workqueueRetries, { name: 'widget' }), 0, 'not requeued');
    assert.equal(calls, 1);
    assert.equal(await metricValue(mgr.metrics.terminalReconcileErrors, { controller: 'widget' }), 1);
    const line = logs
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .find((l) => l.msg === 'reconcile failed terminally; not requeued');
    const error = line?.error as { name: string; stack?: string; cause?: { message: string } };
    assert.equal(error.name, 'TerminalError');
    assert.match(error.stack ?? '', /fake-manager\.test\.ts/);
    assert.equal(error.cause?.message, 'odd: 3');
    await mgr.stop();
    await running;
  });

  it('the error policy can requeue after a delay instead of backing off', async () => {
    const { mgr, widgets } = await manager();
    const policyCalls: string[] = [];
    let calls = 0;
    mgr
      .controller('widget')
      .for(Widget)
      .withOptions({
        errorPolicy: (err, req) => {
          policyCalls.push(`${req.name}: ${(err as Error).message}`);
          return { requeueAfter: 5 };
        },
        rateLimiter: {
          when: () => {
            throw new Error('the rate limiter must not be asked');
          },
          forget: () => {},
          numRequeues: () => 0,
        },
      })
      .complete({
        async reconcile() {
          if (++calls < 3) throw new Error('not yet');
        },
      });
    const running = mgr.start();
    await mgr.ready;
    await widgets.create({ metadata: { name: 'w', namespace: 'ns' } });
    await until('three reconciles', () => calls === 3);
    assert.deepEqual(policyCalls, ['w: not yet', 'w: not yet']);
    await mgr.stop();
    await running;
  });

  it('runnables: leader-only ones start with the controllers, all get their signal aborted at stop', async () => {
    const { mgr } = await manager();
    const events: string[] = [];
    mgr.add(
      async (signal) => {
        events.push('everywhere started');
        await new Promise((r) => signal.addEventListener('abort', r));
        events.push('everywhere stopped');
      },
      { needLeaderElection: false },
    );
    mgr.add({
      start: async (signal) => {
        events.push('leader started');
        await new Promise((r) => signal.addEventListener('abort', r));
        events.push('leader stopped');
      },
    });
    const running = mgr.start();
    await mgr.ready;
    assert.deepEqual(events.sort(), ['everywhere started', 'leader started']);
    await mgr.stop();
    await running;
    assert.deepEqual(events.slice(2).sort(), ['everywhere stopped', 'leader stopped']);
  });

  it('a failing runnable stops the manager and start() rejects with its error', async () => {
    const { mgr } = await manager();
    mgr.add(async () => {
      throw new Error('cache warmer failed');
    });
    await assert.rejects(mgr.start(), /cache warmer failed/);
  });
});
