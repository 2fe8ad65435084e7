import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FakeClock } from '../../../../src/runtime/clock.ts';
import { createLogger } from '../../../../src/runtime/logger.ts';
import { metricValue, Registry } from '../../../../src/runtime/metrics.ts';
import type { MemberClaims, MemberRecord, MemberStore } from '../../../../src/runtime/sharding/membership.ts';
import { shardMetrics } from '../../../../src/runtime/sharding/metrics.ts';
import { assignSlots, claimWeight } from '../../../../src/runtime/sharding/assignment.ts';
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

// ---------------------------------------------------------------------------------------------
// Second pass (mutation run of 69.21 %): contention between two pending claims, the start/stop
// loop, time-outs, log lines that must appear once, and the handoff metrics.

/** Log lines of a ring, parsed (info and above). */
function recorder(): { lines: Record<string, unknown>[]; logger: ReturnType<typeof createLogger> } {
  const lines: Record<string, unknown>[] = [];
  const logger = createLogger({
    level: 'info',
    write: (l) => void lines.push(JSON.parse(l) as Record<string, unknown>),
  });
  return { lines, logger };
}

/** A store whose writes or reads can fail or hang on demand, and which records removeStale calls. */
class ControlledStore extends Store {
  writeFails = false;
  listFails = false;
  /** When set, the next write or list waits for this promise. */
  hold: Promise<void> | undefined;
  readonly staleRemoved: string[] = [];
  override async write(claims: MemberClaims): Promise<void> {
    if (this.hold) await this.hold;
    if (this.writeFails) throw new Error('write refused');
    return super.write(claims);
  }
  override async list(): Promise<MemberRecord[]> {
    if (this.hold) await this.hold;
    if (this.listFails) throw new Error('list refused');
    return super.list();
  }
  removeStale(name: string): Promise<void> {
    this.staleRemoved.push(name);
    return Promise.resolve();
  }
}

function other(identity: string, claims: Partial<MemberRecord> = {}): MemberRecord {
  return {
    identity,
    leaseDurationMs: 15_000,
    slots: 8,
    active: [],
    pending: [],
    name: `lease-${identity}`,
    version: '1',
    ...claims,
  };
}

/** Lets every queued promise callback and timer-free continuation run. */
async function settle(): Promise<void> {
  for (let i = 0; i < 20; i++) await new Promise<void>((resolve) => setImmediate(resolve));
}

function mineOf(members: string[], slots: number, me = 'me'): number[] {
  return assignSlots(members, slots).flatMap((o, s) => (o === me ? [s] : []));
}

test('log lines: the members once per change, a slot-count disagreement once, each with ring and identity', async () => {
  const clock = new FakeClock(1_000_000);
  const store = new Store();
  const { lines, logger } = recorder();
  const r = new ShardRing(store, { ring: 'r', identity: 'me', slots: 8, logger, clock });
  assert.deepEqual(r.members, [], 'no members before the first round');
  const count = (msg: string): number => lines.filter((l) => l.msg === msg).length;
  await r.tick();
  await r.tick();
  assert.equal(count('shard ring members'), 1, 'the first round only');
  // 'alpha' sorts before 'me': the comparison must not depend on the order members are listed in.
  store.others = [other('alpha')];
  await r.tick();
  await r.tick();
  await r.tick();
  assert.equal(count('shard ring members'), 2, 'once more when alpha joined');
  assert.deepEqual(r.members, ['me', 'alpha'], 'this member first, then the others as read');
  assert.equal(count('ring members disagree on the slot count; taking no new slots until they agree'), 0);
  store.others = [other('alpha'), other('wide', { slots: 16 })];
  await r.tick();
  await r.tick();
  assert.equal(count('ring members disagree on the slot count; taking no new slots until they agree'), 1);
  assert.ok(lines.length > 0);
  for (const l of lines) assert.deepEqual([l.ring, l.identity], ['r', 'me']);
});

test('two pending claims on one slot: the heavier claim keeps it, the lighter one withdraws; an active claim blocks promotion', async () => {
  const clock = new FakeClock(1_000_000);
  const store = new Store();
  const r = ring(store, clock);
  // 'peer' sorts after 'me', so a tie-break by name alone would let it win every slot; with 8
  // slots, slot 2 is assigned here although peer's claim weight on it is higher (bounded loads).
  store.others = [other('peer')];
  const mine = mineOf(['me', 'peer'], 8);
  await r.tick();
  assert.deepEqual(store.writes.at(-1)?.pending, mine, 'only the slots assigned here are claimed');
  const lost = mine.filter((s) => claimWeight('peer', s) > claimWeight('me', s));
  const won = mine.filter((s) => claimWeight('peer', s) < claimWeight('me', s));
  assert.ok(lost.length > 0 && won.length > 0, `a slot of each kind (lost ${lost}, won ${won})`);
  // 'peer' claims every slot pending at the same time (slots 8 and 99 are out of range: ignored).
  store.others = [other('peer', { pending: [0, 1, 2, 3, 4, 5, 6, 7, 8, 99], active: [8, 99], version: '2' })];
  const writes = store.writes.length;
  await r.tick();
  for (const s of lost) assert.equal(r.stateOf(s), 'idle', `slot ${s}: the heavier claim of peer wins`);
  for (const s of won) assert.equal(r.stateOf(s), 'pending', `slot ${s}: kept, not yet promoted`);
  assert.equal(store.writes.length, writes + 2, 'the withdrawal is written in the same round');
  assert.deepEqual(store.writes.at(-1)?.pending, won);
  assert.deepEqual(store.writes.at(-1)?.active, []);
  // peer withdrew its pending claims but still holds won[0] active (it drains it): not promoted.
  store.others = [other('peer', { active: [won[0]!], version: '3' })];
  await r.tick();
  assert.equal(r.stateOf(won[0]!), 'pending', 'an active claim elsewhere blocks promotion');
  for (const s of won.slice(1)) assert.equal(r.stateOf(s), 'active');
  store.others = [other('peer', { version: '4' })];
  await r.tick();
  assert.deepEqual(r.activeSlots(), mine, 'the lost slot was claimed again once peer withdrew');
});

test('start runs a round at once and then one per retry period; stop ends the loop, leaves idle and stays left', async () => {
  const clock = new FakeClock(1_000_000);
  const store = new Store();
  const r = ring(store, clock);
  let rounds = 0;
  r.addListener({ onRound: () => rounds++ });
  await r.start();
  assert.equal(rounds, 1);
  await r.start();
  assert.equal(rounds, 1, 'a second start does nothing');
  assert.equal(clock.waiting, 1, 'only the loop timer waits (the lease write timers were cleared)');
  clock.step(1_999);
  await settle();
  assert.equal(rounds, 1);
  clock.step(1);
  await settle();
  assert.equal(rounds, 2);
  clock.step(2_000);
  await settle();
  assert.equal(rounds, 3);
  assert.deepEqual(r.activeSlots(), [0, 1, 2, 3, 4, 5, 6, 7]);
  await r.stop();
  assert.equal(clock.waiting, 0, 'the loop timer is cleared on stop');
  assert.equal(r.stateOf(0), 'idle');
  clock.step(10_000);
  await settle();
  assert.equal(rounds, 3, 'no round after stop');
  const writes = store.writes.length;
  await r.tick();
  assert.equal(store.writes.length, writes, 'a round after stop writes nothing');
});

test('the last reconcile of a draining slot wakes the loop at once; the end of an active one does not', async () => {
  const clock = new FakeClock(1_000_000);
  const store = new Store();
  const r = ring(store, clock, undefined, 2);
  let rounds = 0;
  const released: number[][] = [];
  r.addListener({ onRound: () => rounds++, onReleased: (s) => released.push([...s]) });
  await r.start();
  clock.step(2_000);
  await settle();
  assert.deepEqual(r.activeSlots(), [0, 1]);
  assert.equal(r.tryBegin(0), true);
  assert.equal(r.tryBegin(1), true);
  r.end(1);
  await settle();
  assert.equal(rounds, 2, 'ending a reconcile of an active slot runs no round');
  store.others = [other('zz-other', { slots: 2 })];
  clock.step(2_000);
  await settle();
  assert.equal(r.stateOf(0), 'draining');
  assert.equal(rounds, 3);
  r.end(0);
  await settle();
  assert.equal(rounds, 4, 'a round without waiting for the retry period');
  assert.equal(r.stateOf(0), 'idle');
  assert.deepEqual(released, [[0]]);
  assert.equal(clock.waiting, 1, 'the timer of the woken wait was cleared');
  await r.stop();
});

test('a lease write or a read that hangs times out at the renew deadline, a failed one ends the round; both logged', async () => {
  const clock = new FakeClock(1_000_000);
  const store = new ControlledStore();
  const { lines, logger } = recorder();
  const r = new ShardRing(store, { ring: 'r', identity: 'me', slots: 8, logger, clock });
  let release!: () => void;
  store.hold = new Promise<void>((resolve) => (release = resolve));
  const round = r.tick();
  await settle();
  clock.step(10_000);
  await round;
  assert.equal(r.stateOf(0), 'idle');
  assert.equal(clock.waiting, 0);
  const errorOf = (msg: string): unknown =>
    (lines.find((l) => l.msg === msg)?.error as { message?: unknown } | undefined)?.message;
  assert.equal(
    errorOf('renewing the member lease failed'),
    'renewing the member lease took longer than 10000 ms',
  );
  release();
  store.hold = undefined;
  // The write succeeds, the read hangs.
  let releaseList!: () => void;
  const listHold = new Promise<void>((resolve) => (releaseList = resolve));
  const list = store.list.bind(store);
  store.list = async () => {
    await listHold;
    return list();
  };
  const second = r.tick();
  await settle();
  clock.step(10_000);
  await second;
  assert.equal(errorOf('reading the shard ring failed'), 'reading the ring took longer than 10000 ms');
  assert.equal(r.stateOf(0), 'idle');
  releaseList();
  store.list = list;
  // A refused write: the round stops there, nothing is claimed even though the read would work.
  store.writeFails = true;
  await r.tick();
  assert.equal(r.stateOf(0), 'idle');
  store.writeFails = false;
  store.listFails = true;
  await r.tick();
  assert.equal(r.stateOf(0), 'idle', 'a refused read ends the round');
  store.listFails = false;
  await r.tick();
  assert.equal(r.stateOf(0), 'pending');
});

test('stop while a read is in flight: the round ends without claiming', async () => {
  const clock = new FakeClock(1_000_000);
  const store = new ControlledStore();
  const r = ring(store, clock);
  let release!: () => void;
  const hold = new Promise<void>((resolve) => (release = resolve));
  const list = store.list.bind(store);
  store.list = async () => {
    await hold;
    return list();
  };
  const round = r.tick();
  await settle();
  const writes = store.writes.length;
  const stopping = r.stop();
  release();
  await round;
  await stopping;
  assert.equal(store.writes.length, writes, 'no claim written after stop');
  assert.equal(store.removed, true);
});

test('liveness: a record is live for less than a lease duration, observed anew when it comes back, deleted after more than ten', async () => {
  const clock = new FakeClock(1_000_000);
  const store = new ControlledStore();
  const r = ring(store, clock);
  store.others = [other('alpha')];
  await r.tick();
  // The record vanishes, then a record of the same name and version appears again: observed anew,
  // not judged by the observation from before it vanished.
  store.others = [];
  clock.step(5_000);
  await r.tick();
  clock.step(11_000);
  store.others = [other('alpha')];
  await r.tick();
  assert.deepEqual(r.members, ['me', 'alpha']);
  clock.step(14_999);
  await r.tick();
  assert.deepEqual(r.members, ['me', 'alpha']);
  clock.step(1);
  await r.tick();
  assert.deepEqual(r.members, ['me'], 'unchanged for exactly one lease duration: gone');
  clock.step(150_000 - 15_000);
  await r.tick();
  assert.deepEqual(store.staleRemoved, [], 'exactly ten lease durations: not deleted yet');
  clock.step(1);
  await r.tick();
  assert.deepEqual(store.staleRemoved, ['lease-alpha']);
});

test('the assignment follows the member names, not a concatenation of them', async () => {
  const clock = new FakeClock(1_000_000);
  const store = new Store();
  const r = ring(store, clock);
  store.others = [other('x'), other('yz')];
  await r.tick();
  const before = mineOf(['me', 'x', 'yz'], 8);
  const after = mineOf(['me', 'xy', 'z'], 8);
  assert.notDeepEqual(before, after, 'the two member sets assign differently');
  store.others = [other('xy'), other('z')];
  await r.tick();
  const last = store.writes.at(-1)!;
  assert.deepEqual(
    [...last.active, ...last.pending].sort((a, b) => a - b),
    after,
  );
});

test('handoff bookkeeping: one write per quiet round, no spurious listener calls, a returned slot is active again', async () => {
  const clock = new FakeClock(1_000_000);
  const registry = new Registry();
  const store = new Store();
  const r = ring(store, clock, registry, 2);
  const acquired: number[][] = [];
  r.addListener({ onAcquired: (s) => acquired.push([...s]) }); // no onReleased
  await r.tick();
  await r.tick();
  assert.deepEqual(acquired, [[0, 1]]);
  const writes = store.writes.length;
  await r.tick();
  assert.equal(store.writes.length, writes + 1, 'a round with nothing to hand over renews once');
  assert.deepEqual(acquired, [[0, 1]], 'no acquisition in a quiet round');
  assert.equal(r.tryBegin(0), true);
  store.others = [other('zz-other', { slots: 2 })];
  await r.tick();
  assert.equal(r.stateOf(0), 'draining');
  assert.equal(await metricValue(registry.gauge('shard_ring_members', ''), { ring: 'r' }), 2);
  // zz-other leaves before the reconcile ended: slot 0 is this member's again.
  store.others = [];
  await r.tick();
  assert.equal(r.stateOf(0), 'active');
  assert.equal(await metricValue(registry.gauge('shard_ring_members', ''), { ring: 'r' }), 1);
  r.end(0);
  store.others = [other('zz-other', { slots: 2, version: '2' })];
  await r.tick();
  assert.equal(r.stateOf(0), 'idle', 'released at once, no listener of releases needed');
  assert.equal(
    await metricValue(registry.counter('shard_handoffs_total', ''), { ring: 'r', direction: 'released' }),
    1,
  );
});

test('fencing: pending claims alone count as a fence; no acquisition reported; works without metrics', async () => {
  const clock = new FakeClock(1_000_000);
  const registry = new Registry();
  const store = new Store();
  const r = ring(store, clock, registry);
  await r.tick();
  assert.equal(r.stateOf(0), 'pending');
  store.down = true;
  clock.step(10_000);
  await r.tick();
  assert.equal(r.stateOf(0), 'idle');
  assert.equal(await metricValue(registry.counter('shard_fenced_total', ''), { ring: 'r' }), 1);

  const bare = ring(new Store(), new FakeClock(1_000_000));
  const clock2 = new FakeClock(1_000_000);
  const store2 = new Store();
  const plain = ring(store2, clock2);
  const acquired: number[][] = [];
  plain.addListener({ onAcquired: (s) => acquired.push([...s]) });
  await plain.tick();
  await plain.tick();
  store2.down = true;
  clock2.step(10_000);
  assert.equal(plain.tryBegin(0), false);
  assert.deepEqual(plain.heldSlots(), []);
  assert.deepEqual(acquired, [[0, 1, 2, 3, 4, 5, 6, 7]], 'the fence reports no acquisition');
  assert.equal(bare.stateOf(0), 'idle');
});

test('no claim on a slot another member claims; a drain wakes the loop only when its last reconcile ends; no empty handoff series', async () => {
  const clock = new FakeClock(1_000_000);
  const registry = new Registry();
  const store = new Store();
  const r = ring(store, clock, registry, 2);
  store.others = [other('zz-other', { slots: 2, pending: [0, 1] })];
  await r.tick();
  assert.deepEqual(store.writes.at(-1)?.pending, [], 'zz-other claims both slots pending already');
  store.others = [];
  clock.step(15_000);
  await r.start();
  clock.step(2_000);
  await settle();
  assert.deepEqual(r.activeSlots(), [0, 1]);
  const series = async (): Promise<string[]> =>
    (await registry.counter('shard_handoffs_total', '').get()).values.map((v) => String(v.labels.direction));
  assert.deepEqual(await series(), ['acquired'], 'no released series before a release');
  let rounds = 0;
  r.addListener({ onRound: () => rounds++ });
  assert.equal(r.tryBegin(0), true);
  assert.equal(r.tryBegin(0), true);
  store.others = [other('zz-other', { slots: 2, version: '2' })];
  clock.step(2_000);
  await settle();
  assert.equal(r.stateOf(0), 'draining');
  assert.equal(rounds, 1);
  r.end(0);
  await settle();
  assert.equal(rounds, 1, 'one reconcile still runs: no round');
  r.end(0);
  await settle();
  assert.equal(rounds, 2);
  assert.equal(r.stateOf(0), 'idle');
  await r.stop();
});
