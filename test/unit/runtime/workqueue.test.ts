import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FakeClock } from '../../../src/runtime/clock.ts';
import { ItemExponentialFailureRateLimiter } from '../../../src/runtime/rate-limiter.ts';
import { WorkQueue, type QueueMetrics } from '../../../src/runtime/workqueue.ts';

function queue(clock = new FakeClock()): { q: WorkQueue<string>; clock: FakeClock } {
  return {
    q: new WorkQueue<string>({ clock, rateLimiter: new ItemExponentialFailureRateLimiter(5, 1000) }),
    clock,
  };
}

describe('WorkQueue', () => {
  it('deduplicates an item added twice while queued, and keeps FIFO order', async () => {
    const { q } = queue();
    q.add('a');
    q.add('b');
    q.add('a');
    assert.equal(q.length, 2);
    assert.equal(await q.get(), 'a');
    assert.equal(await q.get(), 'b');
  });

  it('never hands the same item to two workers: a re-add while processing waits for done()', async () => {
    const { q } = queue();
    q.add('a');
    const first = await q.get();
    q.add('a');
    assert.equal(q.length, 0, 'not queued while a worker has it');
    let second: string | undefined;
    void q.get().then((v) => (second = v));
    await Promise.resolve();
    assert.equal(second, undefined);
    q.done(first!);
    await Promise.resolve();
    assert.equal(second, 'a', 'handed out again after done()');
  });

  it('wakes a waiting worker on add', async () => {
    const { q } = queue();
    const p = q.get();
    q.add('x');
    assert.equal(await p, 'x');
  });

  it('addAfter delivers at the earliest requested time', async () => {
    const { q, clock } = queue();
    q.addAfter('a', 100);
    q.addAfter('a', 50);
    q.addAfter('a', 80);
    clock.step(49);
    assert.equal(q.length, 0);
    clock.step(1);
    assert.equal(q.length, 1);
    clock.step(100);
    assert.equal(q.length, 1, 'the later timers were dropped');
  });

  it('addRateLimited backs off exponentially per item until forget', () => {
    const { q, clock } = queue();
    q.addRateLimited('a');
    q.addRateLimited('a');
    assert.equal(q.numRequeues('a'), 2);
    clock.step(4);
    assert.equal(q.length, 0);
    clock.step(1);
    assert.equal(q.length, 1, 'the earliest (5 ms) retry wins');
    q.forget('a');
    assert.equal(q.numRequeues('a'), 0);
  });

  it('shutDown releases waiting workers with undefined and drops delayed adds', async () => {
    const { q, clock } = queue();
    const p = q.get();
    q.addAfter('late', 10);
    q.shutDown();
    assert.equal(await p, undefined);
    clock.step(100);
    assert.equal(q.length, 0);
    q.add('after');
    assert.equal(q.length, 0, 'no intake after shutdown');
  });

  it('shutDownWithDrain resolves when in-flight items are done', async () => {
    const { q } = queue();
    q.add('a');
    const item = await q.get();
    let drained = false;
    const p = q.shutDownWithDrain().then(() => (drained = true));
    await Promise.resolve();
    assert.equal(drained, false);
    q.done(item!);
    await p;
    assert.equal(drained, true);
  });

  it('reports depth, adds, latency, work duration and retries', async () => {
    const clock = new FakeClock();
    const seen = {
      depth: [] as number[],
      adds: 0,
      latency: [] as number[],
      work: [] as number[],
      retries: 0,
    };
    const metrics: QueueMetrics = {
      depth: (n) => seen.depth.push(n),
      add: () => seen.adds++,
      latency: (s) => seen.latency.push(s),
      workDuration: (s) => seen.work.push(s),
      retry: () => seen.retries++,
    };
    const q = new WorkQueue<string>({
      clock,
      metrics,
      rateLimiter: new ItemExponentialFailureRateLimiter(5, 1000),
    });
    q.add('a');
    q.add('a');
    clock.step(2000);
    const item = await q.get();
    clock.step(500);
    q.done(item!);
    q.addRateLimited('a');
    assert.equal(seen.adds, 2);
    assert.deepEqual(seen.latency, [2]);
    assert.deepEqual(seen.work, [0.5]);
    assert.equal(seen.retries, 1);
    assert.deepEqual(seen.depth, [1, 0]);
  });
});
