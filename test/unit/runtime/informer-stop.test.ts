import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type {
  ListOptions,
  ObjectLike,
  ObjectList,
  WatchEvent,
  WatchOptions,
} from '../../../src/client/resource-client.ts';
import { FakeClock } from '../../../src/runtime/clock.ts';
import { Informer, type ListWatcher } from '../../../src/runtime/informer.ts';
import { Thing, quietLogger as quiet, settle } from '../../helpers/runtime-fakes.ts';

/**
 * A list/watch fake whose lists wait until the test answers them. `honourAbort: false` is a server
 * (or client) that answers a list even after its signal aborted. Watches run until aborted.
 */
class HeldListWatcher implements ListWatcher<ObjectLike> {
  readonly kind = Thing;
  readonly lists: { options: Omit<ListOptions, 'continue'>; answer(): void; fail(err: Error): void }[] = [];
  readonly watches: WatchOptions[] = [];
  private readonly honourAbort: boolean;
  constructor(honourAbort: boolean) {
    this.honourAbort = honourAbort;
  }

  listAll(options: Omit<ListOptions, 'continue'> = {}): Promise<ObjectList<ObjectLike>> {
    return new Promise((resolve, reject) => {
      const answer = (): void => resolve({ metadata: { resourceVersion: '7' }, items: [] });
      this.lists.push({ options, answer, fail: reject });
      if (this.honourAbort)
        options.signal?.addEventListener('abort', () => reject(new DOMException('aborted', 'AbortError')), {
          once: true,
        });
    });
  }

  watch(options: WatchOptions, _onEvent: (event: WatchEvent<ObjectLike>) => void): Promise<void> {
    this.watches.push(options);
    return new Promise((resolve) => {
      if (options.signal?.aborted) return resolve();
      options.signal?.addEventListener('abort', () => resolve(), { once: true });
    });
  }
}

/** Whether `p` settles within a few turns of the event loop (no real waiting involved). */
async function settlesSoon(p: Promise<unknown>): Promise<boolean> {
  let done = false;
  void p.then(() => (done = true));
  await settle();
  return done;
}

describe('Informer.stop()', () => {
  it('during a list the server answers afterwards: no watch is opened, stop() resolves', async () => {
    const lw = new HeldListWatcher(false);
    const informer = new Informer<ObjectLike>(lw, {
      watchList: false,
      logger: quiet,
      clock: new FakeClock(),
    });
    informer.start();
    await settle();
    assert.equal(lw.lists.length, 1);
    const stopped = informer.stop();
    lw.lists[0]!.answer();
    assert.ok(await settlesSoon(stopped), 'stop() resolved');
    assert.equal(lw.watches.length, 0, 'no watch opened after stop()');
  });

  it('aborts a list in flight', async () => {
    const lw = new HeldListWatcher(true);
    const informer = new Informer<ObjectLike>(lw, {
      watchList: false,
      logger: quiet,
      clock: new FakeClock(),
    });
    informer.start();
    await settle();
    assert.ok(lw.lists[0]!.options.signal, 'the list carries a signal');
    assert.ok(await settlesSoon(informer.stop()), 'stop() resolved without the list answering');
    assert.equal(lw.lists[0]!.options.signal.aborted, true);
    assert.equal(lw.watches.length, 0);
  });

  it('aborts the watch, and a backoff wait', async () => {
    const lw = new HeldListWatcher(true);
    const informer = new Informer<ObjectLike>(lw, {
      watchList: false,
      logger: quiet,
      clock: new FakeClock(),
    });
    informer.start();
    await settle();
    lw.lists[0]!.answer();
    await settle();
    assert.equal(lw.watches.length, 1);
    assert.ok(await settlesSoon(informer.stop()), 'stop() ended the watch');
    assert.equal(lw.watches[0]!.signal?.aborted, true);

    const failing = new HeldListWatcher(true);
    const again = new Informer<ObjectLike>(failing, {
      watchList: false,
      logger: quiet,
      clock: new FakeClock(),
    });
    again.start();
    await settle();
    failing.lists[0]!.fail(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }));
    await settle();
    assert.equal(failing.lists.length, 1, 'waiting out the backoff on the fake clock');
    assert.ok(await settlesSoon(again.stop()), 'stop() ended the backoff wait');
    assert.equal(failing.lists.length, 1, 'and listed no more');
  });

  it('a restart during a list aborts it and lists again with the new parameters', async () => {
    const lw = new HeldListWatcher(true);
    let shard = 'a';
    const informer = new Informer<ObjectLike>(lw, {
      watchList: false,
      logger: quiet,
      clock: new FakeClock(),
      listParams: () => ({ shardSelector: shard }),
    });
    informer.start();
    await settle();
    shard = 'b';
    informer.restartListWatch();
    await settle();
    assert.equal(lw.lists.length, 2);
    assert.equal(lw.lists[0]!.options.signal?.aborted, true, 'the stale list was aborted');
    assert.deepEqual(lw.lists[1]!.options.extraQuery, { shardSelector: 'b' });
    lw.lists[1]!.answer();
    await settle();
    assert.deepEqual(lw.watches[0]!.extraQuery, { shardSelector: 'b' });
    await informer.stop();
  });
});
