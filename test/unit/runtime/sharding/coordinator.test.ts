import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Kind } from '../../../../src/client/kind.ts';
import type { ObjectLike } from '../../../../src/client/resource-client.ts';
import type { Transport } from '../../../../src/client/transport.ts';
import { builtinKinds } from '../../../../src/runtime/builtin-kinds.ts';
import { FakeClock } from '../../../../src/runtime/clock.ts';
import type { InformerHandlers } from '../../../../src/runtime/informer.ts';
import { createLogger } from '../../../../src/runtime/logger.ts';
import { Registry } from '../../../../src/runtime/metrics.ts';
import { objectKey } from '../../../../src/runtime/object-key.ts';
import { ShardingCoordinator, type ShardCache } from '../../../../src/runtime/sharding/coordinator.ts';
import { slotOfUid } from '../../../../src/runtime/sharding/hash.ts';
import type { MemberClaims, MemberRecord, MemberStore } from '../../../../src/runtime/sharding/membership.ts';

const SLOTS = 4;
const quiet = createLogger({ level: 'error', write: () => {} });

/** A cache of ConfigMaps held in a map; handlers are kept to replay deletes. */
class FakeCache implements ShardCache {
  readonly objects = new Map<string, ObjectLike>();
  readonly handlers: InformerHandlers<ObjectLike>[] = [];
  restarts = 0;
  get<T extends ObjectLike>(_kind: Kind<T>, namespace: string | undefined, name: string): T | undefined {
    return this.objects.get(`${namespace}/${name}`) as T | undefined;
  }
  list<T extends ObjectLike>(): T[] {
    return [...this.objects.values()] as T[];
  }
  addHandlers<T extends ObjectLike>(_kind: Kind<T>, handlers: InformerHandlers<T>): void {
    this.handlers.push(handlers as unknown as InformerHandlers<ObjectLike>);
  }
  setListParams(): void {}
  restartListWatch(): void {
    this.restarts++;
  }
  remove(key: string): void {
    const obj = this.objects.get(key)!;
    this.objects.delete(key);
    for (const h of this.handlers) h.onDelete?.(obj);
  }
}

/** One member alone in its ring: it takes every slot after two rounds. */
class SoloStore implements MemberStore {
  record: MemberRecord | undefined;
  write(c: MemberClaims): Promise<void> {
    this.record = { ...c, name: c.identity, version: String(Math.random()) };
    return Promise.resolve();
  }
  list(): Promise<MemberRecord[]> {
    return Promise.resolve(this.record ? [this.record] : []);
  }
  remove(): Promise<void> {
    return Promise.resolve();
  }
}

/** UIDs whose hash falls in a given slot (found by search; deterministic). */
function uidInSlot(slot: number, salt: string): string {
  for (let i = 0; ; i++) {
    const uid = `${salt}-${i}`;
    if (slotOfUid(uid, SLOTS) === slot) return uid;
  }
}

function setup(): { c: ShardingCoordinator; cache: FakeCache; clock: FakeClock } {
  const cache = new FakeCache();
  const clock = new FakeClock(1_000);
  const c = new ShardingCoordinator(
    {} as Transport,
    cache,
    new Registry(),
    quiet,
    { ring: 'unit', identity: 'me', slots: SLOTS, serverSideFiltering: 'off' },
    { store: new SoloStore(), clock },
  );
  return { c, cache, clock };
}

const CM = builtinKinds.ConfigMap as unknown as Kind<ObjectLike>;

function cm(name: string, uid: string): ObjectLike {
  return { metadata: { namespace: 'ns', name, uid } };
}

test('a sharded gate admits the keys of objects in active slots, by the uid of the object (or of the owner the key names)', async () => {
  const { c, cache } = setup();
  const enqueued: string[] = [];
  const gate = c.gateFor('sharded', CM, true);
  gate.bind({ enqueue: (k) => enqueued.push(k) });
  const owner = cm('owner', uidInSlot(2, 'o'));
  cache.objects.set('ns/owner', owner);
  assert.equal(gate.tryBegin('ns/owner'), false, 'nothing is owned before the ring settles');
  await c.start();
  await c.ring.tick();
  assert.deepEqual(c.ring.activeSlots(), [0, 1, 2, 3]);
  assert.deepEqual(enqueued, ['ns/owner'], 'acquiring a slot enqueues its cached objects');
  // An owned object's event enqueues its owner's key (builder.owns); the owner's uid decides.
  assert.equal(gate.tryBegin('ns/owner'), true);
  gate.end('ns/owner');
  assert.equal(
    gate.tryBegin('ns/unknown'),
    false,
    'a key with no object and no tombstone is not ours to guess',
  );
  // Deleted: the tombstone's uid decides once.
  cache.remove('ns/owner');
  assert.equal(gate.tryBegin('ns/owner'), true, 'the delete is reconciled by the slot owner');
  gate.end('ns/owner');
  assert.equal(gate.tryBegin('ns/owner'), false, 'the tombstone is used once');
  await c.stop();
});

test('after leaving the ring a member admits nothing', async () => {
  const { c, cache } = setup();
  const gate = c.gateFor('sharded', CM, true);
  gate.bind({ enqueue: () => {} });
  const obj = cm('a', uidInSlot(1, 'a'));
  cache.objects.set(objectKey(obj), obj);
  await c.start();
  await c.ring.tick();
  assert.equal(gate.tryBegin('ns/a'), true);
  await c.stop(); // leaves the ring: the manager stops controllers first, so this only happens drained
  assert.equal(gate.tryBegin('ns/a'), false);
  gate.end('ns/a');
});

test('an unsharded controller runs only on the holder of slot 0; fencing stops it too', async () => {
  const { c, cache, clock } = setup();
  const enqueued: string[] = [];
  const gate = c.gateFor('plain', CM, false);
  gate.bind({ enqueue: (k) => enqueued.push(k) });
  cache.objects.set('ns/x', cm('x', 'u1'));
  cache.objects.set('ns/y', cm('y', 'u2'));
  await c.start();
  assert.equal(gate.tryBegin('ns/x'), false);
  await c.ring.tick();
  assert.deepEqual(enqueued.sort(), ['ns/x', 'ns/y'], 'taking slot 0 enqueues every object');
  assert.equal(gate.tryBegin('ns/anything'), true);
  gate.end('ns/anything');
  clock.step(10_000); // the default renew deadline passes without a round
  assert.equal(gate.tryBegin('ns/x'), false, 'fenced');
  await c.stop();
});
