import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { ResourceClient, type ObjectLike } from '../../../src/client/resource-client.ts';
import { builtinKinds } from '../../../src/runtime/builtin-kinds.ts';
import { InformerCache } from '../../../src/runtime/cache.ts';
import { FakeClock } from '../../../src/runtime/clock.ts';
import type { Query } from '../../../src/client/transport.ts';
import { Informer, type ListWatcher } from '../../../src/runtime/informer.ts';
import { labelMatcher } from '../../../src/runtime/label-selector.ts';
import { Lister } from '../../../src/runtime/lister.ts';
import { ReconcileClient } from '../../../src/runtime/reconcile-client.ts';
import {
  IndexedStore,
  OWNER_INDEX,
  ownedBy,
  ownerUids,
  type StoreQuery,
} from '../../../src/runtime/store-index.ts';
import { FakeApiServer } from '../../../src/testing/fake-api-server.ts';
import { Thing, quietLogger as quiet, settle } from '../../helpers/runtime-fakes.ts';

/**
 * The indexed store (client-go's threadSafeStore indexes, controller-runtime's IndexField): every
 * lookup through an index answers what a scan of the store would, after any sequence of writes, and
 * the informer keeps its indexes right through relist, watch resume, 410 Gone and a change of its
 * list parameters (sharding's handoff).
 */

interface Obj extends ObjectLike {
  metadata: {
    name: string;
    namespace: string;
    labels?: Record<string, string>;
    ownerReferences?: { uid: string }[];
    node?: string;
  };
}

const byNode = (o: Obj): string[] => (o.metadata.node ? [o.metadata.node] : []);

/** The reference: a scan of every object, sorted by key. */
function scan(objs: Map<string, Obj>, q: StoreQuery): string[] {
  const matches = labelMatcher(q.labelSelector);
  const out: string[] = [];
  for (const [key, o] of objs) {
    if (q.namespace && o.metadata.namespace !== q.namespace) continue;
    if (!matches(o.metadata.labels)) continue;
    if (q.field?.node !== undefined && !byNode(o).includes(q.field.node)) continue;
    if (q.field?.[OWNER_INDEX] !== undefined && !ownerUids(o).includes(q.field[OWNER_INDEX])) continue;
    out.push(key);
  }
  return out.sort();
}

function keysOf(selected: [string, unknown][]): string[] {
  return selected.map((e) => e[0]).sort();
}

describe('IndexedStore', () => {
  it('answers every query as a scan would, after any sequence of sets and deletes', () => {
    const names = fc.constantFrom('a', 'b', 'c', 'd');
    const nss = fc.constantFrom('ns1', 'ns2', 'ns3');
    const labelValue = fc.option(fc.constantFrom('x', 'y'), { nil: undefined });
    const obj = fc.record({
      name: names,
      namespace: nss,
      app: labelValue,
      tier: labelValue,
      owner: fc.option(fc.constantFrom('u1', 'u2'), { nil: undefined }),
      node: fc.option(fc.constantFrom('n1', 'n2'), { nil: undefined }),
    });
    const op = fc.oneof(
      obj.map((o) => ({ kind: 'set' as const, o })),
      fc.record({ kind: fc.constant('delete' as const), name: names, namespace: nss }),
    );
    const query = fc.record(
      {
        namespace: nss,
        labelSelector: fc.constantFrom(
          'app=x',
          'app=y,tier=x',
          'tier in (x,y)',
          '!app',
          'app!=x',
          'app=x,tier',
        ),
        field: fc.oneof(
          fc.record({ node: fc.constantFrom('n1', 'n2') }),
          fc.record({ [OWNER_INDEX]: fc.constantFrom('u1', 'u2') }),
          fc.record({ node: fc.constantFrom('n1', 'n2'), [OWNER_INDEX]: fc.constantFrom('u1', 'u2') }),
        ),
      },
      { requiredKeys: [] },
    );
    let runs = 0;
    let nonEmpty = 0;
    fc.assert(
      fc.property(
        fc.array(op, { maxLength: 40 }),
        fc.array(query, { minLength: 1, maxLength: 8 }),
        fc.nat(40),
        (ops, queries, indexAt) => {
          runs++;
          const store = new IndexedStore<Obj>();
          const ref = new Map<string, Obj>();
          ops.forEach((o, i) => {
            // One field index is registered part-way: built from what the store holds then.
            if (i === Math.min(indexAt, ops.length - 1)) store.addIndex('node', byNode);
            if (o.kind === 'delete') {
              store.delete(`${o.namespace}/${o.name}`);
              ref.delete(`${o.namespace}/${o.name}`);
              return;
            }
            const labels: Record<string, string> = {};
            if (o.o.app) labels.app = o.o.app;
            if (o.o.tier) labels.tier = o.o.tier;
            const v: Obj = {
              metadata: {
                name: o.o.name,
                namespace: o.o.namespace,
                labels,
                ...(o.o.owner ? { ownerReferences: [{ uid: o.o.owner }] } : {}),
                ...(o.o.node ? { node: o.o.node } : {}),
              },
            };
            store.set(`${o.o.namespace}/${o.o.name}`, v);
            ref.set(`${o.o.namespace}/${o.o.name}`, v);
          });
          if (!store.hasIndex('node')) store.addIndex('node', byNode);
          // The owner index registered up front half the time; else the first ownedBy lookup builds it.
          if (indexAt % 2 === 0) store.addIndex(OWNER_INDEX, ownerUids);
          for (const q of queries) {
            const want = scan(ref, q);
            if (want.length > 0) nonEmpty++;
            assert.deepEqual(keysOf(store.select(q)), want, JSON.stringify(q));
          }
          assert.equal(store.size, ref.size);
        },
      ),
      { numRuns: 300, seed: 39 },
    );
    assert.equal(runs, 300);
    assert.ok(nonEmpty >= 150, `only ${nonEmpty} queries had answers`);
  });

  it('an unknown field index and a second index of one name are errors', () => {
    const store = new IndexedStore<Obj>();
    assert.throws(() => store.select({ field: { 'spec.node': 'n1' } }), /no field index named "spec.node"/);
    store.addIndex('spec.node', byNode);
    assert.throws(() => store.addIndex('spec.node', byNode), /already registered/);
  });

  it('ownedBy needs the parent uid', () => {
    assert.deepEqual(ownedBy({ metadata: { name: 'p', uid: 'u1' } }), { [OWNER_INDEX]: 'u1' });
    assert.throws(() => ownedBy({ metadata: { name: 'p' } }), /has no metadata.uid/);
  });
});

function shardLabel(query: Query | undefined): { labelSelector?: string } {
  return query?.shard ? { labelSelector: `shard=${String(query.shard)}` } : {};
}

function setup(listParams?: () => Record<string, string>) {
  const clock = new FakeClock(Date.parse('2026-01-01T00:00:00Z'));
  const server = new FakeApiServer({ clock }).register(Thing);
  const client = new ResourceClient(server.transport(), Thing);
  // The fake API server has no shardSelector: a `shard` list parameter stands for it, sent on as a
  // label selector (the informer's path is the one the sharding coordinator drives).
  const shardFiltered: ListWatcher<ObjectLike> = {
    kind: Thing,
    listAll: (o) => client.listAll({ ...o, ...shardLabel(o?.extraQuery) }),
    watch: (o, onEvent) => client.watch({ ...o, ...shardLabel(o.extraQuery) }, onEvent),
  };
  const informer = new Informer<ObjectLike>(shardFiltered, {
    logger: quiet,
    clock,
    ...(listParams ? { listParams } : {}),
  });
  informer.addIndex('spec.node', (o) => {
    const node = (o as { spec?: { node?: string } }).spec?.node;
    return node ? [node] : [];
  });
  const lister = new Lister(informer);
  const thing = (name: string, node: string, labels: Record<string, string> = {}): ObjectLike =>
    ({ metadata: { name, namespace: 'ns', labels }, spec: { node } }) as ObjectLike;
  /** What the indexes answer: names on each node, and by label. */
  const view = () => ({
    n1: lister.list({ field: { 'spec.node': 'n1' } }).map((o) => o.metadata?.name),
    n2: lister.list({ namespace: 'ns', field: { 'spec.node': 'n2' } }).map((o) => o.metadata?.name),
    x: lister.list({ namespace: 'ns', labelSelector: 'app=x' }).map((o) => o.metadata?.name),
  });
  return { clock, server, client, informer, lister, thing, view };
}

describe('Informer indexes on the fake API server', () => {
  it('stay right through a watch resume: changes of the gap move objects between buckets', async () => {
    const { clock, server, client, informer, thing, view } = setup();
    await client.create(thing('a', 'n1', { app: 'x' }));
    await client.create(thing('b', 'n1'));
    informer.start();
    await informer.waitForSync();
    await settle();
    assert.deepEqual(view(), { n1: ['a', 'b'], n2: [], x: ['a'] });
    server.disconnect();
    await client.patch({ namespace: 'ns', name: 'a' }, 'merge', {
      spec: { node: 'n2' },
      metadata: { labels: { app: 'y' } },
    });
    await client.delete({ namespace: 'ns', name: 'b' });
    await client.create(thing('c', 'n2', { app: 'x' }));
    clock.step(2_000);
    await settle();
    assert.equal(informer.stats.lists, 1, 'resumed, no relist');
    assert.deepEqual(view(), { n1: [], n2: ['a', 'c'], x: ['c'] });
    await informer.stop();
  });

  it('stay right through 410 Gone and the relist (replace) it brings', async () => {
    const { clock, server, client, informer, thing, view } = setup();
    await client.create(thing('a', 'n1', { app: 'x' }));
    await client.create(thing('b', 'n1', { app: 'x' }));
    informer.start();
    await informer.waitForSync();
    await settle();
    assert.deepEqual(view(), { n1: ['a', 'b'], n2: [], x: ['a', 'b'] });
    server.disconnect();
    await client.delete({ namespace: 'ns', name: 'b' });
    await client.patch({ namespace: 'ns', name: 'a' }, 'merge', { spec: { node: 'n2' } });
    await client.create(thing('c', 'n1'));
    server.compact();
    clock.step(2_000);
    await settle();
    assert.equal(informer.stats.relists, 1);
    assert.deepEqual(view(), { n1: ['c'], n2: ['a'], x: ['a'] });
    await informer.stop();
  });

  it('stay right through a change of list parameters (sharding handoff): objects leaving go from every index', async () => {
    let shard = 'one';
    const { client, informer, thing, view } = setup(() => ({ shard }));
    await client.create(thing('a', 'n1', { app: 'x', shard: 'one' }));
    await client.create(thing('b', 'n1', { app: 'x', shard: 'two' }));
    await client.create(thing('c', 'n2', { app: 'x', shard: 'two' }));
    informer.start();
    await informer.waitForSync();
    await settle();
    assert.deepEqual(view(), { n1: ['a'], n2: [], x: ['a'] });
    shard = 'two';
    informer.restartListWatch();
    await settle();
    assert.equal(informer.stats.lists, 2);
    assert.deepEqual(view(), { n1: ['b'], n2: ['c'], x: ['b', 'c'] });
    await informer.stop();
  });

  it('an index added after the informer synced is built from the store, then kept', async () => {
    const { client, informer, lister, thing } = setup();
    await client.create(thing('a', 'n1', { tier: 'db' }));
    informer.start();
    await informer.waitForSync();
    await settle();
    informer.addIndex('tier', (o) => {
      const t = (o.metadata as { labels?: Record<string, string> }).labels?.tier;
      return t ? [t] : [];
    });
    const db = () => lister.list({ field: { tier: 'db' } }).map((o) => o.metadata?.name);
    assert.deepEqual(db(), ['a']);
    await client.create(thing('b', 'n1', { tier: 'db' }));
    await settle();
    assert.deepEqual(db(), ['a', 'b']);
    assert.throws(() => informer.addIndex('tier', () => []), /already registered/);
    await informer.stop();
  });
});

describe('InformerCache indexes', () => {
  it('indexField and indexOwners answer cache.list; ownedBy finds a parent’s children across namespaces', async () => {
    const server = new FakeApiServer().register(builtinKinds.ConfigMap);
    const cache = new InformerCache(server.transport(), { logger: quiet });
    const cms = new ResourceClient(server.transport(), builtinKinds.ConfigMap);
    const owned = (name: string, namespace: string, uid: string, data: Record<string, string>) =>
      cms.create({ metadata: { name, namespace, ownerReferences: [ownerRef(uid)] }, data });
    await owned('a', 'ns1', 'p1', { role: 'primary' });
    await owned('b', 'ns1', 'p2', { role: 'replica' });
    await owned('c', 'ns2', 'p1', { role: 'replica' });
    cache.indexOwners(builtinKinds.ConfigMap);
    cache.indexOwners(builtinKinds.ConfigMap); // idempotent: owns() of two controllers
    cache.start();
    await cache.waitForSync();
    // Registered while running: built from the cache.
    cache.indexField(builtinKinds.ConfigMap, 'data.role', (cm) => (cm.data?.role ? [cm.data.role] : []));
    assert.throws(
      () => cache.indexField(builtinKinds.ConfigMap, 'data.role', () => []),
      /already has an index/,
    );
    const names = (q: StoreQuery) => cache.list(builtinKinds.ConfigMap, q).map((o) => o.metadata?.name);
    const parent = { metadata: { name: 'p', uid: 'p1' } };
    assert.deepEqual(names({ field: ownedBy(parent) }), ['a', 'c']);
    assert.deepEqual(names({ namespace: 'ns1', field: ownedBy(parent) }), ['a']);
    assert.deepEqual(names({ field: { 'data.role': 'replica' } }), ['b', 'c']);
    assert.deepEqual(names({ namespace: 'ns2', field: { 'data.role': 'replica', ...ownedBy(parent) } }), [
      'c',
    ]);
    assert.throws(() => names({ field: { 'data.nope': 'x' } }), /no field index named "data.nope"/);
    await cache.stop();
  });
});

describe('ctx.client.list with field', () => {
  it('answers from the cache index for a cached kind, and sends a fieldSelector for another', async () => {
    const server = new FakeApiServer().register(builtinKinds.ConfigMap).register(builtinKinds.Secret);
    const cache = new InformerCache(server.transport(), { logger: quiet });
    const client = new ReconcileClient(server.transport(), cache, 'test');
    for (const name of ['a', 'b']) {
      await client.create(builtinKinds.ConfigMap, { metadata: { name, namespace: 'ns' }, data: { k: name } });
      await client.create(builtinKinds.Secret, { metadata: { name, namespace: 'ns' } });
    }
    cache.indexField(builtinKinds.ConfigMap, 'data.k', (cm) => (cm.data?.k ? [cm.data.k] : []));
    cache.start();
    await cache.waitForSync();
    const before = server.requests.length;
    const cms = await client.list(builtinKinds.ConfigMap, { namespace: 'ns', field: { 'data.k': 'b' } });
    assert.deepEqual(
      cms.map((o) => o.metadata?.name),
      ['b'],
    );
    assert.equal(server.requests.length, before, 'no request: the cache answered');
    const secrets = await client.list(builtinKinds.Secret, {
      namespace: 'ns',
      field: { 'metadata.name': 'a' },
    });
    assert.deepEqual(
      secrets.map((o) => o.metadata?.name),
      ['a'],
    );
    assert.equal(server.requests.at(-1)?.query.fieldSelector, 'metadata.name=a');
    await cache.stop();
  });
});

describe('ownedBy without registration', () => {
  it('builds the owner index on the first lookup, then keeps it current', async () => {
    const server = new FakeApiServer().register(builtinKinds.ConfigMap);
    const cache = new InformerCache(server.transport(), { logger: quiet });
    const cms = new ResourceClient(server.transport(), builtinKinds.ConfigMap);
    await cms.create({ metadata: { name: 'a', namespace: 'ns1', ownerReferences: [ownerRef('p1')] } });
    await cms.create({ metadata: { name: 'b', namespace: 'ns1', ownerReferences: [ownerRef('p2')] } });
    cache.informersFor(builtinKinds.ConfigMap);
    cache.start();
    await cache.waitForSync();
    const children = (uid: string, namespace?: string) =>
      cache
        .list(builtinKinds.ConfigMap, {
          ...(namespace ? { namespace } : {}),
          field: ownedBy({ metadata: { uid } }),
        })
        .map((o) => o.metadata?.name);
    assert.deepEqual(children('p1'), ['a']);
    assert.deepEqual(children('p1', 'ns2'), [], 'the namespace filters a global owner bucket');
    await cms.create({ metadata: { name: 'c', namespace: 'ns1', ownerReferences: [ownerRef('p1')] } });
    await settle();
    assert.deepEqual(children('p1', 'ns1'), ['a', 'c']);
    await cache.stop();
  });
});

function ownerRef(uid: string) {
  return { apiVersion: 'v1', kind: 'Thing', name: `owner-${uid}`, uid, controller: true };
}
