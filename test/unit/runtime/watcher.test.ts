import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ResourceClient, type ObjectLike } from '../../../src/client/resource-client.ts';
import { FakeClock } from '../../../src/runtime/clock.ts';
import { Watcher, type WatcherEvent } from '../../../src/runtime/watcher.ts';
import { FakeApiServer, statusError } from '../../../src/testing/fake-api-server.ts';
import { Thing, quietLogger as quiet, settle } from '../../helpers/runtime-fakes.ts';

/**
 * The watcher alone (no store, no handlers): its async stream of events against the in-memory API
 * server on a fake clock, as kube-rs tests its `watcher()` apart from the reflector.
 */
function setup() {
  const clock = new FakeClock(Date.parse('2026-01-01T00:00:00Z'));
  const server = new FakeApiServer({ clock }).register(Thing);
  const client = new ResourceClient(server.transport(), Thing);
  const watcher = new Watcher<ObjectLike>(client, { logger: quiet, clock, watchList: false });
  const thing = (name: string): ObjectLike => ({ metadata: { name, namespace: 'ns' } });
  return { clock, server, client, watcher, thing };
}

/**
 * Reads the stream into `events` in the background; `until(n)` resolves once n events came. A list
 * streamed as init, initApply… and initDone (how a ResourceClient's lists come) is recorded as one
 * `list` event with its objects, so the tests read the same whichever way a list arrives.
 */
function consume(watcher: Watcher<ObjectLike>) {
  const events: WatcherEvent<ObjectLike>[] = [];
  const waiters: { n: number; resolve: () => void }[] = [];
  let listing: ObjectLike[] | undefined;
  const done = (async () => {
    for await (const raw of watcher) {
      let event: WatcherEvent<ObjectLike> = raw;
      if (raw.type === 'init') {
        listing = [];
        continue;
      }
      if (raw.type === 'initApply') {
        listing?.push(raw.object);
        continue;
      }
      if (raw.type === 'initDone') {
        event = { type: 'list', objects: listing ?? [], resourceVersion: raw.resourceVersion };
        listing = undefined;
      }
      events.push(event);
      for (const w of waiters.filter((w) => events.length >= w.n)) w.resolve();
    }
  })();
  const until = (n: number): Promise<void> =>
    events.length >= n ? Promise.resolve() : new Promise((resolve) => waiters.push({ n, resolve }));
  return { events, until, done };
}

function describeEvent(e: WatcherEvent<ObjectLike>): string {
  switch (e.type) {
    case 'list':
      return `list ${e.objects.map((o) => o.metadata?.name).join(',')}`;
    case 'init':
    case 'initDone':
      return e.type;
    case 'initApply':
      return `initApply ${e.object.metadata?.name}`;
    case 'applied':
    case 'deleted':
      return `${e.type} ${e.object.metadata?.name}`;
    case 'error':
      return 'error';
  }
}

const watchRequests = (server: FakeApiServer) => server.requests.filter((r) => r.watch);

/** Resolves once the server holds an open watch (turns of the event loop, no real waiting). */
async function watching(server: FakeApiServer): Promise<void> {
  for (let turn = 0; server.watches === 0; turn++) {
    if (turn > 1_000) throw new Error('no watch was opened');
    await new Promise<void>((r) => setImmediate(r));
  }
}

describe('Watcher (list + watch as an async stream)', () => {
  it('yields the list, then the watch events; a bookmark moves the resume point without an event', async () => {
    const { server, client, watcher, thing } = setup();
    await client.create(thing('a'));
    const { events, until, done } = consume(watcher);
    await until(1);
    await client.create(thing('b'));
    await client.delete({ namespace: 'ns', name: 'a' });
    await until(3);
    assert.deepEqual(events.map(describeEvent), ['list a', 'applied b', 'deleted a']);
    await client.create(thing('c'));
    await until(4);
    server.bookmark();
    await settle();
    assert.equal(events.length, 4, 'no event for a bookmark');
    assert.equal(watcher.resourceVersion, server.resourceVersion);
    watcher.stop();
    await done;
  });

  it('resumes after the server closes the watch: from the last resourceVersion, no list', async () => {
    const { server, client, watcher, thing } = setup();
    await client.create(thing('a'));
    const { events, until, done } = consume(watcher);
    await until(1);
    await client.create(thing('b'));
    await until(2);
    const seenRv = watcher.resourceVersion;
    await watching(server);
    server.closeWatches();
    await client.create(thing('c'));
    await until(3);
    assert.deepEqual(events.map(describeEvent), ['list a', 'applied b', 'applied c']);
    assert.equal(watchRequests(server).length, 2);
    assert.equal(watchRequests(server)[1]!.query.resourceVersion, seenRv, 'resumed where it was');
    assert.equal(watcher.stats.lists, 1, 'no relist');
    watcher.stop();
    await done;
  });

  it('410 Gone on resume lists again: the list event carries what the server holds now', async () => {
    const { clock, server, client, watcher, thing } = setup();
    await client.create(thing('a'));
    await client.create(thing('b'));
    const { events, until, done } = consume(watcher);
    await until(1);
    await watching(server);
    server.disconnect();
    await until(2); // the failed watch, retried after a backoff
    await client.delete({ namespace: 'ns', name: 'b' });
    await client.create(thing('c'));
    server.compact();
    clock.step(2_000);
    await until(3);
    assert.deepEqual(events.map(describeEvent), ['list a,b', 'error', 'list a,c']);
    assert.equal(watcher.stats.relists, 1);
    assert.equal(watcher.stats.lists, 2);
    await client.create(thing('d'));
    await until(4);
    assert.equal(describeEvent(events[3]!), 'applied d', 'watching again after the relist');
    watcher.stop();
    await done;
  });

  it('a failed watch (500) is an error event, then a resume from the same resourceVersion after the backoff', async () => {
    const { clock, server, client, watcher, thing } = setup();
    await client.create(thing('a'));
    const heal = server.fault((r) => (r.watch ? statusError(500, 'InternalError') : undefined));
    const { events, until, done } = consume(watcher);
    await until(2);
    const error = events[1];
    assert.equal(error?.type, 'error');
    assert.ok(
      error.type === 'error' && error.retryInMs <= 2_000,
      'an unreachable server is retried within 2 s',
    );
    assert.equal(watcher.connected, false);
    const listRv = watcher.resourceVersion;
    heal();
    await client.create(thing('b'));
    clock.step(2_000);
    await until(3);
    assert.deepEqual(events.map(describeEvent), ['list a', 'error', 'applied b']);
    assert.equal(watchRequests(server).at(-1)!.query.resourceVersion, listRv, 'resumed, not relisted');
    assert.equal(watcher.stats.lists, 1);
    assert.equal(watcher.connected, true);
    watcher.stop();
    await done;
  });

  it('leaving the loop stops the watcher and closes its watch', async () => {
    const { server, client, watcher, thing } = setup();
    await client.create(thing('a'));
    for await (const event of watcher) {
      assert.equal(event.type, 'init', 'the list streams in (ResourceClient.listEach)');
      await settle();
      assert.equal(server.watches, 1);
      break;
    }
    await settle();
    assert.equal(server.watches, 0, 'the watch was closed');
    await client.create(thing('b'));
    await settle();
    assert.equal(watcher.stats.watches, 1, 'and no new one opened');
  });
});
