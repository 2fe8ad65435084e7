import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ApiError } from '../../../src/client/api-error.ts';
import { defineKind } from '../../../src/client/kind.ts';
import { ResourceClient, type ObjectLike, type WatchEvent } from '../../../src/client/resource-client.ts';
import { FakeApiServer, statusError } from '../../../src/testing/fake-api-server.ts';

/** The fake API server's answers where the runtime depends on them being kube-apiserver's. */
type Widget = ObjectLike & {
  spec?: Record<string, unknown>;
  status?: Record<string, unknown>;
  metadata?: { finalizers?: string[]; generation?: number; deletionTimestamp?: string };
};
const Widget = defineKind<Widget>({
  group: 'test.op-gen.dev',
  version: 'v1',
  kind: 'Widget',
  plural: 'widgets',
  namespaced: true,
});

function setup() {
  const server = new FakeApiServer().register(Widget, { statusSubresource: true });
  const client = new ResourceClient(server.transport(), Widget);
  return { server, client };
}

const key = { namespace: 'ns', name: 'w' };
const rejectsWith = (p: Promise<unknown>, code: number, reason: string) =>
  assert.rejects(
    p,
    (err: unknown) => err instanceof ApiError && err.statusCode === code && err.reason === reason,
  );

describe('FakeApiServer', () => {
  it('create, AlreadyExists, update with a stale resourceVersion is a Conflict, generation on spec changes', async () => {
    const { client } = setup();
    const w = await client.create({ metadata: { name: 'w', namespace: 'ns' }, spec: { a: 1 } });
    assert.equal(w.metadata?.generation, 1);
    await rejectsWith(client.create({ metadata: { name: 'w', namespace: 'ns' } }), 409, 'AlreadyExists');
    const w2 = await client.replace({ ...w, spec: { a: 2 } });
    assert.equal(w2.metadata?.generation, 2);
    await rejectsWith(client.replace({ ...w, spec: { a: 3 } }), 409, 'Conflict');
    const same = await client.replace(w2);
    assert.equal(same.metadata?.resourceVersion, w2.metadata?.resourceVersion, 'a no-op update');
  });

  it('the status subresource: main writes keep status, status writes keep the rest', async () => {
    const { client } = setup();
    const w = await client.create({
      metadata: { name: 'w', namespace: 'ns' },
      spec: { a: 1 },
      status: { x: 1 },
    });
    assert.equal(w.status, undefined, 'status is dropped on create');
    const s = await client.replaceStatus({ ...w, spec: { a: 9 }, status: { x: 2 } });
    assert.deepEqual([s.spec, s.status], [{ a: 1 }, { x: 2 }]);
    const m = await client.replace({ ...s, spec: { a: 3 }, status: { x: 7 } });
    assert.deepEqual([m.spec, m.status], [{ a: 3 }, { x: 2 }]);
  });

  it('server-side apply: conflicts with another manager unless forced; dropped fields are removed', async () => {
    const { client } = setup();
    const base = {
      apiVersion: 'test.op-gen.dev/v1',
      kind: 'Widget',
      metadata: { name: 'w', namespace: 'ns' },
    };
    await client.apply({ ...base, spec: { a: 1, b: 1 } }, { fieldManager: 'one' });
    await rejectsWith(client.apply({ ...base, spec: { a: 2 } }, { fieldManager: 'two' }), 409, 'Conflict');
    const same = await client.apply({ ...base, spec: { a: 1, c: 1 } }, { fieldManager: 'two' });
    assert.deepEqual(same.spec, { a: 1, b: 1, c: 1 }, 'an equal value is shared, not a conflict');
    const forced = await client.apply({ ...base, spec: { a: 2 } }, { fieldManager: 'two', force: true });
    assert.deepEqual(forced.spec, { a: 2, b: 1 }, 'two took a over and dropped c');
    const dropped = await client.apply({ ...base, spec: {} }, { fieldManager: 'one' });
    assert.deepEqual(dropped.spec, { a: 2 }, "one stopped applying b: removed; a is two's");
  });

  it('delete with finalizers sets deletionTimestamp; removing the last finalizer deletes', async () => {
    const { client, server } = setup();
    await client.create({ metadata: { name: 'w', namespace: 'ns', finalizers: ['f'] } });
    await client.delete(key);
    const deleting = server.get(Widget, 'ns', 'w');
    assert.ok(deleting?.metadata.deletionTimestamp);
    await client.patch(key, 'json', [{ op: 'remove', path: '/metadata/finalizers' }]);
    assert.equal(server.get(Widget, 'ns', 'w'), undefined);
    await rejectsWith(client.get(key), 404, 'NotFound');
  });

  it('JSON patch (RFC 6902, json/json-patch.ts): every operation; a failed test or a missing path is 422, an unknown op 400', async () => {
    const { client } = setup();
    await client.create({ metadata: { name: 'w', namespace: 'ns' }, spec: { a: 1, list: ['x'] } });
    const patched = await client.patch(key, 'json', [
      { op: 'test', path: '/spec/a', value: 1 },
      { op: 'replace', path: '/spec/a', value: 2 },
      { op: 'add', path: '/spec/list/-', value: 'y' },
      { op: 'copy', from: '/spec/list', path: '/spec/copy' },
      { op: 'move', from: '/spec/a', path: '/spec/b' },
      { op: 'remove', path: '/spec/list/0' },
    ]);
    assert.deepEqual(patched.spec, { list: ['y'], copy: ['x', 'y'], b: 2 });
    await rejectsWith(client.patch(key, 'json', [{ op: 'test', path: '/spec/b', value: 3 }]), 422, 'Invalid');
    await rejectsWith(client.patch(key, 'json', [{ op: 'remove', path: '/spec/nothing' }]), 422, 'Invalid');
    await rejectsWith(client.patch(key, 'json', [{ op: 'frobnicate', path: '/spec' }]), 400, 'BadRequest');
    assert.deepEqual((await client.get(key)).spec, patched.spec, 'a refused patch changes nothing');
  });

  it('watch replays from a resourceVersion, and answers 410 Gone for one older than the compaction', async () => {
    const { client, server } = setup();
    const a = await client.create({ metadata: { name: 'a', namespace: 'ns' } });
    await client.create({ metadata: { name: 'b', namespace: 'ns' } });
    const events: string[] = [];
    const abort = new AbortController();
    const watching = client.watch(
      { resourceVersion: a.metadata?.resourceVersion ?? '', signal: abort.signal },
      (e: WatchEvent<Widget>) => events.push(`${e.type} ${e.object.metadata?.name}`),
    );
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(events, ['ADDED b']);
    abort.abort();
    await watching;
    server.compact();
    const gone: WatchEvent<Widget>[] = [];
    await client.watch({ resourceVersion: a.metadata?.resourceVersion ?? '' }, (e) => gone.push(e));
    assert.equal(gone[0]?.type, 'ERROR');
    assert.equal((gone[0]?.object as unknown as { code: number }).code, 410);
  });

  it('paginated lists; a continue token older than the compaction is 410 Expired', async () => {
    const { client, server } = setup();
    for (const n of ['a', 'b', 'c']) await client.create({ metadata: { name: n, namespace: 'ns' } });
    const page = await client.list({ limit: 2 });
    assert.deepEqual(
      page.items.map((i) => i.metadata?.name),
      ['a', 'b'],
    );
    assert.equal(page.metadata.remainingItemCount, 1);
    const all = await client.listAll({ limit: 1 });
    assert.equal(all.items.length, 3);
    await client.create({ metadata: { name: 'd', namespace: 'ns' } });
    server.compact();
    await rejectsWith(client.list({ limit: 2, continue: page.metadata.continue ?? '' }), 410, 'Expired');
  });

  it('faults fail the requests they choose, per client', async () => {
    const server = new FakeApiServer();
    const stop = server.fault((r) => (r.client === 'b' ? statusError(429, 'TooManyRequests') : undefined));
    const a = new ResourceClient(server.transport('a'), Widget);
    const b = new ResourceClient(server.transport('b'), Widget);
    await a.list();
    await rejectsWith(b.list(), 429, 'TooManyRequests');
    stop();
    await b.list();
  });
});
