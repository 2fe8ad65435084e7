import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ObjectLike } from '../../../src/client/resource-client.ts';
import { InformerStore } from '../../../src/runtime/informer-store.ts';

function thing(name: string, rv: string): ObjectLike {
  return { metadata: { name, namespace: 'ns', resourceVersion: rv } };
}

function recording(store: InformerStore<ObjectLike>): string[] {
  const seen: string[] = [];
  store.addHandlers({
    onAdd: (o, initial) => seen.push(`add ${o.metadata?.name}${initial ? ' (initial)' : ''}`),
    onUpdate: (_old, o) => seen.push(`update ${o.metadata?.name}@${o.metadata?.resourceVersion}`),
    onDelete: (o) => seen.push(`delete ${o.metadata?.name}`),
  });
  return seen;
}

describe('InformerStore (no server: fed watcher events)', () => {
  it('a list replaces the content; watch events add, update (on a new resourceVersion) and delete', async () => {
    const store = new InformerStore<ObjectLike>();
    const seen = recording(store);
    let synced = false;
    void store.waitForSync().then(() => (synced = true));
    store.apply({ type: 'list', objects: [thing('a', '1'), thing('b', '2')], resourceVersion: '2' });
    await Promise.resolve();
    assert.equal(synced, true);
    store.apply({ type: 'applied', object: thing('a', '1') }); // same resourceVersion: nothing
    store.apply({ type: 'applied', object: thing('a', '3') });
    store.apply({ type: 'applied', object: thing('c', '4') });
    store.apply({ type: 'deleted', object: thing('b', '5') });
    store.apply({ type: 'error', error: new Error('x'), retryInMs: 1 });
    assert.deepEqual(seen, ['add a (initial)', 'add b (initial)', 'update a@3', 'add c', 'delete b']);
    seen.length = 0;
    store.apply({ type: 'list', objects: [thing('a', '3'), thing('d', '6')], resourceVersion: '6' });
    assert.deepEqual(seen, ['update a@3', 'add d', 'delete c']);
    assert.deepEqual([...store.values()].map((o) => o.metadata?.name).sort(), ['a', 'd']);
    assert.equal(store.get('ns', 'c'), undefined);
  });

  it('applies the transform before storing, and late handlers get what is stored as initial adds', () => {
    const store = new InformerStore<ObjectLike>((o) => ({ ...o, kind: 'Seen' }));
    store.apply({ type: 'list', objects: [thing('a', '1')], resourceVersion: '1' });
    store.apply({ type: 'applied', object: thing('b', '2') });
    assert.equal(store.get('ns', 'b')?.kind, 'Seen');
    const seen = recording(store);
    assert.deepEqual(seen.sort(), ['add a (initial)', 'add b (initial)']);
  });
});
