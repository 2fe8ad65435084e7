import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ResourceClient, type ObjectLike } from '../../../src/client/resource-client.ts';
import { ControllerBuilder, type BuilderHost } from '../../../src/runtime/builder.ts';
import { InformerCache } from '../../../src/runtime/cache.ts';
import { FakeClock } from '../../../src/runtime/clock.ts';
import { Controller, type Reconciler } from '../../../src/runtime/controller.ts';
import { createLogger } from '../../../src/runtime/logger.ts';
import { RuntimeMetrics } from '../../../src/runtime/metrics.ts';
import { ItemExponentialFailureRateLimiter } from '../../../src/runtime/rate-limiter.ts';
import type { ReconcileClient } from '../../../src/runtime/reconcile-client.ts';
import { LOW_PRIORITY, WorkQueue } from '../../../src/runtime/workqueue.ts';
import { FakeApiServer } from '../../../src/testing/fake-api-server.ts';
import { Thing, quietLogger as quiet, settle } from '../../helpers/runtime-fakes.ts';

/**
 * The priority queue (controller-runtime's pkg/controller/priorityqueue, with an aging rule of our
 * own): higher priorities first, arrival order within one priority, the workqueue's dedup, "dirty
 * while processing", delays and backoff unchanged; lower priorities cannot starve (maxSkips).
 */

function queue(maxSkips?: number): { q: WorkQueue<string>; clock: FakeClock } {
  const clock = new FakeClock();
  const q = new WorkQueue<string>({
    clock,
    rateLimiter: new ItemExponentialFailureRateLimiter(5, 1000),
    ...(maxSkips !== undefined ? { maxSkips } : {}),
  });
  return { q, clock };
}

/** Hands out (and finishes) everything queued, in order. */
async function drain(q: WorkQueue<string>): Promise<string[]> {
  const out: string[] = [];
  while (q.length > 0) {
    const item = (await q.get())!;
    out.push(item);
    q.done(item);
  }
  return out;
}

describe('WorkQueue priorities', () => {
  it('serves higher priorities first and keeps arrival order within a priority', async () => {
    const { q } = queue();
    q.add('low1', LOW_PRIORITY);
    q.add('n1');
    q.add('low2', LOW_PRIORITY);
    q.add('high', 10);
    q.add('n2');
    assert.deepEqual(await drain(q), ['high', 'n1', 'n2', 'low1', 'low2']);
  });

  it('a re-add while queued keeps the higher priority: raised items move up, lowered ones stay', async () => {
    const { q } = queue();
    q.add('a', LOW_PRIORITY);
    q.add('b', LOW_PRIORITY);
    q.add('c');
    q.add('b'); // raised: to the end of the normal priority
    q.add('c', LOW_PRIORITY); // not lowered
    assert.equal(q.length, 3, 'still one entry per item');
    assert.deepEqual(await drain(q), ['c', 'b', 'a']);
  });

  it('an item raised twice is handed out once, and its stale entries do not come back', async () => {
    const { q } = queue();
    q.add('a', LOW_PRIORITY);
    q.add('a');
    q.add('a', 5);
    assert.deepEqual(await drain(q), ['a']);
    q.add('a', LOW_PRIORITY);
    q.add('z', LOW_PRIORITY);
    assert.deepEqual(await drain(q), ['a', 'z']);
  });

  it('dirty while processing: a re-add waits for done() and goes in at its (highest) priority', async () => {
    const { q } = queue();
    q.add('a', LOW_PRIORITY);
    q.add('b', LOW_PRIORITY);
    assert.equal(await q.get(), 'a');
    assert.equal(q.priorityOf('a'), LOW_PRIORITY);
    q.add('a', LOW_PRIORITY);
    q.add('c');
    assert.equal(q.length, 2, 'a is not queued while a worker has it');
    q.done('a');
    assert.deepEqual(await drain(q), ['c', 'b', 'a'], 'back in at low priority, behind b');
    q.add('x', LOW_PRIORITY);
    q.add('y', LOW_PRIORITY);
    assert.equal(await q.get(), 'x');
    q.add('x', LOW_PRIORITY);
    q.add('x'); // raised while processing
    q.done('x');
    assert.deepEqual(await drain(q), ['x', 'y'], 'back in at normal priority, ahead of the low backlog');
  });

  it('addAfter keeps the earliest time and the highest priority', async () => {
    const { q, clock } = queue();
    q.add('n');
    q.addAfter('x', 100, LOW_PRIORITY);
    q.addAfter('x', 50, LOW_PRIORITY);
    q.addAfter('x', 80, 5); // later time: keeps 50 ms, takes priority 5
    clock.step(49);
    assert.equal(q.length, 1);
    clock.step(1);
    assert.equal(q.length, 2);
    assert.deepEqual(await drain(q), ['x', 'n']);
    clock.step(100);
    assert.equal(q.length, 0, 'the later timers were dropped');
  });

  it('addRateLimited backs off per item at the given priority; forget resets', async () => {
    const { q, clock } = queue();
    q.add('n');
    q.addRateLimited('r', 3);
    assert.equal(q.length, 1);
    clock.step(5);
    assert.deepEqual(await drain(q), ['r', 'n']);
    q.addRateLimited('r', 3);
    clock.step(5);
    assert.equal(q.length, 0, 'second failure: 10 ms');
    clock.step(5);
    assert.equal(q.length, 1);
    q.forget('r');
    assert.equal(q.numRequeues('r'), 0);
  });

  it('aging: a low-priority backlog still finishes under a steady stream of normal-priority items', async () => {
    // A worker takes 10 ms per item; a new normal-priority item arrives every 10 ms, so a live item
    // is always waiting (the stream alone would keep the worker busy). 100 low-priority items wait
    // from the start.
    const maxSkips = 10;
    const { q, clock } = queue(maxSkips);
    for (let i = 0; i < 100; i++) q.add(`low-${i}`, LOW_PRIORITY);
    let streamed = 0;
    q.add(`live-${streamed++}`);
    const served: string[] = [];
    const lowDoneAt: number[] = [];
    const start = clock.now();
    while (lowDoneAt.length < 100 && served.length < 5_000) {
      const item = (await q.get())!;
      served.push(item);
      clock.step(10);
      q.done(item);
      if (item.startsWith('low-')) lowDoneAt.push(clock.now() - start);
      q.add(`live-${streamed++}`);
    }
    assert.equal(lowDoneAt.length, 100, 'every low-priority item finished');
    const lows = served.filter((x) => x.startsWith('low-'));
    const lives = served.filter((x) => x.startsWith('live-'));
    assert.deepEqual(
      lows,
      Array.from({ length: 100 }, (_, i) => `low-${i}`),
      'low items keep their order',
    );
    assert.deepEqual(
      lives,
      Array.from({ length: lives.length }, (_, i) => `live-${i}`),
      'live items keep their order',
    );
    // The rule: one low item after every maxSkips live ones, never two in a row while live ones wait.
    for (let i = 0; i < served.length; i++) {
      const isLow = served[i]!.startsWith('low-');
      assert.equal(isLow, i % (maxSkips + 1) === maxSkips, `item ${i} is ${served[i]}`);
    }
    assert.equal(lowDoneAt[99], 100 * (maxSkips + 1) * 10, 'the last low item at 100 × 11 items of 10 ms');
  });

  it('one priority is exactly the FIFO queue', async () => {
    const { q } = queue(1);
    for (const x of ['c', 'a', 'b', 'a', 'd']) q.add(x);
    assert.deepEqual(await drain(q), ['c', 'a', 'b', 'd']);
  });
});

const KIND = Thing;

describe('Controller and builder priorities', () => {
  function controller(
    script: (
      req: string,
    ) =>
      | { requeueAfter?: number; priority?: number }
      | void
      | Promise<{ requeueAfter?: number; priority?: number } | void>,
    usePriorityQueue = true,
  ) {
    const clock = new FakeClock();
    const seen: string[] = [];
    const reconciler: Reconciler<ObjectLike> = {
      async reconcile(_ctx, req) {
        seen.push(req.name);
        return script(req.name);
      },
    };
    const c = new Controller<ObjectLike>({
      name: 'thing',
      kind: KIND,
      reconciler,
      client: {} as ReconcileClient,
      recorder: { event: () => undefined },
      logger: createLogger({ level: 'error', write: () => {} }),
      metrics: new RuntimeMetrics(),
      options: { usePriorityQueue },
      clock,
    });
    return { c, clock, seen };
  }

  it('enqueue(key, LOW_PRIORITY) waits behind live keys', async () => {
    const { c, seen } = controller(() => undefined);
    c.enqueue('ns/low-a', LOW_PRIORITY);
    c.enqueue('ns/low-b', LOW_PRIORITY);
    c.enqueue('ns/live');
    c.start();
    await settle();
    assert.deepEqual(seen, ['live', 'low-a', 'low-b']);
    await c.stop(100);
  });

  it('requeues keep the priority the key was handed out at, or take the result’s', async () => {
    let release: () => void = () => undefined;
    const held = new Promise<void>((r) => (release = r));
    const { c, clock, seen } = controller(async (name) => {
      if (name === 'n') await held;
      if (seen.filter((s) => s === name).length > 1) return undefined;
      return name === 'a' ? { requeueAfter: 5 } : name === 'b' ? { requeueAfter: 5, priority: 1 } : undefined;
    });
    c.enqueue('ns/a', LOW_PRIORITY);
    c.enqueue('ns/b', LOW_PRIORITY);
    c.start();
    await settle();
    assert.deepEqual(seen, ['a', 'b']);
    c.enqueue('ns/n'); // holds the only worker
    await settle();
    c.enqueue('ns/m'); // normal priority, queued
    clock.step(5); // a (low: kept) and b (priority 1 from its result) are due while the worker is busy
    release();
    await settle();
    assert.deepEqual(seen, ['a', 'b', 'n', 'b', 'm', 'a']);
    await c.stop(100);
  });

  it('usePriorityQueue: false serves everything first in, first out', async () => {
    const { c, seen } = controller(() => undefined, false);
    c.enqueue('ns/low', LOW_PRIORITY);
    c.enqueue('ns/live');
    c.start();
    await settle();
    assert.deepEqual(seen, ['low', 'live']);
    await c.stop(100);
  });

  it(
    'the builder enqueues initial-list and unchanged (resync) events at LOW_PRIORITY, live changes at normal',
    { timeout: 10_000 },
    async () => {
      const server = new FakeApiServer().register(Thing);
      const client = new ResourceClient(server.transport(), Thing);
      for (const name of ['a', 'b']) await client.create({ metadata: { name, namespace: 'ns' } });
      const cache = new InformerCache(server.transport(), { logger: quiet, resyncMs: 20 });
      const enqueued: { key: string; priority: number | undefined }[] = [];
      const stub = { enqueue: (key: string, priority?: number) => void enqueued.push({ key, priority }) };
      const host: BuilderHost = {
        cache,
        register: () => undefined,
        newController: () => stub as unknown as Controller<never>,
      };
      new ControllerBuilder(host, 'things').for(Thing).complete({ reconcile: async () => undefined });
      cache.start();
      await cache.waitForSync();
      assert.deepEqual(
        enqueued.splice(0).sort((x, y) => x.key.localeCompare(y.key)),
        [
          { key: 'ns/a', priority: LOW_PRIORITY },
          { key: 'ns/b', priority: LOW_PRIORITY },
        ],
      );
      const pending = (what: (e: (typeof enqueued)[number]) => boolean) =>
        new Promise<void>((resolve) => {
          const poll = (): void => (enqueued.some(what) ? resolve() : void setImmediate(poll));
          poll();
        });
      await client.create({ metadata: { name: 'c', namespace: 'ns' } });
      await pending((e) => e.key === 'ns/c');
      assert.deepEqual(
        enqueued.filter((e) => e.key === 'ns/c'),
        [{ key: 'ns/c', priority: undefined }],
        'a live create is normal priority',
      );
      const a = (await client.get({ namespace: 'ns', name: 'a' }))!;
      await client.replace({ ...a, metadata: { ...a.metadata, labels: { x: 'y' } } });
      await pending((e) => e.key === 'ns/a' && e.priority === undefined);
      // The resync (every 20 ms) re-delivers unchanged objects: low priority.
      await pending((e) => e.key === 'ns/b' && e.priority === LOW_PRIORITY);
      await cache.stop();
    },
  );
});
