import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { builtinKinds, Manager, type Request } from '../../../src/runtime/index.ts';
import { controlPlaneSkip, startControlPlane, type ControlPlane } from '../../../src/testing/index.ts';
import { createNamespace, eventually, memoryLogger } from './helpers.ts';

/**
 * Metadata-only watches (controller-runtime's builder.OnlyMetadata) against a real API server: a
 * ConfigMap controller that owns Secrets and maps other Secrets by annotation, both through
 * PartialObjectMetadata lists and watches: its cache holds the Secrets' metadata only (no `data`),
 * events arrive, the owner mapping works, and the Secret kind has no full informer.
 */
describe('metadata-only watches on a real API server', { timeout: 180_000, skip: controlPlaneSkip() }, () => {
  let cp: ControlPlane;
  let mgr: Manager;
  let running: Promise<void>;
  const ns = 'meta';
  const seen: string[] = [];

  before(async () => {
    cp = await startControlPlane();
    await createNamespace(cp.kubeConfig, ns);
    const { logger } = memoryLogger();
    mgr = await Manager.create({
      kubeConfig: cp.kubeConfig,
      metricsBindAddress: '0',
      healthProbeBindAddress: '0',
      handleSignals: false,
      logger,
      gracefulShutdownTimeoutMs: 2_000,
    });
    // A Secret present before the start comes with the metadata-only initial list.
    await mgr.client.resource(builtinKinds.Secret).create({
      metadata: { name: 'early', namespace: ns, annotations: { 'example.com/for': 'target' } },
      stringData: { password: 'early-secret' },
    });
    mgr
      .controller('cms')
      .for(builtinKinds.ConfigMap)
      .ownsMetadata(builtinKinds.Secret)
      .watchesMetadata(builtinKinds.Secret, (s): Request[] => {
        const to = s.metadata?.annotations?.['example.com/for'];
        return to ? [{ namespace: s.metadata?.namespace ?? '', name: to }] : [];
      })
      .complete({
        async reconcile(_ctx, req) {
          seen.push(`${req.namespace}/${req.name}`);
        },
      });
    running = mgr.start();
    await mgr.ready;
  });

  after(async () => {
    await mgr?.stop();
    await running;
    await cp?.stop();
  });

  it('caches Secrets as PartialObjectMetadata (no data), maps owners and annotations, keeps no full Secret informer', async () => {
    const cms = mgr.client.resource(builtinKinds.ConfigMap);
    const secrets = mgr.client.resource(builtinKinds.Secret);
    // The mapped request for "early" came from the initial list.
    await eventually('the early Secret mapped', async () =>
      seen.includes(`${ns}/target`) ? true : undefined,
    );
    const owner = await cms.create({ metadata: { name: 'owner', namespace: ns } });
    await eventually('the owner reconciled', async () => (seen.includes(`${ns}/owner`) ? true : undefined));
    seen.length = 0;
    await secrets.create({
      metadata: {
        name: 'child',
        namespace: ns,
        ownerReferences: [
          { apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: owner.metadata!.uid!, controller: true },
        ],
      },
      stringData: { password: 'hunter2' },
    });
    await eventually('the owner reconciled for its Secret', async () =>
      seen.includes(`${ns}/owner`) ? true : undefined,
    );
    const cached = await eventually('the child in the metadata cache', async () =>
      mgr.cache.getMetadata(builtinKinds.Secret, ns, 'child'),
    );
    assert.equal(cached.kind, 'PartialObjectMetadata');
    assert.equal(cached.apiVersion, 'meta.k8s.io/v1');
    assert.equal(cached.metadata?.ownerReferences?.[0]?.uid, owner.metadata!.uid);
    assert.ok(
      !('data' in cached) && !('stringData' in cached) && !('type' in cached),
      JSON.stringify(cached),
    );
    for (const s of mgr.cache.listMetadata(builtinKinds.Secret, { namespace: ns }))
      assert.ok(!('data' in s), `${s.metadata?.name} has data in the cache`);
    assert.deepEqual(
      mgr.cache.listMetadata(builtinKinds.Secret, { namespace: ns }).map((s) => s.metadata?.name),
      ['child', 'early'],
    );
    assert.equal(mgr.cache.isCached(builtinKinds.Secret), false, 'no full Secret informer');
    // An update arrives as a metadata event too: a new annotation maps to a new request.
    seen.length = 0;
    const child = await secrets.get({ namespace: ns, name: 'child' });
    await secrets.replace({
      ...child,
      metadata: { ...child.metadata, annotations: { 'example.com/for': 'other' } },
    });
    await eventually('the annotation change mapped', async () =>
      seen.includes(`${ns}/other`) ? true : undefined,
    );
    // ctx.client reads Secrets from the API (full objects), not from the metadata cache.
    const full = await mgr.client.get(builtinKinds.Secret, { namespace: ns, name: 'child' });
    assert.equal(Buffer.from(full!.data!.password!, 'base64').toString(), 'hunter2');
  });
});
