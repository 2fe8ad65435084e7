import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FakeClock } from '../../../../src/runtime/clock.ts';
import { createLogger } from '../../../../src/runtime/logger.ts';
import { metricValue, Registry } from '../../../../src/runtime/metrics.ts';
import { assignSlots } from '../../../../src/runtime/sharding/assignment.ts';
import type { MemberClaims, MemberRecord, MemberStore } from '../../../../src/runtime/sharding/membership.ts';
import { shardMetrics } from '../../../../src/runtime/sharding/metrics.ts';
import { ShardRing } from '../../../../src/runtime/sharding/ring.ts';

const SLOTS = 32;
const TIMINGS = { leaseDurationMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 2_000 };
const quiet = createLogger({ level: 'error', write: () => {} });

/** The API server's Leases, in memory: one record per member, a version bumped on every write. */
class FakeApi {
  readonly records = new Map<string, MemberRecord>();
  private version = 0;
  storeFor(identity: string): FakeStore {
    return new FakeStore(this, identity);
  }
  put(claims: MemberClaims): void {
    this.records.set(claims.identity, {
      ...claims,
      name: `lease-${claims.identity}`,
      version: String(++this.version),
    });
  }
}

class FakeStore implements MemberStore {
  down = false;
  private readonly api: FakeApi;
  private readonly identity: string;
  constructor(api: FakeApi, identity: string) {
    this.api = api;
    this.identity = identity;
  }
  write(claims: MemberClaims): Promise<void> {
    if (this.down) return Promise.reject(new Error('connection refused'));
    this.api.put(claims);
    return Promise.resolve();
  }
  list(): Promise<MemberRecord[]> {
    if (this.down) return Promise.reject(new Error('connection refused'));
    return Promise.resolve([...this.api.records.values()]);
  }
  remove(): Promise<void> {
    this.api.records.delete(this.identity);
    return Promise.resolve();
  }
  removeStale(name: string, version: string): Promise<void> {
    for (const [id, r] of this.api.records)
      if (r.name === name && r.version === version) this.api.records.delete(id);
    return Promise.resolve();
  }
}

interface Node {
  readonly ring: ShardRing;
  readonly store: FakeStore;
  paused: boolean;
}

class Cluster {
  readonly api = new FakeApi();
  readonly clock = new FakeClock(1_000_000);
  readonly nodes = new Map<string, Node>();
  readonly registry = new Registry();

  add(identity: string): Node {
    const store = this.api.storeFor(identity);
    const ring = new ShardRing(store, {
      ring: 'test',
      identity,
      slots: SLOTS,
      logger: quiet,
      clock: this.clock,
      metrics: shardMetrics(this.registry),
      ...TIMINGS,
    });
    const node = { ring, store, paused: false };
    this.nodes.set(identity, node);
    return node;
  }

  /** Slots each member would admit a reconcile for now (active and not fenced). */
  admitting(): Map<number, string[]> {
    const out = new Map<number, string[]>();
    for (const [id, n] of this.nodes) {
      if (n.ring.fenced) continue;
      for (const s of n.ring.heldSlots()) out.set(s, [...(out.get(s) ?? []), id]);
    }
    return out;
  }

  /** Holders of each slot: active or draining (unfenced), or with reconciles still running. */
  checkExclusive(): void {
    for (const [slot, ids] of this.admitting())
      assert.ok(ids.length <= 1, `slot ${slot} admitted by ${ids.join(', ')}`);
  }

  /** One retry period: every unpaused member runs a round (in a rotating order), invariant checked after each. */
  async round(i = 0): Promise<void> {
    const list = [...this.nodes.values()].filter((n) => !n.paused);
    for (let k = 0; k < list.length; k++) {
      await list[(k + i) % list.length]!.ring.tick();
      this.checkExclusive();
    }
    this.clock.step(TIMINGS.retryPeriodMs);
    this.checkExclusive();
  }

  async rounds(n: number): Promise<void> {
    for (let i = 0; i < n; i++) await this.round(i);
  }

  /** Every slot active at exactly the member the assignment of the live members names. */
  assertSettled(live: string[]): void {
    const owners = assignSlots(live, SLOTS);
    for (let s = 0; s < SLOTS; s++) {
      const holder = [...this.nodes]
        .filter(([, n]) => n.ring.stateOf(s) === 'active' && !n.ring.fenced)
        .map(([id]) => id);
      assert.deepEqual(holder, [owners[s]], `slot ${s}`);
    }
  }
}

test('three members settle on the assignment without any slot held twice', async () => {
  const c = new Cluster();
  for (const id of ['a', 'b', 'c']) c.add(id);
  await c.rounds(6);
  c.assertSettled(['a', 'b', 'c']);
  assert.equal(await metricValue(c.registry.gauge('shard_ring_members', ''), { ring: 'test' }), 3);
});

test('a join moves about 1/N of the slots, after the old holder drained its in-flight reconciles', async () => {
  const c = new Cluster();
  for (const id of ['a', 'b', 'c']) c.add(id);
  await c.rounds(6);
  const before = assignSlots(['a', 'b', 'c'], SLOTS);
  const after = assignSlots(['a', 'b', 'c', 'd'], SLOTS);
  const moving = before.map((o, s) => (o !== after[s] ? s : -1)).filter((s) => s >= 0);
  assert.ok(moving.length > 0 && moving.length <= SLOTS / 2, `${moving.length} slots move`);
  // A reconcile runs in one moving slot at its old holder.
  const slot = moving[0]!;
  const holder = c.nodes.get(before[slot]!)!.ring;
  assert.ok(holder.tryBegin(slot));
  c.add('d');
  await c.rounds(6);
  assert.equal(holder.stateOf(slot), 'draining', 'the old holder keeps the slot while the reconcile runs');
  assert.equal(holder.tryBegin(slot), false, 'but admits nothing new for it');
  assert.notEqual(c.nodes.get(after[slot]!)!.ring.stateOf(slot), 'active', 'and the new holder waits');
  holder.end(slot);
  await c.rounds(4);
  c.assertSettled(['a', 'b', 'c', 'd']);
});

test('a leave hands the slots over: graceful stop at once, a crash after the lease duration', async () => {
  const c = new Cluster();
  for (const id of ['a', 'b', 'c']) c.add(id);
  await c.rounds(6);
  await c.nodes.get('c')!.ring.stop();
  c.nodes.delete('c');
  await c.rounds(4);
  c.assertSettled(['a', 'b']);

  // b crashes: its record stays but stops changing.
  c.nodes.get('b')!.paused = true;
  await c.rounds(Math.floor(TIMINGS.leaseDurationMs / TIMINGS.retryPeriodMs) - 1);
  assert.ok(c.nodes.get('a')!.ring.activeSlots().length < SLOTS, 'nothing moves before the lease expired');
  await c.rounds(4);
  c.nodes.delete('b');
  c.assertSettled(['a']);
});

test('the record of a member gone for ten lease durations is deleted; the member can come back', async () => {
  const c = new Cluster();
  for (const id of ['a', 'b']) c.add(id);
  await c.rounds(6);
  c.nodes.get('b')!.paused = true;
  await c.rounds(Math.ceil((9 * TIMINGS.leaseDurationMs) / TIMINGS.retryPeriodMs));
  assert.ok(c.api.records.has('b'), 'kept before ten lease durations');
  await c.rounds(Math.ceil((2 * TIMINGS.leaseDurationMs) / TIMINGS.retryPeriodMs));
  assert.ok(!c.api.records.has('b'), 'deleted after ten lease durations');
  c.nodes.get('b')!.paused = false;
  await c.rounds(8);
  c.assertSettled(['a', 'b']);
});

test('fencing: a member whose renewals fail stops admitting at the renew deadline, before anyone else may take over', async () => {
  const c = new Cluster();
  for (const id of ['a', 'b']) c.add(id);
  await c.rounds(6);
  const a = c.nodes.get('a')!;
  const slot = a.ring.activeSlots()[0]!;
  a.store.down = true;
  const failedAt = c.clock.now();
  let lastAdmitted = failedAt;
  while (c.clock.now() - failedAt < TIMINGS.leaseDurationMs + 4 * TIMINGS.retryPeriodMs) {
    if (a.ring.tryBegin(slot)) {
      a.ring.end(slot);
      lastAdmitted = c.clock.now();
    }
    await c.round();
  }
  assert.ok(
    lastAdmitted - failedAt < TIMINGS.renewDeadlineMs,
    `admitted until ${lastAdmitted - failedAt} ms`,
  );
  assert.ok(c.nodes.get('b')!.ring.activeSlots().includes(slot), 'b took the slot after the lease expired');
  assert.equal(await metricValue(c.registry.counter('shard_fenced_total', ''), { ring: 'test' }), 1);
  // a's network returns: it rejoins through the protocol, never by resuming old claims.
  a.store.down = false;
  await c.rounds(8);
  c.assertSettled(['a', 'b']);
});

test('a paused member (SIGSTOP) admits nothing when it wakes after its slots moved', async () => {
  const c = new Cluster();
  for (const id of ['a', 'b', 'c']) c.add(id);
  await c.rounds(6);
  const a = c.nodes.get('a')!;
  const old = a.ring.activeSlots();
  a.paused = true;
  await c.rounds(Math.ceil(TIMINGS.leaseDurationMs / TIMINGS.retryPeriodMs) + 4);
  for (const s of old) {
    const holders = ['b', 'c'].filter((id) => c.nodes.get(id)!.ring.stateOf(s) === 'active');
    assert.equal(holders.length, 1, `slot ${s} moved to one of b, c`);
  }
  // Wakes: its state still says active, but it is fenced before its first round.
  assert.ok(old.every((s) => a.ring.tryBegin(s) === false));
  a.paused = false;
  await c.rounds(8);
  c.assertSettled(['a', 'b', 'c']);
});

test('two members that both want a slot: the claim with the higher weight wins, once', async () => {
  // Views differ: b has not seen a yet when both claim. Run many joins in random orders.
  for (let trial = 0; trial < 20; trial++) {
    const c = new Cluster();
    const ids = ['p', 'q', 'r', 's'].map((x) => `${x}${trial}`);
    for (const id of ids) c.add(id);
    for (let i = 0; i < 10; i++) await c.round(trial + i);
    c.assertSettled(ids);
  }
});

test('options are checked: renew deadline below lease duration, retry period below renew deadline', () => {
  const store = new FakeApi().storeFor('x');
  assert.throws(
    () =>
      new ShardRing(store, {
        ring: 'r',
        identity: 'x',
        logger: quiet,
        leaseDurationMs: 5000,
        renewDeadlineMs: 5000,
      }),
    /renewDeadlineMs/,
  );
  assert.throws(
    () =>
      new ShardRing(store, {
        ring: 'r',
        identity: 'x',
        logger: quiet,
        renewDeadlineMs: 2000,
        retryPeriodMs: 2000,
      }),
    /retryPeriodMs/,
  );
});
