import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { FakeClock } from '../../../src/runtime/clock.ts';
import { ItemExponentialFailureRateLimiter } from '../../../src/runtime/rate-limiter.ts';
import { LOW_PRIORITY, WorkQueue, type QueueMetrics } from '../../../src/runtime/workqueue.ts';
import { assertFloor, assertProperty, fuzzRuns } from '../../helpers/fuzz-runs.ts';
import { ReferenceWorkQueue } from '../../helpers/reference-workqueue.ts';

/**
 * The queue keeps each item's state in one record (dirty, priority, level slot, processing,
 * timestamps, delayed add) where it had six maps. Checked against the previous implementation
 * (test/helpers/reference-workqueue.ts) on random sequences of every operation, a fake clock on
 * each side: the same items handed out in the same order, the same lengths and priorities, the
 * same metric callbacks with the same values; and no record left behind once an item is done.
 */
const KEYS = ['a', 'b', 'c', 'd', 'e'];
const PRIORITIES = [LOW_PRIORITY, 0, 10];

type Op =
  | { op: 'add'; key: string; priority: number }
  | { op: 'addAfter'; key: string; ms: number; priority: number }
  | { op: 'addRateLimited'; key: string; priority: number }
  | { op: 'forget'; key: string }
  | { op: 'get' }
  | { op: 'done'; pick: number }
  | { op: 'step'; ms: number };

const key = fc.constantFrom(...KEYS);
const priority = fc.constantFrom(...PRIORITIES);
const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 5, arbitrary: fc.record({ op: fc.constant('add' as const), key, priority }) },
  {
    weight: 2,
    arbitrary: fc.record({
      op: fc.constant('addAfter' as const),
      key,
      ms: fc.constantFrom(-1, 0, 3, 7.5, 20),
      priority,
    }),
  },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('addRateLimited' as const), key, priority }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('forget' as const), key }) },
  { weight: 4, arbitrary: fc.record({ op: fc.constant('get' as const) }) },
  { weight: 3, arbitrary: fc.record({ op: fc.constant('done' as const), pick: fc.nat(10) }) },
  {
    weight: 2,
    arbitrary: fc.record({ op: fc.constant('step' as const), ms: fc.constantFrom(0.25, 1, 4.5, 30) }),
  },
);

interface Queue {
  add(item: string, priority?: number): void;
  addAfter(item: string, ms: number, priority?: number): void;
  addRateLimited(item: string, priority?: number): void;
  forget(item: string): void;
  numRequeues(item: string): number;
  priorityOf(item: string): number | undefined;
  get(): Promise<string | undefined>;
  done(item: string): void;
  shutDownWithDrain(): Promise<void>;
  readonly length: number;
}

/** One side: its queue, its clock, and a trace of everything observable. */
function side(make: (o: { clock: FakeClock; metrics: QueueMetrics; maxSkips: number }) => Queue): {
  q: Queue;
  clock: FakeClock;
  trace: string[];
  processing: string[];
} {
  const clock = new FakeClock(1_000_000);
  const trace: string[] = [];
  const metrics: QueueMetrics = {
    depth: (n) => trace.push(`depth ${n}`),
    add: () => trace.push('add'),
    latency: (s) => trace.push(`latency ${s}`),
    workDuration: (s) => trace.push(`work ${s}`),
    retry: () => trace.push('retry'),
  };
  return { q: make({ clock, metrics, maxSkips: 2 }), clock, trace, processing: [] };
}

async function run(ops: readonly Op[], s: ReturnType<typeof side>): Promise<void> {
  const { q, clock, trace, processing } = s;
  const took = (item: string | undefined): void => {
    trace.push(`got ${item} at ${item === undefined ? '-' : q.priorityOf(item)}`);
    if (item !== undefined) processing.push(item);
  };
  for (const o of ops) {
    switch (o.op) {
      case 'add':
        q.add(o.key, o.priority);
        break;
      case 'addAfter':
        q.addAfter(o.key, o.ms, o.priority);
        break;
      case 'addRateLimited':
        q.addRateLimited(o.key, o.priority);
        trace.push(`requeues ${o.key} ${q.numRequeues(o.key)}`);
        break;
      case 'forget':
        q.forget(o.key);
        break;
      case 'get':
        // A get on an empty queue waits; a later add hands it the item.
        void q.get().then(took);
        break;
      case 'done': {
        if (processing.length === 0) break;
        const [item] = processing.splice(o.pick % processing.length, 1);
        q.done(item as string);
        break;
      }
      case 'step':
        clock.step(o.ms);
        break;
    }
    await Promise.resolve();
    await Promise.resolve();
    trace.push(`length ${q.length}`);
  }
  // Done with everything handed out (a done may hand its item, added again meanwhile, to a waiting get).
  while (processing.length > 0) {
    for (const item of processing.splice(0)) q.done(item);
    await Promise.resolve();
    await Promise.resolve();
  }
  const drained = await Promise.race([
    q.shutDownWithDrain().then(() => true),
    new Promise<boolean>((resolve) => setImmediate(() => resolve(false))),
  ]);
  trace.push(`drained ${drained}`);
  await Promise.resolve();
  trace.push(`end length ${q.length}`);
}

describe('WorkQueue against the previous implementation', () => {
  it('hands out the same items, priorities and metrics for any sequence of operations', async (t) => {
    let raised = 0;
    let readdedWhileProcessing = 0;
    const runs = fuzzRuns(300, 3000);
    await assertProperty(
      t,
      fc.asyncProperty(fc.array(opArb, { minLength: 5, maxLength: 60, size: 'medium' }), async (ops) => {
        const now = side(
          (o) => new WorkQueue<string>({ ...o, rateLimiter: new ItemExponentialFailureRateLimiter(5, 1000) }),
        );
        const before = side(
          (o) =>
            new ReferenceWorkQueue<string>({
              ...o,
              rateLimiter: new ItemExponentialFailureRateLimiter(5, 1000),
            }),
        );
        await run(ops, now);
        await run(ops, before);
        assert.deepEqual(now.trace, before.trace);
        // After the shutdown only the items still waiting have a record.
        assert.equal((now.q as WorkQueue<string>).tracked, now.q.length, 'a record was left behind');
        // The branches the restructure could get wrong: a waiting item raised to a higher level, an
        // item added again while a worker holds it.
        if (
          ops.some(
            (o, i) =>
              o.op === 'add' &&
              ops.slice(0, i).some((p) => p.op === 'add' && p.key === o.key && p.priority < o.priority),
          )
        )
          raised++;
        if (
          now.trace.some(
            (line, i) => line === 'add' && now.trace.slice(0, i).some((l) => l.startsWith('got ')),
          )
        )
          readdedWhileProcessing++;
      }),
      runs,
    );
    assertFloor(t, 'added a key again at a higher priority', raised, runs / 4);
    assertFloor(t, 'added after a hand-out', readdedWhileProcessing, runs / 4);
  });
});

describe('WorkQueue records', () => {
  it('drops an item’s record once it is done, its delay fired or the queue shut down', async () => {
    const clock = new FakeClock(0);
    const q = new WorkQueue<string>({ clock });
    q.add('a');
    q.add('a', 5);
    assert.equal(q.tracked, 1);
    const a = await q.get();
    q.add('a'); // dirty again while processing
    q.done(a!);
    assert.equal(q.tracked, 1, 'queued again');
    q.done((await q.get())!);
    assert.equal(q.tracked, 0);
    q.addAfter('b', 10);
    assert.equal(q.tracked, 1, 'a delayed add is remembered');
    clock.step(10);
    q.done((await q.get())!);
    assert.equal(q.tracked, 0);
    q.addAfter('c', 10);
    q.shutDown();
    assert.equal(q.tracked, 0, 'a delayed add dropped by shutDown');
    assert.equal(clock.waiting, 0);
  });
});
