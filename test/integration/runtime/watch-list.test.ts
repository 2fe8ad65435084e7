import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { TransportRequest } from '../../../src/client/transport.ts';
import { ResourceClient } from '../../../src/client/resource-client.ts';
import { builtinKinds, Informer, InformerCache, Transport } from '../../../src/runtime/index.ts';
import { controlPlaneSkip, startControlPlane, type ControlPlane } from '../../../src/testing/index.ts';
import { createNamespace, eventually, memoryLogger } from './helpers.ts';

/**
 * Informers list by watch-list on the real API server (its WatchList feature, on by default since
 * 1.34): one watch with sendInitialEvents, ended by the bookmark annotated k8s.io/initial-events-end,
 * no list request; metadata-only and label-selected informers too. With the feature off the server
 * refuses the watch and the informer lists instead.
 */
async function seed(t: Transport, namespace: string, count: number): Promise<void> {
  for (let i = 0; i < count; i++)
    await t.request({
      method: 'POST',
      path: `/api/v1/namespaces/${namespace}/configmaps`,
      body: {
        metadata: { name: `cm-${i}`, labels: { half: String(i % 2) } },
        data: { i: String(i) },
      },
    });
}

/** A transport that records each request: whether a stream (watch), and its query. */
function recording(base: Transport) {
  const requests: { stream: boolean; path: string; query: TransportRequest['query'] }[] = [];
  const transport: Transport = {
    request: (req) => (requests.push({ stream: false, path: req.path, query: req.query }), base.request(req)),
    stream: (req, onLine, onOpen) => (
      requests.push({ stream: true, path: req.path, query: req.query }),
      base.stream(req, onLine, onOpen)
    ),
    close: () => base.close(),
  };
  return { requests, transport };
}

describe('informers list by watch-list', { timeout: 180_000, skip: controlPlaneSkip() }, () => {
  let cp: ControlPlane;
  before(async () => {
    cp = await startControlPlane();
    await createNamespace(cp.kubeConfig, 'wl');
    const t = await Transport.fromKubeConfig(cp.kubeConfig);
    await seed(t, 'wl', 30);
    t.close();
  });
  after(async () => {
    await cp?.stop();
  });

  it('syncs full, metadata-only and label-selected informers by watch-list, then sees live changes on the same watch', async () => {
    const base = await Transport.fromKubeConfig(cp.kubeConfig);
    const { requests, transport: t } = recording(base);
    const { logger, lines } = memoryLogger();
    const cache = new InformerCache(t, { logger, namespaces: ['wl'], watchList: true });
    cache.informersFor(builtinKinds.ConfigMap);
    cache.metadataInformersFor(builtinKinds.ConfigMap);
    const selected = new Informer(new ResourceClient(t, builtinKinds.ConfigMap), {
      namespace: 'wl',
      labelSelector: 'half=1',
      watchList: true,
      logger,
    });
    selected.start();
    cache.start();
    await cache.waitForSync();
    await selected.waitForSync();
    assert.equal(selected.size, 15, 'the selector applies to the initial events');
    assert.equal(selected.stats.watchLists, 1);
    assert.equal(cache.list(builtinKinds.ConfigMap).length, 30);
    assert.equal(cache.listMetadata(builtinKinds.ConfigMap).length, 30);
    const meta = cache.getMetadata(builtinKinds.ConfigMap, 'wl', 'cm-3');
    assert.equal(meta?.metadata?.name, 'cm-3');
    assert.equal((meta as { data?: unknown } | undefined)?.data, undefined, 'metadata only');
    for (const s of Object.values(cache.stats())) {
      assert.equal(s.watchLists, 1);
      assert.equal(s.lists, 1, 'one list, the watch-list');
    }
    const configMaps = requests.filter((r) => r.path.endsWith('/configmaps'));
    assert.deepEqual(
      configMaps.filter((r) => !r.stream),
      [],
      'no list request',
    );
    assert.equal(configMaps.length, 3, 'three watches: full, metadata-only, selected');
    for (const r of configMaps) {
      assert.equal(r.query?.sendInitialEvents, true);
      assert.equal(r.query?.resourceVersionMatch, 'NotOlderThan');
      assert.equal(r.query?.resourceVersion, undefined, 'a consistent list: no resourceVersion');
    }
    assert.equal(
      lines.some((l) => String(l.msg).includes('watch-list not served')),
      false,
    );
    // A change after the bookmark arrives on the same watch.
    await t.request({
      method: 'POST',
      path: '/api/v1/namespaces/wl/configmaps',
      body: { metadata: { name: 'late' } },
    });
    await eventually(
      'the late ConfigMap in the cache',
      async () => cache.get(builtinKinds.ConfigMap, 'wl', 'late') !== undefined,
    );
    await eventually('the selected informer misses it (no label)', async () => selected.size === 15);
    for (const s of Object.values(cache.stats())) assert.equal(s.watches, 0, 'no second watch');
    const streams = requests.filter((r) => r.stream && r.path.endsWith('/configmaps'));
    assert.equal(streams.length, 3, JSON.stringify(streams));
    await selected.stop();
    await cache.stop();
    t.close();
  });
});

describe('informers on a server without watch-list', { timeout: 180_000, skip: controlPlaneSkip() }, () => {
  let cp: ControlPlane;
  before(async () => {
    cp = await startControlPlane({ featureGates: { WatchList: false } });
    await createNamespace(cp.kubeConfig, 'wl');
    const t = await Transport.fromKubeConfig(cp.kubeConfig);
    await seed(t, 'wl', 10);
    t.close();
  });
  after(async () => {
    await cp?.stop();
  });

  it('the watch-list is refused; the informer lists instead and says so at debug level', async () => {
    const t = await Transport.fromKubeConfig(cp.kubeConfig);
    const { logger, lines } = memoryLogger();
    const cache = new InformerCache(t, { logger, namespaces: ['wl'], watchList: true });
    cache.informersFor(builtinKinds.ConfigMap);
    cache.start();
    await cache.waitForSync();
    assert.equal(cache.list(builtinKinds.ConfigMap).length, 10);
    const s = Object.values(cache.stats())[0]!;
    assert.equal(s.watchLists, 1, 'asked once');
    assert.equal(s.lists, 2, 'then listed');
    const line = lines.find((l) => String(l.msg).includes('watch-list not served'));
    assert.ok(line, 'a debug line');
    assert.equal(line.level, 'debug');
    console.log('refusal:', line.reason);
    await cache.stop();
    t.close();
  });
});
