import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ResourceClient, type ObjectLike } from '../../../src/client/resource-client.ts';
import { FakeClock } from '../../../src/runtime/clock.ts';
import { Informer } from '../../../src/runtime/informer.ts';
import { FakeApiServer } from '../../../src/testing/fake-api-server.ts';
import { defineKind } from '../../../src/client/kind.ts';
import { Thing, quietLogger as quiet, settle } from '../../helpers/runtime-fakes.ts';

/**
 * The informer (reflector + store) against the in-memory API server, as client-go's reflector tests
 * and kube-rs's watcher tests do: resume after a dropped watch from the last resourceVersion (events
 * of the gap replayed, no relist), 410 Gone → relist with deletions of the gap delivered, bookmarks
 * moving the resume point, watch timeouts on the clock.
 */
function setup() {
  const clock = new FakeClock(Date.parse('2026-01-01T00:00:00Z'));
  const server = new FakeApiServer({ clock }).register(Thing);
  const client = new ResourceClient(server.transport(), Thing);
  const informer = new Informer<ObjectLike>(client, { watchList: false, logger: quiet, clock });
  const seen: string[] = [];
  informer.addHandlers({
    onAdd: (o) => seen.push(`add ${o.metadata?.name}`),
    onUpdate: (_old, o) => seen.push(`update ${o.metadata?.name}`),
    onDelete: (o) => seen.push(`delete ${o.metadata?.name}`),
  });
  const thing = (name: string, labels: Record<string, string> = {}): ObjectLike =>
    ({ metadata: { name, namespace: 'ns', labels } }) as ObjectLike;
  return { clock, server, client, informer, seen, thing };
}

describe('Informer on the fake API server', () => {
  it('lists, then watches from the list resourceVersion: later writes arrive as events', async () => {
    const { server, client, informer, seen, thing } = setup();
    await client.create(thing('a'));
    informer.start();
    await informer.waitForSync();
    await settle();
    const watch = server.requests.find((r) => r.watch);
    assert.equal(watch?.query.resourceVersion, server.resourceVersion, 'watches from the list');
    await client.create(thing('b'));
    await client.delete({ namespace: 'ns', name: 'a' });
    await settle();
    assert.deepEqual(seen, ['add a', 'add b', 'delete a']);
    assert.equal(informer.stats.relists, 0);
    await informer.stop();
  });

  it('resumes a dropped watch from the last resourceVersion: the gap is replayed, no relist', async () => {
    const { clock, server, client, informer, seen, thing } = setup();
    await client.create(thing('a'));
    await client.create(thing('b'));
    informer.start();
    await informer.waitForSync();
    await settle();
    seen.length = 0;
    server.disconnect();
    // While the informer is away: a changes, b is deleted, c appears.
    await client.patch({ namespace: 'ns', name: 'a' }, 'merge', { metadata: { labels: { x: 'y' } } });
    await client.delete({ namespace: 'ns', name: 'b' });
    await client.create(thing('c'));
    await settle();
    clock.step(2_000);
    await settle();
    assert.deepEqual(seen, ['update a', 'delete b', 'add c']);
    assert.equal(informer.stats.lists, 1, 'no relist');
    assert.equal(informer.get('ns', 'b'), undefined);
    await informer.stop();
  });

  it('410 Gone on resume (history compacted) relists; a deletion in the gap arrives as a delete', async () => {
    const { clock, server, client, informer, seen, thing } = setup();
    await client.create(thing('a'));
    await client.create(thing('b'));
    informer.start();
    await informer.waitForSync();
    await settle();
    seen.length = 0;
    server.disconnect();
    await client.delete({ namespace: 'ns', name: 'b' });
    await client.create(thing('c'));
    server.compact();
    clock.step(2_000);
    await settle();
    assert.equal(informer.stats.relists, 1);
    assert.equal(informer.stats.lists, 2);
    assert.deepEqual(seen.sort(), ['add c', 'delete b', 'update a']);
    assert.deepEqual(
      [...informer.list()].map((o) => o.metadata?.name).sort(),
      ['a', 'c'],
      'the store matches the server',
    );
    await informer.stop();
  });

  it('a bookmark moves the resume point: compaction before it needs no relist', async () => {
    const { clock, server, client, informer, seen, thing } = setup();
    await client.create(thing('a'));
    informer.start();
    await informer.waitForSync();
    await settle();
    // Writes to another kind move the resourceVersion; the Thing watch hears of it by a bookmark only.
    const Other = defineKind<ObjectLike>({ ...Thing, kind: 'Other', plural: 'others' });
    const others = new ResourceClient(server.transport(), Other);
    for (const n of ['o1', 'o2', 'o3']) await others.create(thing(n));
    server.bookmark();
    await settle();
    server.disconnect();
    server.compact();
    await settle();
    clock.step(2_000);
    await settle();
    assert.equal(informer.stats.relists, 0, 'resumed from the bookmark');
    const watches = server.requests.filter((r) => r.watch && r.path.endsWith('/things'));
    assert.equal(watches.at(-1)?.query.resourceVersion, server.resourceVersion);
    assert.deepEqual(seen, ['add a']);
    await informer.stop();
  });

  it('a watch that times out on the clock is reopened from the last resourceVersion', async () => {
    const { clock, server, client, informer, seen, thing } = setup();
    informer.start();
    await informer.waitForSync();
    await settle();
    clock.step(601_000); // past the informer's 300-600 s watch timeout
    await settle();
    await client.create(thing('late'));
    await settle();
    const watches = server.requests.filter((r) => r.watch);
    assert.ok(watches.length >= 2, 'the watch was reopened');
    assert.deepEqual(seen, ['add late']);
    assert.equal(informer.stats.lists, 1);
    await informer.stop();
  });

  it('a label-selected informer sees an object leaving its selector as a delete', async () => {
    const clock = new FakeClock();
    const server = new FakeApiServer({ clock }).register(Thing);
    const client = new ResourceClient(server.transport(), Thing);
    const informer = new Informer<ObjectLike>(client, {
      watchList: false,
      logger: quiet,
      clock,
      labelSelector: 'app=x',
    });
    const seen: string[] = [];
    informer.addHandlers({
      onAdd: (o) => seen.push(`add ${o.metadata?.name}`),
      onDelete: (o) => seen.push(`delete ${o.metadata?.name}`),
    });
    await client.create({ metadata: { name: 'a', namespace: 'ns', labels: { app: 'x' } } } as ObjectLike);
    await client.create({ metadata: { name: 'b', namespace: 'ns', labels: { app: 'z' } } } as ObjectLike);
    informer.start();
    await informer.waitForSync();
    await settle();
    await client.patch({ namespace: 'ns', name: 'a' }, 'merge', { metadata: { labels: { app: 'z' } } });
    await settle();
    assert.deepEqual(seen, ['add a', 'delete a']);
    await informer.stop();
  });
});
