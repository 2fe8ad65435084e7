import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FakeClock } from '../../../../src/runtime/clock.ts';
import { createLogger } from '../../../../src/runtime/logger.ts';
import { metricValue, Registry } from '../../../../src/runtime/metrics.ts';
import type { MemberClaims, MemberRecord, MemberStore } from '../../../../src/runtime/sharding/membership.ts';
import { shardMetrics } from '../../../../src/runtime/sharding/metrics.ts';
import { ShardRing } from '../../../../src/runtime/sharding/ring.ts';

/**
 * Cases that kill the mutants of the shard ring that ring.test.ts lets survive
 * (`npm run test:mutation -- shard-ring`; reports/mutation/shard-ring.json): defaults and option
 * messages, the metrics of a handoff and a fence, listeners, a member of another slot count.
 */
const quiet = createLogger({ level: 'error', write: () => {} });

/** One member's view of the Leases: its own record plus `others`, written as given. */
class Store implements MemberStore {
  down = false;
  removed = false;
  readonly writes: MemberClaims[] = [];
  others: MemberRecord[] = [];
  write(claims: MemberClaims): Promise<void> {
    if (this.down) return Promise.reject(new Error('connection refused'));
    this.writes.push(claims);
    return Promise.resolve();
  }
  list(): Promise<MemberRecord[]> {
    if (this.down) return Promise.reject(new Error('connection refused'));
    const own = this.writes.at(-1);
    const mine: MemberRecord[] = own
      ? [{ ...own, name: `lease-${own.identity}`, version: String(this.writes.length) }]
      : [];
    return Promise.resolve([...mine, ...this.others]);
  }
  remove(): Promise<void> {
    this.removed = true;
    return Promise.resolve();
  }
}

function ring(store: Store, clock: FakeClock, registry?: Registry, slots = 8): ShardRing {
  return new ShardRing(store, {
    ring: 'r',
    identity: 'me',
    slots,
    logger: quiet,
    clock,
    leaseDurationMs: 15_000,
    renewDeadlineMs: 10_000,
    retryPeriodMs: 2_000,
    ...(registry ? { metrics: shardMetrics(registry) } : {}),
  });
}

test('defaults: 256 slots, 15 s lease, 10 s renew deadline, 2 s retry period; unknown slots are idle', () => {
  const r = new ShardRing(new Store(), { ring: 'r', identity: 'me', logger: quiet });
  assert.deepEqual(
    [r.slots, r.leaseDurationMs, r.renewDeadlineMs, r.retryPeriodMs],
    [256, 15_000, 10_000, 2_000],
  );
  assert.equal(r.stateOf(9999), 'idle');
  assert.equal(r.fenced, true, 'fenced until the first renewal');
  assert.throws(
    () =>
      new ShardRing(new Store(), {
        ring: 'r',
        identity: 'x',
        logger: quiet,
        leaseDurationMs: 5000,
        renewDeadlineMs: 5000,
      }),
    /^Error: sharding: renewDeadlineMs \(5000\) must be below leaseDurationMs \(5000\)$/,
  );
  assert.throws(
    () =>
      new ShardRing(new Store(), {
        ring: 'r',
        identity: 'x',
        logger: quiet,
        renewDeadlineMs: 2000,
        retryPeriodMs: 2000,
      }),
    /^Error: sharding: retryPeriodMs \(2000\) must be below renewDeadlineMs \(2000\)$/,
  );
});

test('a lone member claims, activates, reports and hands every slot back on stop', async () => {
  const clock = new FakeClock(1_000_000);
  const registry = new Registry();
  const store = new Store();
  const r = ring(store, clock, registry);
  const events: string[] = [];
  r.addListener({
    onAcquired: (s) => events.push(`acquired ${s.join(',')}`),
    onReleased: (s) => events.push(`released ${s.join(',')}`),
    onRound: () => events.push('round'),
  });
  await r.tick();
  assert.deepEqual(store.writes.at(-1)?.pending, [0, 1, 2, 3, 4, 5, 6, 7], 'first round: pending claims');
  assert.equal(r.stateOf(0), 'pending');
  await r.tick();
  assert.deepEqual(store.writes.at(-1)?.active, [0, 1, 2, 3, 4, 5, 6, 7]);
  assert.deepEqual(store.writes.at(-1)?.pending, []);
  assert.deepEqual(r.activeSlots(), [0, 1, 2, 3, 4, 5, 6, 7]);
  assert.deepEqual(r.members, ['me']);
  assert.deepEqual(events, ['round', 'acquired 0,1,2,3,4,5,6,7', 'round']);
  const labels = { ring: 'r' };
  assert.equal(await metricValue(registry.gauge('shard_ring_members', ''), labels), 1);
  assert.equal(await metricValue(registry.gauge('shard_owned_slots', ''), labels), 8);
  assert.equal(await metricValue(registry.gauge('shard_owned_ranges', ''), labels), 1);
  assert.equal(
    await metricValue(registry.counter('shard_handoffs_total', ''), { ...labels, direction: 'acquired' }),
    8,
  );
  assert.equal(r.tryBegin(3), true);
  r.end(3);
  await r.stop();
  assert.equal(store.removed, true);
  assert.equal(events.at(-1), 'released 0,1,2,3,4,5,6,7');
  assert.deepEqual(r.heldSlots(), []);
  assert.equal(
    await metricValue(registry.counter('shard_handoffs_total', ''), { ...labels, direction: 'released' }),
    8,
  );
});

test('fencing at the renew deadline: nothing admitted, every slot released once, counted', async () => {
  const clock = new FakeClock(1_000_000);
  const registry = new Registry();
  const store = new Store();
  const r = ring(store, clock, registry);
  const released: number[][] = [];
  r.addListener({ onReleased: (s) => released.push([...s]) });
  await r.tick();
  await r.tick();
  store.down = true;
  clock.step(9_999);
  assert.equal(r.fenced, false, 'one ms before the deadline');
  assert.equal(r.tryBegin(0), true);
  r.end(0);
  clock.step(1);
  assert.equal(r.fenced, true, 'at the deadline');
  assert.equal(r.tryBegin(0), false);
  assert.deepEqual(released, [[0, 1, 2, 3, 4, 5, 6, 7]]);
  assert.equal(r.tryBegin(1), false);
  await r.tick();
  assert.deepEqual(released.length, 1, 'fenced once');
  assert.equal(await metricValue(registry.counter('shard_fenced_total', ''), { ring: 'r' }), 1);
  assert.equal(await metricValue(registry.gauge('shard_owned_slots', ''), { ring: 'r' }), 0);
});

test('a draining slot is released once its last reconcile ends', async () => {
  const clock = new FakeClock(1_000_000);
  const store = new Store();
  const r = ring(store, clock, undefined, 2);
  await r.tick();
  await r.tick();
  assert.deepEqual(r.activeSlots(), [0, 1]);
  assert.equal(r.tryBegin(0), true);
  assert.equal(r.tryBegin(0), true);
  // A second member joins and is assigned some slots.
  store.others = [
    {
      identity: 'zz-other',
      leaseDurationMs: 15_000,
      slots: 2,
      active: [],
      pending: [],
      name: 'lease-zz',
      version: '1',
    },
  ];
  await r.tick();
  // assignSlots(['me', 'zz-other'], 2) gives slot 0 to zz-other: it drains while two reconciles run.
  assert.equal(r.stateOf(0), 'draining');
  assert.equal(r.stateOf(1), 'active');
  assert.deepEqual(r.heldSlots(), [0, 1]);
  assert.deepEqual(r.activeSlots(), [1]);
  assert.equal(r.tryBegin(0), false, 'no new reconcile of a draining slot');
  r.end(0);
  await r.tick();
  assert.equal(r.stateOf(0), 'draining', 'one reconcile still runs');
  r.end(0);
  r.end(0);
  await r.tick();
  assert.equal(r.stateOf(0), 'idle');
  assert.deepEqual(store.writes.at(-1)?.active, [1]);
});

test('a member of another slot count stops this one from taking new slots', async () => {
  const clock = new FakeClock(1_000_000);
  const store = new Store();
  store.others = [
    {
      identity: 'other',
      leaseDurationMs: 15_000,
      slots: 16,
      active: [],
      pending: [],
      name: 'lease-other',
      version: '1',
    },
  ];
  const r = ring(store, clock);
  await r.tick();
  await r.tick();
  assert.deepEqual(r.activeSlots(), []);
  assert.deepEqual(store.writes.at(-1)?.pending, []);
});
