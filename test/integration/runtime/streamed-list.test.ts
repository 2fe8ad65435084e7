import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { TransportRequest } from '../../../src/client/transport.ts';
import { ResourceClient } from '../../../src/client/resource-client.ts';
import { builtinKinds, InformerCache, Transport } from '../../../src/runtime/index.ts';
import { controlPlaneSkip, startControlPlane, type ControlPlane } from '../../../src/testing/index.ts';
import { MemcachedKind, type Memcached } from '../../fixtures/runtime/memcached-operator.ts';
import { createNamespace, eventually, installCrdFile, memoryLogger } from './helpers.ts';

const CRD = new URL('../../fixtures/runtime/memcached-crd.yaml', import.meta.url);
const COUNT = 1_500;
/** ~500 bytes of data per object: each list is ~1 MB, many of the decoder's ~64 KB batches. */
const FILLER = 'x'.repeat(500);

/** Runs `work` for 0..count-1, 16 at a time. */
async function parallel(count: number, work: (i: number) => Promise<unknown>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: 16 }, async () => {
      for (let i = next++; i < count; i = next++) await work(i);
    }),
  );
}

interface ListCall {
  readonly path: string;
  readonly query: TransportRequest['query'];
  readonly accept: string | undefined;
  /** Item batches handed on before the request resolved (while the answer was arriving). */
  early: number;
  items: number;
  done: boolean;
}

/** A transport that records each requestItems call: its query and how its items came. */
function recording(base: Transport) {
  const lists: ListCall[] = [];
  const transport: Transport = {
    request: (req) => base.request(req),
    requestItems: async (req, onItems) => {
      const call: ListCall = {
        path: req.path,
        query: req.query,
        accept: req.accept,
        early: 0,
        items: 0,
        done: false,
      };
      lists.push(call);
      const rest = await base.requestItems!(req, (items) => {
        call.items += items.length;
        // The decoder hands the last items on from end(), after the last byte: count the others.
        if (call.items < COUNT) call.early++;
        onItems(items);
      });
      call.done = true;
      return rest;
    },
    stream: (req, onLine, onOpen) => base.stream(req, onLine, onOpen),
    close: () => base.close(),
  };
  return { lists, transport };
}

/**
 * Informers on the real API server list by list requests whose items are decoded while the answer
 * arrives (list-decoder.ts): a typed list (ConfigMaps), a metadata-only list (PartialObjectMetadataList)
 * and a custom resource's list (encoded with its keys sorted: items before metadata) fill their stores
 * in several batches; relists (consistent pages of 500) too.
 */
describe('informer lists decoded as they arrive', { timeout: 240_000, skip: controlPlaneSkip() }, () => {
  let cp: ControlPlane;
  before(async () => {
    cp = await startControlPlane();
    await createNamespace(cp.kubeConfig, 'sl');
    await installCrdFile(cp.kubeConfig, CRD, MemcachedKind);
    const t = await Transport.fromKubeConfig(cp.kubeConfig);
    const cms = new ResourceClient(t, builtinKinds.ConfigMap);
    const apps = new ResourceClient(t, MemcachedKind);
    await parallel(COUNT, (i) =>
      cms.create({ metadata: { namespace: 'sl', name: `cm-${i}` }, data: { i: String(i), filler: FILLER } }),
    );
    await parallel(COUNT, (i) =>
      apps.create({
        apiVersion: 'cache.example.com/v1alpha1',
        kind: 'Memcached',
        metadata: { namespace: 'sl', name: `app-${i}`, annotations: { filler: FILLER } },
        spec: { image: `memcached:1.6.${i}` },
      } as Memcached),
    );
    t.close();
  });
  after(async () => {
    await cp?.stop();
  });

  it('full, metadata-only and custom-resource informers fill in batches; a relist streams its pages', async () => {
    const base = await Transport.fromKubeConfig(cp.kubeConfig);
    const { lists, transport: t } = recording(base);
    const { logger } = memoryLogger();
    const cache = new InformerCache(t, { logger, namespaces: ['sl'] });
    cache.informersFor(builtinKinds.ConfigMap);
    cache.metadataInformersFor(builtinKinds.ConfigMap);
    cache.informersFor(MemcachedKind);
    cache.start();
    await cache.waitForSync();
    try {
      assert.equal(cache.list(builtinKinds.ConfigMap).length, COUNT);
      assert.equal(cache.listMetadata(builtinKinds.ConfigMap).length, COUNT);
      assert.equal(cache.list(MemcachedKind).length, COUNT);
      const cm = cache.get(builtinKinds.ConfigMap, 'sl', 'cm-1234');
      assert.deepEqual(cm?.data, { i: '1234', filler: FILLER });
      assert.equal(cm?.metadata?.managedFields, undefined, 'managedFields stripped');
      assert.equal(cache.get(MemcachedKind, 'sl', 'app-7')?.spec.image, 'memcached:1.6.7');
      const meta = cache.getMetadata(builtinKinds.ConfigMap, 'sl', 'cm-9');
      assert.equal((meta as { data?: unknown } | undefined)?.data, undefined, 'metadata only');
      assert.equal(lists.length, 3, 'one list request per informer');
      for (const call of lists) {
        assert.equal(call.query?.resourceVersion, '0', `${call.path}: from the watch cache`);
        assert.equal(call.items, COUNT, call.path);
        assert.ok(call.early >= 2, `${call.path} ${call.accept ?? ''}: ${call.early} batches before the end`);
      }

      // A relist (after 410 Gone or a restart) reads consistently, in pages of 500, each streamed.
      const cms = new ResourceClient(base, builtinKinds.ConfigMap);
      await cms.delete({ namespace: 'sl', name: 'cm-0' });
      await eventually('the delete is seen', () =>
        Promise.resolve(cache.get(builtinKinds.ConfigMap, 'sl', 'cm-0') === undefined),
      );
      const before = lists.length;
      for (const informer of cache.informersFor(builtinKinds.ConfigMap)) informer.restartListWatch();
      await eventually('the relist', () =>
        Promise.resolve(lists.length - before === 3 && lists.at(-1)!.done),
      );
      const pages = lists.slice(before);
      assert.equal(pages[0]?.query?.resourceVersion, undefined, 'a consistent list');
      assert.equal(pages[0]?.query?.limit, 500);
      assert.equal(typeof pages[1]?.query?.continue, 'string');
      assert.equal(cache.list(builtinKinds.ConfigMap).length, COUNT - 1);
      await cms.create({ metadata: { namespace: 'sl', name: 'cm-new' } });
      await eventually('a live create after the relist', () =>
        Promise.resolve(cache.get(builtinKinds.ConfigMap, 'sl', 'cm-new') !== undefined),
      );
    } finally {
      await cache.stop();
      t.close();
    }
  });
});
