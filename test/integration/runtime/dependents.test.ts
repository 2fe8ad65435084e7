import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  builtinKinds,
  dependent,
  dependents,
  Manager,
  ResourceClient,
  Transport,
  metricValue,
  type ObjectLike,
} from '../../../src/runtime/index.ts';
import { controlPlaneSkip, startControlPlane, type ControlPlane } from '../../../src/testing/index.ts';
import { MemcachedKind, type Memcached } from '../../fixtures/runtime/memcached-operator.ts';
import { createNamespace, eventually, installCrdFile, memcached, memoryLogger } from './helpers.ts';

const CRD = new URL('../../fixtures/runtime/memcached-crd.yaml', import.meta.url);
const { ConfigMap, Deployment, Service } = builtinKinds;

type Labels = { labels?: Record<string, string> };

/**
 * A parent (Memcached) with ConfigMap -> Deployment -> Service and a bulk set of ConfigMaps (one per
 * unit of spec.size) on a real kube-apiserver. It has no controller-manager: Deployments become
 * available only when the test patches their status, and no garbage collector runs, so ordered
 * cleanup is checked by the deletions and garbage-collected children by their ownerReferences.
 */
describe('dependents on a real API server', { timeout: 180_000, skip: controlPlaneSkip() }, () => {
  let cp: ControlPlane;
  let mgr: Manager;
  let running: Promise<void>;
  let user: Transport;
  const ns = 'deps';
  const deletes: string[] = [];
  /** The manager's requests that change something, events aside. */
  const writes: string[] = [];
  const { logger, lines } = memoryLogger();

  before(async () => {
    cp = await startControlPlane();
    await installCrdFile(cp.kubeConfig, CRD, MemcachedKind);
    await createNamespace(cp.kubeConfig, ns);
    user = await Transport.fromKubeConfig(cp.kubeConfig);
    mgr = await Manager.create({
      kubeConfig: cp.kubeConfig,
      metricsBindAddress: '0',
      healthProbeBindAddress: '0',
      handleSignals: false,
      logger,
      gracefulShutdownTimeoutMs: 5_000,
      onResponse: (method, path, status) => {
        if (method === 'DELETE' && status < 300) deletes.push(path.split('/').at(-2) ?? path);
        if (method !== 'GET' && !path.includes('/events')) writes.push(`${method} ${path}`);
      },
    });
    const config = dependent<ObjectLike, Memcached>(ConfigMap, {
      name: 'config',
      cleanup: 'ordered',
      desired: (m) => ({ metadata: { name: `${m.metadata.name}-config` }, data: { image: m.spec.image } }),
    });
    const web = dependent<ObjectLike, Memcached>(Deployment, {
      name: 'web',
      cleanup: 'ordered',
      desired: (m) => ({
        metadata: { name: `${m.metadata.name}-web` },
        spec: {
          replicas: 1,
          selector: { matchLabels: { app: `${m.metadata.name}-web` } },
          template: {
            metadata: { labels: { app: `${m.metadata.name}-web` } },
            spec: { containers: [{ name: 'memcached', image: m.spec.image }] },
          },
        },
      }),
    });
    const svc = dependent<ObjectLike, Memcached>(Service, {
      name: 'svc',
      cleanup: 'ordered',
      desired: (m) => ({
        metadata: { name: `${m.metadata.name}-web` },
        spec: { selector: { app: `${m.metadata.name}-web` }, ports: [{ port: 11211 }] },
      }),
    });
    const shards = dependents<ObjectLike, Memcached>(ConfigMap, {
      name: 'shards',
      desiredSet: (m) =>
        new Map(
          Array.from({ length: m.spec.size ?? 0 }, (_, i) => [
            `shard-${i}`,
            { metadata: { name: `${m.metadata.name}-shard-${i}` }, data: { shard: String(i) } },
          ]),
        ),
    });
    mgr
      .controller('memcached-deps')
      .for(MemcachedKind)
      .dependents([config, web.dependsOn(config), svc.dependsOn(web), shards])
      .complete();
    running = mgr.start();
    await mgr.ready;
  });

  after(async () => {
    await mgr?.stop();
    await running?.catch(() => undefined);
    user?.close();
    await cp?.stop();
  });

  const apps = () => new ResourceClient(user, MemcachedKind);
  const condition = async (type: string) =>
    (await apps().get({ namespace: ns, name: 'one' })).status?.conditions?.find((c) => c.type === type);
  const get = async <T extends ObjectLike>(
    kind: typeof ConfigMap | typeof Deployment | typeof Service,
    name: string,
  ) => {
    try {
      return (await new ResourceClient(user, kind).get({ namespace: ns, name })) as T;
    } catch {
      return undefined;
    }
  };
  const makeAvailable = async (name: string) => {
    const d = (await get<ObjectLike & { metadata: { generation?: number } }>(Deployment, name))!;
    await new ResourceClient(user, Deployment).patchStatus({ namespace: ns, name }, 'merge', {
      status: {
        observedGeneration: d.metadata.generation,
        replicas: 1,
        availableReplicas: 1,
        readyReplicas: 1,
        updatedReplicas: 1,
      },
    });
  };

  it('applies in order, waits for the Deployment, then the Service; the bulk set follows spec.size', async () => {
    await apps().create(memcached(ns, 'one', 2));
    await eventually('the Deployment', () => get(Deployment, 'one-web'));
    await eventually('WebReady=False', async () => (await condition('WebReady'))?.status === 'False');
    assert.equal((await condition('SvcReady'))?.reason, 'Waiting');
    assert.equal(await get(Service, 'one-web'), undefined);
    assert.ok(await get(ConfigMap, 'one-shard-1'));
    await makeAvailable('one-web');
    await eventually('Ready', async () => (await condition('Ready'))?.status === 'True');
    // Nothing changed: a pass writes nothing, though the API server defaulted the children's fields.
    const passes = () =>
      metricValue(mgr.metrics.reconcileTotal, { controller: 'memcached-deps', result: 'success' });
    const mark = writes.length;
    const n = await passes();
    await apps().patch({ namespace: ns, name: 'one' }, 'merge', {
      metadata: { annotations: { touched: 'yes' } },
    });
    await eventually('a pass after the touch', async () => (await passes()) > n);
    assert.deepEqual(writes.slice(mark), []);
    const svc = (await get(Service, 'one-web'))!;
    const parent = await apps().get({ namespace: ns, name: 'one' });
    assert.deepEqual(
      (svc.metadata as { ownerReferences?: { uid?: string }[] }).ownerReferences?.map((r) => r.uid),
      [parent.metadata.uid],
    );
    await apps().patch({ namespace: ns, name: 'one' }, 'merge', { spec: { size: 1 } });
    await eventually('shard-1 pruned', async () => (await get(ConfigMap, 'one-shard-1')) === undefined);
    assert.ok(await get(ConfigMap, 'one-shard-0'));
  });

  it('a Deployment deleted by hand is created again', async () => {
    const before = (await get(Deployment, 'one-web'))!;
    await new ResourceClient(user, Deployment).delete({ namespace: ns, name: 'one-web' });
    const again = await eventually('recreated', async () => {
      const d = await get(Deployment, 'one-web');
      return d && d.metadata?.uid !== before.metadata?.uid ? d : undefined;
    });
    assert.ok(again);
    await eventually('WebReady=False again', async () => (await condition('WebReady'))?.status === 'False');
    await makeAvailable('one-web');
    await eventually('Ready again', async () => (await condition('Ready'))?.status === 'True');
  });

  it('a field another manager took over is not overwritten; the conflict shows in status and events', async () => {
    await new ResourceClient(user, ConfigMap).patch(
      { namespace: ns, name: 'one-config' },
      'merge',
      { data: { image: 'theirs' } },
      { fieldManager: 'someone-else' },
    );
    const c = await eventually('ConfigReady=FieldConflict', async () => {
      const found = await condition('ConfigReady');
      return found?.reason === 'FieldConflict' ? found : undefined;
    });
    assert.match(c.message, /someone-else/);
    const cm = (await get<ObjectLike & { data?: Record<string, string> }>(ConfigMap, 'one-config'))!;
    assert.equal(cm.data?.image, 'theirs');
    const events = await user.request<{ items: { reason?: string; involvedObject?: { name?: string } }[] }>({
      method: 'GET',
      path: `/api/v1/namespaces/${ns}/events`,
    });
    await eventually('a FieldConflict event', async () => {
      const list = await user.request<typeof events>({
        method: 'GET',
        path: `/api/v1/namespaces/${ns}/events`,
      });
      return list.items.some((e) => e.reason === 'FieldConflict' && e.involvedObject?.name === 'one');
    });
    // Handing the field back (the other manager lets go of it) clears the conflict.
    await new ResourceClient(user, ConfigMap).patch(
      { namespace: ns, name: 'one-config' },
      'merge',
      { data: { image: 'memcached:1.6' } },
      { fieldManager: 'someone-else' },
    );
    void events;
  });

  it('after the API server is killed and restarted, a spec change is applied and passes are quiet again', async () => {
    await eventually('Ready before the restart', async () => (await condition('Ready'))?.status === 'True');
    await cp.restartApiServer({ signal: 'SIGKILL', downtimeMs: 500 });
    // The test's own client may hold a socket the kill reset: retry the write until it lands.
    await eventually(
      'size 3 written',
      async () => {
        await apps().patch({ namespace: ns, name: 'one' }, 'merge', { spec: { size: 3 } });
        return true;
      },
      30_000,
    );
    await eventually('shard-2 created after the restart', () => get(ConfigMap, 'one-shard-2'), 60_000);
    // Ready for this generation, the new shard counted: a Ready=True of before the change would let
    // the pass that reports shard-2 write after the check below has begun.
    await eventually(
      'Ready for generation with size 3',
      async () => {
        const app = await apps().get({ namespace: ns, name: 'one' });
        const c = (type: string) => app.status?.conditions?.find((x) => x.type === type);
        return (
          c('Ready')?.status === 'True' &&
          c('Ready')?.observedGeneration === app.metadata.generation &&
          c('ShardsReady')?.message === '3 ConfigMap(s) ready'
        );
      },
      60_000,
    );
    const passes = () =>
      metricValue(mgr.metrics.reconcileTotal, { controller: 'memcached-deps', result: 'success' });
    const mark = writes.length;
    const n = await passes();
    await apps().patch({ namespace: ns, name: 'one' }, 'merge', {
      metadata: { annotations: { touched: 'again' } },
    });
    await eventually('a pass after the touch', async () => (await passes()) > n);
    assert.deepEqual(writes.slice(mark), [], 'no hot loop: nothing to write');
  });

  it('the parent deleted: ordered dependents go Service, Deployment, ConfigMap; the bulk set carries its owner reference', async () => {
    const parent = await apps().get({ namespace: ns, name: 'one' });
    // Someone else's finalizer holds the Service: the Deployment must wait for it to be gone.
    const services = new ResourceClient(user, Service);
    await services.patch({ namespace: ns, name: 'one-web' }, 'merge', {
      metadata: { finalizers: ['test.op-gen.dev/hold'] },
    });
    deletes.length = 0;
    lines.length = 0;
    await apps().delete({ namespace: ns, name: 'one' });
    await eventually('the Service deleted', async () => deletes.includes('services'));
    // Two passes have ended waiting (the one that deleted the Service, and the one its update brought).
    const waits = () =>
      lines.filter((l) => l.msg === 'dependents still being deleted; waiting for their events').length;
    await eventually('two passes waiting for the Service', async () => waits() >= 2);
    assert.deepEqual(
      deletes.filter((d) => d !== 'events'),
      ['services'],
      'the Deployment waits while the Service is still there',
    );
    assert.ok(await get(Deployment, 'one-web'));
    await services.patch({ namespace: ns, name: 'one-web' }, 'merge', { metadata: { finalizers: null } });
    await eventually('the parent gone', async () => {
      try {
        await apps().get({ namespace: ns, name: 'one' });
        return false;
      } catch {
        return true;
      }
    });
    assert.deepEqual(
      deletes.filter((d) => d !== 'events'),
      ['services', 'deployments', 'configmaps'],
    );
    assert.equal(await get(Service, 'one-web'), undefined);
    assert.equal(await get(Deployment, 'one-web'), undefined);
    assert.equal(await get(ConfigMap, 'one-config'), undefined);
    // No garbage collector here: the shard stays, owned by the parent (GC deletes it in a cluster).
    const shard = (await get(ConfigMap, 'one-shard-0'))!;
    const meta = shard.metadata as Labels & { ownerReferences?: { uid?: string; controller?: boolean }[] };
    assert.deepEqual(
      meta.ownerReferences?.map((r) => [r.uid, r.controller]),
      [[parent.metadata.uid, true]],
    );
  });
});
