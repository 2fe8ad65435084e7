import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ApiError } from '../../../src/client/api-error.ts';
import { ResourceClient, type ObjectLike } from '../../../src/client/resource-client.ts';
import { FakeClock } from '../../../src/runtime/clock.ts';
import { Informer } from '../../../src/runtime/informer.ts';
import { createLogger } from '../../../src/runtime/logger.ts';
import { FakeApiServer } from '../../../src/testing/fake-api-server.ts';
import { FakeListWatcher, Thing, quietLogger as quiet, settle } from '../../helpers/runtime-fakes.ts';

/**
 * Informers list by watch-list (client-go's WatchListClient, KEP-3157): a watch with
 * sendInitialEvents whose ADDED events fill the store as they arrive, the BOOKMARK annotated
 * k8s.io/initial-events-end syncing it; a server that refuses it, or ends the watch before that
 * bookmark, is listed instead.
 */

const thing = (name: string, rv: string): ObjectLike => ({
  kind: 'Thing',
  metadata: { name, namespace: 'ns', resourceVersion: rv },
});
const added = (name: string, rv: string) => ({ type: 'ADDED' as const, object: thing(name, rv) });
const bookmark = (rv: string, end = true) => ({
  type: 'BOOKMARK' as const,
  object: {
    kind: 'Thing',
    metadata: {
      resourceVersion: rv,
      ...(end ? { annotations: { 'k8s.io/initial-events-end': 'true' } } : {}),
    },
  },
});

function recordingInformer(lw: FakeListWatcher, logger = quiet) {
  const informer = new Informer<ObjectLike>(lw, { watchList: true, logger, clock: new FakeClock() });
  const seen: string[] = [];
  informer.addHandlers({
    onAdd: (o, initial) => seen.push(`add ${o.metadata?.name}${initial ? ' (initial)' : ''}`),
    onUpdate: (_old, o) => seen.push(`update ${o.metadata?.name}`),
    onDelete: (o) => seen.push(`delete ${o.metadata?.name}`),
  });
  return { informer, seen };
}

function debugLines() {
  const lines: Record<string, unknown>[] = [];
  const logger = createLogger({
    level: 'debug',
    write: (line) => void lines.push(JSON.parse(line) as Record<string, unknown>),
  });
  return { logger, lines };
}

describe('Informer by watch-list (narrow fake)', () => {
  it('fills the store as ADDED events arrive; only the initial-events-end bookmark syncs it; the watch goes on', async () => {
    const lw = new FakeListWatcher();
    const { informer, seen } = recordingInformer(lw);
    informer.start();
    const s = await lw.nextSession(0);
    assert.equal(s.options.sendInitialEvents, true);
    assert.equal(s.options.resourceVersionMatch, 'NotOlderThan');
    assert.equal(s.options.allowWatchBookmarks, true);
    assert.equal(s.options.resourceVersion, undefined, 'a consistent list: no resourceVersion');
    s.emit(added('a', '3'));
    s.emit(added('b', '4'));
    s.emit(bookmark('5', false));
    await settle();
    assert.equal(informer.hasSynced, false, 'a bookmark without the annotation is progress, not the end');
    assert.equal(informer.size, 2, 'streamed into the store');
    s.emit(bookmark('6'));
    await informer.waitForSync();
    assert.deepEqual(seen, ['add a (initial)', 'add b (initial)']);
    s.emit({ type: 'ADDED', object: thing('c', '7') });
    await settle();
    assert.deepEqual(seen.slice(2), ['add c'], 'a live add after the bookmark is not initial');
    assert.equal(lw.lists.length, 0, 'no list request');
    assert.equal(lw.sessions.length, 1, 'the same watch goes on');
    assert.equal(informer.stats.watchLists, 1);
    assert.equal(informer.stats.lists, 1);
    await informer.stop();
  });

  it('410 Gone during the initial events starts over; what the new list lacks is deleted', async () => {
    const lw = new FakeListWatcher();
    const { informer, seen } = recordingInformer(lw);
    informer.start();
    const first = await lw.nextSession(0);
    first.emit(added('a', '3'));
    first.emit(added('b', '4'));
    first.emit({ type: 'ERROR', object: { code: 410, message: 'too old' } as unknown as ObjectLike });
    const second = await lw.nextSession(1);
    assert.equal(second.options.sendInitialEvents, true, 'a watch-list again');
    assert.equal(second.options.resourceVersion, undefined);
    assert.equal(informer.hasSynced, false);
    second.emit(added('a', '3'));
    second.emit(bookmark('9'));
    await informer.waitForSync();
    assert.equal(informer.get('ns', 'b'), undefined);
    assert.deepEqual(seen, ['add a (initial)', 'add b (initial)', 'update a', 'delete b']);
    assert.equal(informer.stats.relists, 1);
    assert.equal(lw.lists.length, 0);
    await informer.stop();
  });

  it('a watch the server ends before the bookmark: lists instead, and does not ask again', async () => {
    const lw = new FakeListWatcher();
    lw.items = [thing('a', '3'), thing('b', '4')];
    lw.listRv = '8';
    const { logger, lines } = debugLines();
    const { informer } = recordingInformer(lw, logger);
    informer.start();
    const s = await lw.nextSession(0);
    s.emit(added('a', '3'));
    s.emit(added('stale', '2'));
    s.end();
    await informer.waitForSync();
    assert.equal(lw.lists.length, 1, 'listed');
    assert.deepEqual([...informer.list()].map((o) => o.metadata?.name).sort(), ['a', 'b']);
    const next = await lw.nextSession(1);
    assert.equal(next.options.sendInitialEvents, undefined, 'a plain watch from the list');
    assert.equal(next.options.resourceVersion, '8');
    const line = lines.find((l) => l.msg === 'watch-list not served; listing instead');
    assert.equal(line?.level, 'debug');
    assert.match(String(line?.reason), /ended before its initial-events-end bookmark/);
    await informer.stop();
  });

  it('stop() during the initial events ends it: not synced, no list, no other watch', async () => {
    const lw = new FakeListWatcher();
    const { informer } = recordingInformer(lw);
    informer.start();
    const s = await lw.nextSession(0);
    s.emit(added('a', '3'));
    await informer.stop();
    assert.equal(s.options.signal?.aborted, true);
    assert.equal(informer.hasSynced, false);
    assert.equal(lw.lists.length, 0);
    assert.equal(lw.sessions.length, 1);
  });
});

describe('Informer by watch-list (FakeApiServer)', () => {
  function setup(watchList = true) {
    const clock = new FakeClock(Date.parse('2026-01-01T00:00:00Z'));
    const server = new FakeApiServer({ clock, watchList }).register(Thing);
    const client = new ResourceClient(server.transport(), Thing);
    const { logger, lines } = debugLines();
    const informer = new Informer<ObjectLike>(client, { watchList: true, logger, clock });
    const make = (name: string): ObjectLike => ({ metadata: { name, namespace: 'ns' } });
    return { clock, server, client, informer, lines, make };
  }

  it('syncs by one watch, no list request; later writes arrive on it', async () => {
    const { server, client, informer, make } = setup();
    await client.create(make('a'));
    await client.create(make('b'));
    informer.start();
    await informer.waitForSync();
    assert.equal(informer.size, 2);
    assert.deepEqual(
      server.requests.filter((r) => !r.watch && r.method === 'GET'),
      [],
    );
    await client.create(make('c'));
    await settle();
    assert.equal(informer.size, 3);
    assert.equal(server.requests.filter((r) => r.watch).length, 1);
    await informer.stop();
  });

  it('a server that refuses it (400) is listed, logged at debug, and not asked again at the next relist', async () => {
    const { clock, server, client, informer, lines, make } = setup(false);
    await client.create(make('a'));
    informer.start();
    await informer.waitForSync();
    assert.equal(informer.size, 1);
    assert.equal(informer.stats.watchLists, 1);
    assert.equal(informer.stats.lists, 2);
    const line = lines.find((l) => l.msg === 'watch-list not served; listing instead');
    assert.equal(line?.level, 'debug');
    assert.equal(line?.reason, 'the server answered 400');
    // A 410 later: the relist is a list request, not another watch-list.
    server.disconnect();
    await client.create(make('b'));
    server.compact();
    clock.step(2_000);
    await settle();
    assert.equal(informer.stats.relists, 1);
    assert.equal(informer.stats.watchLists, 1);
    assert.equal(informer.size, 2);
    await informer.stop();
  });

  it('an ApiError other than a refusal (403) is retried as a watch-list, not a fallback', async () => {
    const { clock, server, client, informer, make } = setup();
    await client.create(make('a'));
    let failed = false;
    server.fault((req) => {
      if (!req.watch || failed) return undefined;
      failed = true;
      return new ApiError(403, 'GET', req.path, { kind: 'Status', code: 403, reason: 'Forbidden' });
    });
    informer.start();
    await settle();
    clock.step(2_000);
    await informer.waitForSync();
    assert.equal(informer.stats.watchLists, 2);
    assert.equal(informer.stats.lists, 2, 'both were watch-lists');
    await informer.stop();
  });
});
