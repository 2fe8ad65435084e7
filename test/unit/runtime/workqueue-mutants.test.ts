import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FakeClock } from '../../../src/runtime/clock.ts';
import { BucketRateLimiter, ItemExponentialFailureRateLimiter } from '../../../src/runtime/rate-limiter.ts';
import { WorkQueue, type QueueMetrics } from '../../../src/runtime/workqueue.ts';

/**
 * Cases that kill the mutants workqueue.test.ts and rate-limiter.test.ts let survive
 * (`npm run test:mutation -- workqueue`; reports/mutation/workqueue.json): timers left behind,
 * zero delays, a clock that does not start at 0, drains with two items in flight, the default
 * rate limiter.
 */
function recording(): { metrics: QueueMetrics; latency: number[]; work: number[] } {
  const latency: number[] = [];
  const work: number[] = [];
  return {
    latency,
    work,
    metrics: {
      depth() {},
      add() {},
      latency: (s) => latency.push(s),
      workDuration: (s) => work.push(s),
      retry() {},
    },
  };
}

function queue(clock = new FakeClock(1_000_000), metrics?: QueueMetrics): WorkQueue<string> {
  return new WorkQueue<string>({
    clock,
    rateLimiter: new ItemExponentialFailureRateLimiter(5, 1000),
    ...(metrics ? { metrics } : {}),
  });
}

describe('WorkQueue: delayed adds', () => {
  it('a delay of zero or less adds at once, without a timer', () => {
    const clock = new FakeClock(1_000_000);
    const q = queue(clock);
    q.addAfter('a', 0);
    q.addAfter('b', -5);
    assert.equal(q.length, 2);
    assert.equal(clock.waiting, 0);
  });

  it('an earlier delay replaces the later timer: the item comes once', async () => {
    const clock = new FakeClock(1_000_000);
    const q = queue(clock);
    q.addAfter('a', 100);
    q.addAfter('a', 50);
    assert.equal(clock.waiting, 1, 'the 100 ms timer was cancelled');
    clock.step(50);
    q.done((await q.get())!);
    clock.step(100);
    assert.equal(q.length, 0, 'not added a second time by the cancelled timer');
  });

  it('an item whose delay fired can be delayed again', async () => {
    const clock = new FakeClock(1_000_000);
    const q = queue(clock);
    q.addAfter('a', 10);
    clock.step(10);
    q.done((await q.get())!);
    q.addAfter('a', 10);
    clock.step(10);
    assert.equal(q.length, 1);
  });

  it('shutDown cancels every timer; addAfter after it sets none', () => {
    const clock = new FakeClock(1_000_000);
    const q = queue(clock);
    q.addAfter('a', 10);
    q.addAfter('b', 20);
    q.shutDown();
    assert.equal(clock.waiting, 0);
    q.addAfter('c', 10);
    assert.equal(clock.waiting, 0);
  });
});

describe('WorkQueue: workers and shutdown', () => {
  it('an item handed to a waiting worker is processing: a re-add waits for done()', async () => {
    const q = queue();
    const p = q.get();
    q.add('a');
    assert.equal(await p, 'a');
    q.add('a');
    assert.equal(q.length, 0);
    q.done('a');
    assert.equal(q.length, 1);
  });

  it('an item handed to a waiting worker is no longer dirty: done() without a re-add queues nothing', async () => {
    const r = recording();
    const q = queue(new FakeClock(1_000_000), r.metrics);
    const p = q.get();
    q.add('a');
    assert.equal(await p, 'a');
    q.done('a');
    assert.equal(q.length, 0);
    assert.deepEqual(r.latency, [0]);
    assert.deepEqual(r.work, [0]);
  });

  it('get() after shutDown resolves undefined; isShuttingDown says so', async () => {
    const q = queue();
    assert.equal(q.isShuttingDown, false);
    q.shutDown();
    assert.equal(q.isShuttingDown, true);
    assert.equal(await q.get(), undefined);
  });

  it('shutDownWithDrain shuts down, resolves at once when idle, and waits for the last of two items', async () => {
    const idle = queue();
    await idle.shutDownWithDrain();
    assert.equal(idle.isShuttingDown, true);

    const q = queue();
    q.add('a');
    q.add('b');
    const a = await q.get();
    const b = await q.get();
    let drained = false;
    const p = q.shutDownWithDrain().then(() => (drained = true));
    q.done(a!);
    await Promise.resolve();
    await Promise.resolve();
    assert.equal(drained, false, 'b is still in flight');
    q.done(b!);
    await p;
    assert.equal(drained, true);
  });

  it('keeps FIFO order across the compaction of its backing array', async () => {
    const q = queue();
    for (let i = 0; i < 3000; i++) q.add(`i${i}`);
    for (let i = 0; i < 3000; i++) assert.equal(await q.get(), `i${i}`);
    assert.equal(q.length, 0);
  });
});

describe('WorkQueue: latency and work duration', () => {
  it('latency counts from the first add since the item was last taken, on a clock not at 0', async () => {
    const clock = new FakeClock(1_000_000);
    const r = recording();
    const q = queue(clock, r.metrics);
    q.add('a');
    clock.step(1000);
    q.done((await q.get())!);
    clock.step(10_000);
    q.add('a');
    clock.step(2000);
    await q.get();
    assert.deepEqual(r.latency, [1, 2]);
  });

  it('work duration is reported once per taken item, and not for an item never taken', async () => {
    const clock = new FakeClock(1_000_000);
    const r = recording();
    const q = queue(clock, r.metrics);
    q.done('never-taken');
    q.add('a');
    const a = await q.get();
    clock.step(500);
    q.done(a!);
    q.done(a!);
    assert.deepEqual(r.work, [0.5]);
  });
});

describe('rate limiters', () => {
  it('the default limiter backs off per item from 5 ms', () => {
    const clock = new FakeClock(1_000_000);
    const q = new WorkQueue<string>({ clock });
    q.addRateLimited('a');
    clock.step(4);
    assert.equal(q.length, 0);
    clock.step(1);
    assert.equal(q.length, 1);
  });

  it('the bucket refills at qps tokens per second, also partly, on a clock not at 0', () => {
    const clock = new FakeClock(1_000_000);
    const bucket = new BucketRateLimiter<string>(10, 1, clock);
    assert.equal(bucket.when('a'), 0);
    assert.equal(bucket.when('a'), 100);
    clock.step(50);
    // -1 token + 0.5 refilled - 1 taken = -1.5 tokens: 150 ms.
    assert.equal(bucket.when('a'), 150);
  });
});

describe('priority queue survivors (second mutation run, with main priority queue)', () => {
  async function drainAll(q: WorkQueue<string>): Promise<string[]> {
    const out: string[] = [];
    while (q.length > 0) {
      const item = (await q.get())!;
      out.push(item);
      q.done(item);
    }
    return out;
  }

  it('ages a low priority item after maxSkips (given, and the default 10) higher ones', async () => {
    const one = new WorkQueue<string>({ clock: new FakeClock(), maxSkips: 1 });
    one.add('low', 0);
    for (const h of ['h1', 'h2', 'h3']) one.add(h, 10);
    assert.deepEqual(await drainAll(one), ['h1', 'low', 'h2', 'h3']);
    const byDefault = new WorkQueue<string>({ clock: new FakeClock() });
    byDefault.add('low', 0);
    const highs = Array.from({ length: 12 }, (_, i) => `h${i}`);
    for (const h of highs) byDefault.add(h, 10);
    const order = await drainAll(byDefault);
    assert.equal(order.indexOf('low'), 10, order.join(' '));
  });

  it('an item moved up to a higher priority is handed out once', async () => {
    const q = new WorkQueue<string>({ clock: new FakeClock() });
    q.add('a', 0);
    q.add('b', 0);
    q.add('a', 10);
    assert.deepEqual(await drainAll(q), ['a', 'b']);
  });

  it('raising the priority of an item being processed does not hand it out again before done()', async () => {
    const q = new WorkQueue<string>({ clock: new FakeClock() });
    q.add('a', 0);
    assert.equal(await q.get(), 'a');
    q.add('a', 0); // dirty while processing
    q.add('a', 10); // and raised
    assert.equal(q.length, 0, 'still processing');
    q.done('a');
    assert.equal(q.length, 1);
    assert.equal(await q.get(), 'a');
    assert.equal(q.priorityOf('a'), 10);
  });

  it('addAfter of a waiting item at an earlier time keeps the higher priority of the two', async () => {
    const clock = new FakeClock();
    const q = new WorkQueue<string>({ clock });
    q.addAfter('a', 500, 10);
    q.addAfter('a', 100, 0);
    clock.step(100);
    assert.equal(q.length, 1);
    assert.equal(await q.get(), 'a');
    assert.equal(q.priorityOf('a'), 10);
  });
});

describe('priority queue aging: which levels count a skip', () => {
  it('an empty level counts no skip, so an item arriving there later does not jump the queue', async () => {
    const q = new WorkQueue<string>({ clock: new FakeClock(), maxSkips: 2 });
    q.add('l1', 0);
    assert.equal(await q.get(), 'l1');
    q.done('l1');
    for (const h of ['h1', 'h2', 'h3']) q.add(h, 10);
    const out: string[] = [];
    for (let i = 0; i < 2; i++) out.push((await q.get())!);
    q.add('l2', 0);
    while (q.length > 0) out.push((await q.get())!);
    assert.deepEqual(out, ['h1', 'h2', 'h3', 'l2']);
  });

  it('serving an aged low level counts no skip for the levels above it', async () => {
    const q = new WorkQueue<string>({ clock: new FakeClock(), maxSkips: 1 });
    q.add('low', 0);
    for (const m of ['m1', 'm2']) q.add(m, 10);
    for (const t of ['t1', 't2', 't3']) q.add(t, 20);
    const out: string[] = [];
    while (q.length > 0) out.push((await q.get())!);
    assert.deepEqual(out, ['t1', 'm1', 'low', 't2', 'm2', 't3']);
  });

  it('a level emptied by moving its last item up starts counting skips again from 0', async () => {
    const q = new WorkQueue<string>({ clock: new FakeClock(), maxSkips: 2 });
    q.add('l1', 0);
    for (const h of ['h1', 'h2', 'h3']) q.add(h, 10);
    const out: string[] = [];
    for (let i = 0; i < 2; i++) out.push((await q.get())!);
    q.add('l1', 10); // moved up: level 0 is empty now
    q.add('l2', 0);
    while (q.length > 0) out.push((await q.get())!);
    assert.deepEqual(out, ['h1', 'h2', 'h3', 'l1', 'l2']);
  });
});
