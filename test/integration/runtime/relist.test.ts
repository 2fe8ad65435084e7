import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { builtinKinds, InformerCache, isGone, Transport } from '../../../src/runtime/index.ts';
import { controlPlaneSkip, startControlPlane, type ControlPlane } from '../../../src/testing/index.ts';
import { createNamespace, eventually, memoryLogger } from './helpers.ts';

/**
 * An informer whose resourceVersion etcd has compacted away relists (410 Gone) instead of failing or
 * watching forever from nowhere. Without the watch cache, a watch goes to etcd, and the API server
 * compacts etcd every second here: an informer on a quiet resource keeps its list's resourceVersion,
 * writes elsewhere move etcd past it, and after an API server restart its resumed watch is Gone.
 */
describe('informer relist on 410 Gone', { timeout: 180_000, skip: controlPlaneSkip() }, () => {
  let cp: ControlPlane;
  before(async () => {
    cp = await startControlPlane({
      apiServerFlags: ['--watch-cache=false', '--etcd-compaction-interval=1s'],
    });
  });
  after(async () => {
    await cp?.stop();
  });

  it('relists after its watch resumes at a compacted resourceVersion, and then sees new objects', async () => {
    await createNamespace(cp.kubeConfig, 'busy');
    await createNamespace(cp.kubeConfig, 'quiet');
    const t = await Transport.fromKubeConfig(cp.kubeConfig);
    const cache = new InformerCache(t, { logger: memoryLogger().logger });
    cache.informersFor(builtinKinds.ConfigMap);
    cache.start();
    await cache.waitForSync();
    const stats = () => Object.values(cache.stats()).reduce((a, s) => a + s.relists, 0);
    const relistsBefore = stats();

    // A resourceVersion at or after the informer's: once it is compacted, the informer's is too.
    const listed = await t.request<{ metadata: { resourceVersion: string } }>({
      method: 'GET',
      path: '/api/v1/configmaps',
      query: { limit: 1 },
    });
    const rv = listed.metadata.resourceVersion;
    let n = 0;
    await eventually(
      `etcd compacted past resourceVersion ${rv}`,
      async () => {
        // Writes to another resource move etcd's revision on; the informer sees none of them.
        await t.request({
          method: 'POST',
          path: '/api/v1/namespaces/busy/secrets',
          body: { apiVersion: 'v1', kind: 'Secret', metadata: { name: `s-${n++}` } },
        });
        try {
          await t.request({
            method: 'GET',
            path: '/api/v1/configmaps',
            query: { resourceVersion: rv, resourceVersionMatch: 'Exact', limit: 1 },
          });
          return false;
        } catch (err) {
          if (isGone(err)) return true;
          throw err;
        }
      },
      60_000,
    );
    assert.equal(stats(), relistsBefore, 'no relist while the watch is up');

    await cp.restartApiServer();
    await eventually('the informer to relist', async () => stats() > relistsBefore, 60_000);

    await t.request({
      method: 'POST',
      path: '/api/v1/namespaces/quiet/configmaps',
      body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'after-relist' }, data: { a: '1' } },
    });
    await eventually(
      'the new ConfigMap in the cache',
      async () => cache.get(builtinKinds.ConfigMap, 'quiet', 'after-relist') !== undefined,
      30_000,
    );
    await cache.stop();
    t.close();
  });
});
