import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ApiError } from '../../../src/client/api-error.ts';
import type { ObjectLike } from '../../../src/client/resource-client.ts';
import { FakeClock } from '../../../src/runtime/clock.ts';
import { Informer } from '../../../src/runtime/informer.ts';
import { createLogger } from '../../../src/runtime/logger.ts';
import { FakeListWatcher, quietLogger as quiet, refused, settle } from '../../helpers/runtime-fakes.ts';

function thing(name: string, rv: string): ObjectLike {
  return { metadata: { name, namespace: 'ns', resourceVersion: rv } };
}

function recordingInformer(lw: FakeListWatcher, clock: FakeClock) {
  const informer = new Informer<ObjectLike>(lw, { watchList: false, logger: quiet, clock });
  const seen: string[] = [];
  informer.addHandlers({
    onAdd: (o) => seen.push(`add ${o.metadata?.name}`),
    onUpdate: (_old, o) => seen.push(`update ${o.metadata?.name}@${o.metadata?.resourceVersion}`),
    onDelete: (o) => seen.push(`delete ${o.metadata?.name}`),
  });
  return { informer, seen };
}

describe('Informer after a watch gap', () => {
  it('a relist after 410 Gone delivers every object, unchanged ones as updates', async () => {
    const lw = new FakeListWatcher();
    lw.items = [thing('a', '1'), thing('b', '2'), thing('c', '3')];
    const clock = new FakeClock();
    const { informer, seen } = recordingInformer(lw, clock);
    informer.start();
    await informer.waitForSync();
    const first = await lw.nextSession(0);
    assert.deepEqual(seen, ['add a', 'add b', 'add c']);
    seen.length = 0;

    // While the watch was gone: b changed, c was deleted, d was created.
    lw.items = [thing('a', '1'), thing('b', '5'), thing('d', '6')];
    lw.listRv = '20';
    first.emit({ type: 'ERROR', object: { code: 410, message: 'too old resource version' } as ObjectLike });
    const second = await lw.nextSession(1);
    assert.equal(second.options.resourceVersion, '20', 'watches from the relist');
    assert.deepEqual(seen.sort(), ['add d', 'delete c', 'update a@1', 'update b@5']);
    assert.equal(informer.stats.relists, 1);
    await informer.stop();
  });

  it('lists first from the watch cache (resourceVersion 0, in pages of 500), relists after 410 consistently', async () => {
    const lw = new FakeListWatcher();
    lw.items = [thing('a', '1')];
    const { informer } = recordingInformer(lw, new FakeClock());
    informer.start();
    await informer.waitForSync();
    const first = await lw.nextSession(0);
    first.emit({ type: 'ERROR', object: { code: 410, message: 'too old resource version' } as ObjectLike });
    await lw.nextSession(1);
    assert.equal(lw.lists.length, 2);
    assert.equal(lw.lists[0]?.resourceVersion, '0', 'the first list may be served from the cache');
    assert.equal(lw.lists[0]?.limit, 500);
    assert.equal(lw.lists[1]?.resourceVersion, undefined, 'a relist is a consistent read');
    assert.equal(lw.lists[1]?.limit, 500);
    await informer.stop();
  });

  it('watch events that do not change the resourceVersion are not delivered twice', async () => {
    const lw = new FakeListWatcher();
    lw.items = [thing('a', '1')];
    const { informer, seen } = recordingInformer(lw, new FakeClock());
    informer.start();
    await informer.waitForSync();
    const session = await lw.nextSession(0);
    session.emit({ type: 'MODIFIED', object: thing('a', '1') });
    session.emit({ type: 'MODIFIED', object: thing('a', '2') });
    assert.deepEqual(seen, ['add a', 'update a@2']);
    await informer.stop();
  });

  it('reports connected, disconnected while the server refuses, and connected again', async () => {
    const lw = new FakeListWatcher();
    lw.items = [thing('a', '1')];
    const clock = new FakeClock();
    const { informer } = recordingInformer(lw, clock);
    let reconnects = 0;
    informer.onConnected(() => reconnects++);
    informer.start();
    await informer.waitForSync();
    const session = await lw.nextSession(0);
    assert.equal(informer.connected, true);
    reconnects = 0;

    lw.down = true;
    session.fail(Object.assign(new Error('aborted'), { code: 'ECONNRESET' }));
    await settle();
    assert.equal(informer.connected, false);
    clock.step(1_000); // the first retry fails too
    await settle();
    assert.equal(informer.connected, false);
    assert.equal(reconnects, 0);

    lw.down = false;
    clock.step(30_000);
    const resumed = await lw.nextSession(1);
    assert.equal(resumed.options.resourceVersion, '10', 'resumes from the last resourceVersion');
    assert.equal(informer.connected, true);
    assert.equal(reconnects, 1);
    await informer.stop();
  });

  it('a 410 answer to the resumed watch relists and re-delivers everything', async () => {
    const lw = new FakeListWatcher();
    lw.items = [thing('a', '1'), thing('b', '2')];
    const clock = new FakeClock();
    const { informer, seen } = recordingInformer(lw, clock);
    informer.start();
    await informer.waitForSync();
    const session = await lw.nextSession(0);
    seen.length = 0;
    // The API server restarts: its watch cache no longer knows resourceVersion 10.
    session.fail(Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }));
    await settle();
    const original = lw.watch.bind(lw);
    let gone = true;
    lw.watch = (options, onEvent) => {
      if (gone) {
        gone = false;
        return Promise.reject(new ApiError(410, 'GET', '/things', { reason: 'Gone', message: 'too old' }));
      }
      return original(options, onEvent);
    };
    clock.step(30_000);
    await lw.nextSession(1);
    assert.deepEqual(seen.sort(), ['update a@1', 'update b@2']);
    await informer.stop();
  });

  it('is in sync only once a relist is done: a resumed watch the server then ends with 410 does not count', async () => {
    const lw = new FakeListWatcher();
    lw.items = [thing('a', '1')];
    const clock = new FakeClock();
    const { informer, seen } = recordingInformer(lw, clock);
    const inSyncAt: string[] = [];
    informer.onInSync(() => inSyncAt.push(seen.join(',')));
    informer.start();
    await informer.waitForSync();
    const session = await lw.nextSession(0);
    assert.equal(informer.inSync, true);
    assert.equal(inSyncAt.length, 1);
    seen.length = 0;

    session.fail(Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }));
    await settle();
    assert.equal(informer.inSync, false, 'disconnected');
    lw.listRv = '20';
    lw.items = [thing('a', '12')];
    clock.step(30_000);
    const resumed = await lw.nextSession(1); // the watch opens: connected, but nothing received yet
    assert.equal(informer.connected, true);
    assert.equal(informer.inSync, false, 'an opened watch alone does not say the cache caught up');
    resumed.emit({ type: 'ERROR', object: { code: 410, message: 'too old resource version' } as ObjectLike });
    await lw.nextSession(2);
    assert.equal(informer.inSync, true);
    assert.deepEqual(inSyncAt, ['add a', 'update a@12'], 'told once more, after the relist was delivered');
    await informer.stop();
  });

  it('is in sync again when a watch resumed after a failure delivers an event', async () => {
    const lw = new FakeListWatcher();
    lw.items = [thing('a', '1')];
    const clock = new FakeClock();
    const { informer } = recordingInformer(lw, clock);
    informer.start();
    await informer.waitForSync();
    const session = await lw.nextSession(0);
    session.fail(Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }));
    await settle();
    clock.step(30_000);
    const resumed = await lw.nextSession(1);
    assert.equal(informer.inSync, false);
    resumed.emit({ type: 'MODIFIED', object: thing('a', '11') });
    assert.equal(informer.inSync, true);
    await informer.stop();
  });

  it('retries an unreachable server, and a 404 after its restart, at most 2 s apart', async () => {
    const lw = new FakeListWatcher();
    const clock = new FakeClock();
    const { informer } = recordingInformer(lw, clock);
    informer.start();
    await informer.waitForSync();
    const session = await lw.nextSession(0);
    let attempts = 0;
    const original = lw.watch.bind(lw);
    let answer: () => Error = refused;
    lw.watch = (options, onEvent) => {
      attempts++;
      return lw.down ? Promise.reject(answer()) : original(options, onEvent);
    };
    lw.down = true;
    session.fail(refused());
    await settle();
    for (let i = 0; i < 12; i++) {
      if (i === 6) answer = () => new ApiError(404, 'GET', '/things', { reason: 'NotFound' });
      const before = attempts;
      clock.step(2_000);
      await settle();
      assert.ok(attempts > before, `attempt ${i}: no retry within 2 s`);
    }
    await informer.stop();
  });
});

describe('Informer: other watch errors and resync', () => {
  it('a watch ERROR other than 410 is retried after a backoff from the same resourceVersion, without a relist', async () => {
    const lw = new FakeListWatcher();
    lw.items = [thing('a', '1')];
    const clock = new FakeClock();
    const lines: string[] = [];
    const informer = new Informer<ObjectLike>(lw, {
      watchList: false,
      logger: createLogger({ level: 'warn', write: (l) => void lines.push(l) }),
      clock,
    });
    const seen: string[] = [];
    informer.addHandlers({
      onUpdate: (_old, o) => seen.push(`update ${o.metadata?.name}@${o.metadata?.resourceVersion}`),
    });
    informer.start();
    await informer.waitForSync();
    const first = await lw.nextSession(0);
    first.emit({ type: 'MODIFIED', object: thing('a', '11') });
    let lists = 0;
    const listAll = lw.listAll.bind(lw);
    lw.listAll = (options) => (lists++, listAll(options));
    first.emit({ type: 'ERROR', object: { code: 500, message: 'etcd is unhappy' } as ObjectLike });
    await settle();
    const warning = JSON.parse(lines.at(-1) ?? '{}') as { msg?: string; error?: { message?: string } };
    assert.equal(warning.msg, 'list/watch failed; retrying');
    assert.equal(warning.error?.message, 'watch error: 500 etcd is unhappy');
    assert.equal(lw.sessions.length, 1, 'no new watch before the backoff');
    clock.step(800);
    const second = await lw.nextSession(1);
    assert.equal(second.options.resourceVersion, '11', 'resumes from the last event it saw');
    assert.equal(lists, 0, 'no relist');
    assert.equal(informer.stats.relists, 0);
    second.emit({ type: 'MODIFIED', object: thing('a', '12') });
    assert.deepEqual(seen, ['update a@11', 'update a@12']);
    await informer.stop();
  });

  it('resync delivers every cached object again as an update of itself', async () => {
    const lw = new FakeListWatcher();
    lw.items = [thing('a', '1'), thing('b', '2')];
    const informer = new Informer<ObjectLike>(lw, {
      watchList: false,
      logger: quiet,
      clock: new FakeClock(),
      resyncMs: 5,
    });
    const resynced = new Map<string, boolean>();
    const both = new Promise<void>((resolve) =>
      informer.addHandlers({
        onUpdate: (old, o) => {
          resynced.set(o.metadata?.name ?? '', old === o);
          if (resynced.size === 2) resolve();
        },
      }),
    );
    informer.start();
    await informer.waitForSync();
    await both;
    assert.deepEqual(
      [...resynced],
      [
        ['a', true],
        ['b', true],
      ],
    );
    await informer.stop();
  });
});
