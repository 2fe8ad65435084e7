import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import type { V1Lease } from '@kubernetes/client-node';
import { ResourceClient } from '../../../../src/client/resource-client.ts';
import { builtinKinds } from '../../../../src/runtime/builtin-kinds.ts';
import {
  ACTIVE_ANNOTATION,
  decodeSlots,
  encodeSlots,
  LeaseMemberStore,
  memberLeaseName,
  PENDING_ANNOTATION,
  RING_LABEL,
  SLOTS_ANNOTATION,
} from '../../../../src/runtime/sharding/membership.ts';
import { FakeApiServer } from '../../../../src/testing/fake-api-server.ts';
import { assertFloor, assertProperty, fuzzRuns } from '../../../helpers/fuzz-runs.ts';

/**
 * Members publish their slots in Lease annotations as a hex bitmap (slot s is bit s % 8 of byte
 * s / 8); LeaseMemberStore writes, lists, and deletes those Leases, each member only its own.
 */
describe('sharding: slot bitmaps', () => {
  it('a known bitmap: slot s is bit s % 8 of byte s / 8', () => {
    assert.equal(encodeSlots([0, 9], 16), '0102');
    assert.equal(encodeSlots([7, 8, 15], 16), '8081');
    assert.equal(encodeSlots([], 256), '00'.repeat(32));
    assert.equal(encodeSlots([3], 5), '08', 'a count that is not a multiple of 8 takes a whole byte');
    assert.deepEqual(decodeSlots('0102', 16), [0, 9]);
  });

  it('decodes nothing from nothing, and no slot beyond the count', () => {
    assert.deepEqual(decodeSlots(undefined, 256), []);
    assert.deepEqual(decodeSlots('', 256), []);
    assert.deepEqual(decodeSlots('ff', 5), [0, 1, 2, 3, 4]);
    assert.deepEqual(decodeSlots('01', 256), [0], 'a shorter bitmap: the slots it has');
  });

  it('decoding an encoded set gives the set back, sorted (property)', async (t) => {
    const runs = fuzzRuns(500, 20_000);
    let large = 0;
    await assertProperty(
      t,
      fc.property(
        fc
          .constantFrom(1, 7, 8, 9, 64, 255, 256, 1024)
          .chain((slots) => fc.tuple(fc.constant(slots), fc.array(fc.nat(slots - 1), { maxLength: slots }))),
        ([slots, set]) => {
          const hex = encodeSlots(set, slots);
          assert.equal(hex.length, Math.ceil(slots / 8) * 2);
          const expected = [...new Set(set)].sort((a, b) => a - b);
          if (expected.length >= 8) large++;
          assert.deepEqual(decodeSlots(hex, slots), expected);
        },
      ),
      runs,
    );
    assertFloor(t, 'sets of 8 slots or more', large, runs * 0.05);
  });
});

type Lease = V1Lease & { metadata: { name: string; namespace: string } };

function store(server: FakeApiServer, identity: string, ring = 'r') {
  return new LeaseMemberStore(server.transport(identity), { namespace: 'ns', ring, identity });
}

const claims = (identity: string, active: number[], pending: number[] = []) => ({
  identity,
  leaseDurationMs: 4500,
  slots: 16,
  active,
  pending,
});

describe('sharding: LeaseMemberStore', () => {
  it('writes its Lease (ring label, slot annotations, holder, duration rounded up) and lists it back', async () => {
    const server = new FakeApiServer().register(builtinKinds.Lease);
    const a = store(server, 'pod-a');
    await a.write(claims('pod-a', [0, 9], [3]));
    const leases = new ResourceClient(server.transport('test'), builtinKinds.Lease);
    const lease = (await leases.get({ namespace: 'ns', name: memberLeaseName('r', 'pod-a') })) as Lease;
    assert.equal(lease.metadata.labels?.[RING_LABEL], 'r');
    assert.deepEqual(
      {
        active: lease.metadata.annotations?.[ACTIVE_ANNOTATION],
        pending: lease.metadata.annotations?.[PENDING_ANNOTATION],
        slots: lease.metadata.annotations?.[SLOTS_ANNOTATION],
      },
      { active: '0102', pending: '0800', slots: '16' },
    );
    assert.equal(lease.spec?.holderIdentity, 'pod-a');
    assert.equal(lease.spec?.leaseDurationSeconds, 5);
    const [record, ...rest] = await a.list();
    assert.deepEqual(rest, []);
    assert.deepEqual(
      { ...record, version: undefined },
      {
        name: memberLeaseName('r', 'pod-a'),
        version: undefined,
        identity: 'pod-a',
        leaseDurationMs: 5000,
        slots: 16,
        active: [0, 9],
        pending: [3],
      },
    );
  });

  it('lists only its ring and members with a holder; a rewrite changes the version', async () => {
    const server = new FakeApiServer().register(builtinKinds.Lease);
    const a = store(server, 'pod-a');
    await a.write(claims('pod-a', [1]));
    await store(server, 'pod-x', 'other').write(claims('pod-x', [2]));
    const leases = new ResourceClient(server.transport('test'), builtinKinds.Lease);
    await leases.create({
      metadata: { name: 'r-noholder', namespace: 'ns', labels: { [RING_LABEL]: 'r' } },
      spec: {},
    });
    const [before] = await a.list();
    assert.deepEqual(
      (await a.list()).map((m) => m.identity),
      ['pod-a'],
    );
    await a.write(claims('pod-a', [1, 2]));
    const [after] = await a.list();
    assert.notEqual(after?.version, before?.version);
    assert.deepEqual(after?.active, [1, 2]);
  });

  it('a write after another client replaced its Lease reads it again and keeps the other fields', async () => {
    const server = new FakeApiServer().register(builtinKinds.Lease);
    const a = store(server, 'pod-a');
    await a.write(claims('pod-a', [1]));
    const leases = new ResourceClient(server.transport('test'), builtinKinds.Lease);
    const key = { namespace: 'ns', name: memberLeaseName('r', 'pod-a') };
    const current = (await leases.get(key)) as Lease;
    await leases.replace({
      ...current,
      metadata: { ...current.metadata, labels: { ...current.metadata.labels, team: 'blue' } },
    });
    await a.write(claims('pod-a', [4]));
    const lease = (await leases.get(key)) as Lease;
    assert.equal(lease.metadata.labels?.team, 'blue', 'the other write kept');
    assert.equal(lease.metadata.annotations?.[ACTIVE_ANNOTATION], encodeSlots([4], 16));
  });

  it('a write after its Lease was deleted creates it again; remove deletes it, twice without error', async () => {
    const server = new FakeApiServer().register(builtinKinds.Lease);
    const a = store(server, 'pod-a');
    await a.write(claims('pod-a', [1]));
    const leases = new ResourceClient(server.transport('test'), builtinKinds.Lease);
    await leases.delete({ namespace: 'ns', name: memberLeaseName('r', 'pod-a') });
    await a.write(claims('pod-a', [2]));
    assert.deepEqual(
      (await a.list()).map((m) => m.active),
      [[2]],
    );
    await a.remove();
    await a.remove();
    assert.deepEqual(await a.list(), []);
  });

  it('removeStale deletes another member only while it still has the version seen', async () => {
    const server = new FakeApiServer().register(builtinKinds.Lease);
    const a = store(server, 'pod-a');
    const b = store(server, 'pod-b');
    await b.write(claims('pod-b', [1]));
    const seen = (await a.list()).find((m) => m.identity === 'pod-b')!;
    await b.write(claims('pod-b', [1, 2]));
    await a.removeStale(seen.name, seen.version);
    assert.deepEqual(
      (await a.list()).map((m) => m.identity),
      ['pod-b'],
      'renewed since: kept',
    );
    const again = (await a.list()).find((m) => m.identity === 'pod-b')!;
    await a.removeStale(again.name, again.version);
    assert.deepEqual(await a.list(), []);
    await a.removeStale(again.name, again.version);
  });
});
