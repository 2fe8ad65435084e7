import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ListOptions, ObjectLike, ObjectList } from '../../../src/client/resource-client.ts';
import { FakeClock } from '../../../src/runtime/clock.ts';
import { Informer } from '../../../src/runtime/informer.ts';
import { FakeListWatcher, quietLogger as quiet, settle } from '../../helpers/runtime-fakes.ts';

function thing(name: string, rv: string): ObjectLike {
  return { metadata: { name, namespace: 'ns', resourceVersion: rv } };
}

/**
 * FakeListWatcher with listEach (as ResourceClient has): each list hands its items on two at a time,
 * waiting for the test's `next()` between batches; `cutAfter` makes the next list fail after that
 * many items, as a connection cut in the middle of the answer does.
 */
class StreamingListWatcher extends FakeListWatcher {
  cutAfter: number | undefined;
  private gate: (() => void) | undefined;
  private waiting: (() => void) | undefined;

  async listEach(
    options: Omit<ListOptions, 'continue'>,
    onItems: (items: ObjectLike[]) => void,
  ): Promise<ObjectList<ObjectLike>> {
    const list = await this.listAll(options);
    const cutAfter = this.cutAfter;
    this.cutAfter = undefined;
    for (let i = 0; i < list.items.length; i += 2) {
      if (cutAfter !== undefined && i >= cutAfter)
        throw Object.assign(new Error('the connection closed before the answer ended'), {
          code: 'ECONNRESET',
        });
      onItems(list.items.slice(i, i + 2));
      await new Promise<void>((resolve) => {
        this.gate = resolve;
        this.waiting?.();
      });
    }
    return { ...list, items: [] };
  }

  /** Resolves once the list waits after a batch. */
  batched(): Promise<void> {
    if (this.gate) return Promise.resolve();
    return new Promise((resolve) => (this.waiting = resolve));
  }

  /** Lets the list go on to its next batch. */
  next(): void {
    const g = this.gate;
    this.gate = undefined;
    this.waiting = undefined;
    g?.();
  }

  /** Lets every batch through until the list ends. */
  async drain(): Promise<void> {
    for (let i = 0; i < 100 && this.sessions.length === 0; i++) {
      this.next();
      await settle(2);
    }
  }
}

function recordingInformer(lw: FakeListWatcher, clock: FakeClock) {
  const informer = new Informer<ObjectLike>(lw, { watchList: false, logger: quiet, clock });
  const seen: string[] = [];
  informer.addHandlers({
    onAdd: (o, initial) => seen.push(`add ${o.metadata?.name}${initial ? ' (initial)' : ''}`),
    onUpdate: (_old, o) => seen.push(`update ${o.metadata?.name}@${o.metadata?.resourceVersion}`),
    onDelete: (o) => seen.push(`delete ${o.metadata?.name}`),
  });
  return { informer, seen };
}

describe('Informer with a list streamed in batches (ResourceClient.listEach)', () => {
  it('stores and delivers each batch as it comes; synced once the list ends, then watches from its version', async () => {
    const lw = new StreamingListWatcher();
    lw.items = [thing('a', '1'), thing('b', '2'), thing('c', '3'), thing('d', '4'), thing('e', '5')];
    const { informer, seen } = recordingInformer(lw, new FakeClock());
    informer.start();
    await lw.batched();
    assert.deepEqual(seen, ['add a (initial)', 'add b (initial)']);
    assert.equal(informer.size, 2);
    assert.equal(informer.hasSynced, false, 'not synced in the middle of the list');
    lw.next();
    await lw.batched();
    assert.equal(informer.size, 4);
    await lw.drain();
    await informer.waitForSync();
    assert.equal(informer.size, 5);
    const session = await lw.nextSession(0);
    assert.equal(session.options.resourceVersion, '10', 'the watch resumes from the list');
    assert.equal(lw.lists[0]?.resourceVersion, '0');
    await informer.stop();
  });

  it('a list cut in the middle is retried whole; what the new list lacks is deleted, the rest updated', async () => {
    const lw = new StreamingListWatcher();
    lw.items = [thing('a', '1'), thing('b', '2'), thing('c', '3'), thing('d', '4')];
    lw.cutAfter = 2;
    const clock = new FakeClock();
    const { informer, seen } = recordingInformer(lw, clock);
    informer.start();
    await lw.batched();
    // Meanwhile b is deleted on the server; the cut comes after the first batch (a, b).
    lw.items = [thing('a', '1'), thing('c', '3'), thing('d', '4')];
    lw.next();
    await settle();
    assert.equal(informer.hasSynced, false);
    clock.step(30_000); // the backoff
    await lw.drain();
    await informer.waitForSync();
    assert.equal(lw.lists.length, 2, 'listed again');
    assert.deepEqual(
      [...informer.list()].map((o) => o.metadata?.name),
      ['a', 'c', 'd'],
    );
    assert.deepEqual(seen, [
      'add a (initial)',
      'add b (initial)',
      'update a@1',
      'add c (initial)',
      'add d (initial)',
      'delete b',
    ]);
    await informer.stop();
  });

  it('stop() in the middle of a list: no sync, no watch', async () => {
    const lw = new StreamingListWatcher();
    lw.items = [thing('a', '1'), thing('b', '2'), thing('c', '3')];
    const { informer } = recordingInformer(lw, new FakeClock());
    informer.start();
    await lw.batched();
    const stopped = informer.stop();
    lw.next();
    await lw.batched().then(() => lw.next());
    await stopped;
    assert.equal(informer.hasSynced, false);
    assert.equal(lw.sessions.length, 0, 'no watch was opened');
  });
});
