import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ResourceClient } from '../../../src/client/resource-client.ts';
import type { Transport, TransportRequest } from '../../../src/client/transport.ts';
import { builtinKinds } from '../../../src/runtime/builtin-kinds.ts';
import { FakeApiServer } from '../../../src/testing/fake-api-server.ts';

describe('ResourceClient.listAll', () => {
  it('follows continue to the last page; only the first page carries resourceVersion (client-go pager)', async () => {
    const server = new FakeApiServer().register(builtinKinds.ConfigMap);
    const seed = new ResourceClient(server.transport('seed'), builtinKinds.ConfigMap);
    for (let i = 0; i < 1_201; i++)
      await seed.create({ metadata: { namespace: 'ns', name: `cm-${String(i).padStart(4, '0')}` } });
    const inner = server.transport('lister');
    const queries: TransportRequest['query'][] = [];
    const recording: Transport = {
      request: (req) => {
        queries.push(req.query);
        return inner.request(req);
      },
      stream: (req, onLine, onOpen) => inner.stream(req, onLine, onOpen),
      close: () => inner.close(),
    };
    const list = await new ResourceClient(recording, builtinKinds.ConfigMap).listAll({
      namespace: 'ns',
      resourceVersion: '0',
    });
    assert.equal(list.items.length, 1_201);
    assert.equal(list.items[1_200]?.metadata?.name, 'cm-1200');
    assert.equal(queries.length, 3, 'pages of 500');
    assert.equal(queries[0]?.resourceVersion, '0');
    assert.equal(queries[0]?.continue, undefined);
    for (const q of queries.slice(1)) {
      assert.equal(q?.resourceVersion, undefined, 'a continued page names no resourceVersion');
      assert.equal(q?.limit, 500);
      assert.equal(typeof q?.continue, 'string');
    }
  });

  it('takes one page of 300,000 objects (a watch-cache answer ignores the limit) without overflowing the stack', async () => {
    const items = Array.from({ length: 300_000 }, (_, i) => ({
      metadata: { name: `cm-${i}`, namespace: 'ns' },
    }));
    const oneAnswer: Transport = {
      request: <T>() => Promise.resolve({ metadata: { resourceVersion: '7' }, items } as T),
      stream: () => Promise.resolve(),
      close: () => {},
    };
    const list = await new ResourceClient(oneAnswer, builtinKinds.ConfigMap).listAll({
      resourceVersion: '0',
    });
    assert.equal(list.items.length, 300_000);
    assert.equal(list.items[299_999]?.metadata?.name, 'cm-299999');
    assert.equal(list.metadata.resourceVersion, '7');
  });
});
