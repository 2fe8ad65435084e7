import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import {
  builtinKinds,
  isConflict,
  isNotFound,
  Manager,
  ReconcileClient,
  Transport,
  InformerCache,
  KubeEventRecorder,
  type ReconcileContext,
  type Reconciler,
  type Request,
} from '../../../src/runtime/index.ts';
import { controlPlaneSkip, startControlPlane, type ControlPlane } from '../../../src/testing/index.ts';
import type { MemcachedReconciler } from '../../fixtures/runtime/memcached-operator.ts';
import {
  FINALIZER,
  MemcachedKind,
  setupMemcachedController,
  type Memcached,
} from '../../fixtures/runtime/memcached-operator.ts';
import {
  createNamespace,
  eventually,
  installCrdFile,
  memcached,
  memoryLogger,
  restartAndConverge,
} from './helpers.ts';

const CRD = new URL('../../fixtures/runtime/memcached-crd.yaml', import.meta.url);

interface LeaseSpec {
  holderIdentity?: string;
  acquireTime: string;
  renewTime: string;
  leaseTransitions?: number;
}

/** A Lease's spec as the API server has it. */
async function readLease(t: Transport, namespace: string, name: string): Promise<LeaseSpec> {
  const lease = await t.request<{ spec: LeaseSpec }>({
    method: 'GET',
    path: `/apis/coordination.k8s.io/v1/namespaces/${namespace}/leases/${name}`,
  });
  return lease.spec;
}

describe('op-gen/runtime against a real API server', { timeout: 180_000, skip: controlPlaneSkip() }, () => {
  let cp: ControlPlane;
  let mgr: Manager;
  let running: Promise<void>;
  let reconciler: MemcachedReconciler;
  const cleaned: string[] = [];
  const ns = 'sample';
  const { logger, lines } = memoryLogger();

  before(async () => {
    cp = await startControlPlane();
    await installCrdFile(cp.kubeConfig, CRD, MemcachedKind);
    await createNamespace(cp.kubeConfig, ns);
    mgr = await Manager.create({
      kubeConfig: cp.kubeConfig,
      metricsBindAddress: '127.0.0.1:0',
      healthProbeBindAddress: '127.0.0.1:0',
      handleSignals: false,
      logger,
      gracefulShutdownTimeoutMs: 5_000,
    });
    reconciler = setupMemcachedController(mgr);
    reconciler.onCleanup = async (o) => {
      cleaned.push(o.metadata.name ?? '');
    };
    running = mgr.start();
    await mgr.ready;
  });

  after(async () => {
    await mgr?.stop();
    await running;
    await cp?.stop();
  });

  const api = () => mgr.client.resource(MemcachedKind);
  const deployments = () => mgr.client.resource(builtinKinds.Deployment);

  it('converges: Deployment and Service owned by the CR, finalizer set, Ready with observedGeneration', async () => {
    await api().create(memcached(ns, 'one', 2));
    const ready = await eventually('Ready', async () => {
      const o = await api().get({ namespace: ns, name: 'one' });
      const c = o.status?.conditions?.find((x) => x.type === 'Ready');
      return c?.status === 'True' ? o : undefined;
    });
    assert.deepEqual(ready.metadata.finalizers, [FINALIZER]);
    assert.equal(ready.status?.conditions?.[0]?.observedGeneration, ready.metadata.generation);
    const dep = await deployments().get({ namespace: ns, name: 'one' });
    assert.equal(dep.spec?.replicas, 2);
    const owner = dep.metadata?.ownerReferences?.[0];
    assert.equal(owner?.uid, ready.metadata.uid);
    assert.equal(owner?.controller, true);
    const svc = await mgr.client.resource(builtinKinds.Service).get({ namespace: ns, name: 'one' });
    assert.equal(svc.metadata?.ownerReferences?.[0]?.kind, 'Memcached');
  });

  it('recreates a deleted child', async () => {
    const before = await deployments().get({ namespace: ns, name: 'one' });
    await deployments().delete({ namespace: ns, name: 'one' });
    const after = await eventually('Deployment recreated', async () => {
      try {
        const d = await deployments().get({ namespace: ns, name: 'one' });
        return d.metadata?.uid !== before.metadata?.uid ? d : undefined;
      } catch (err) {
        // Gone until the controller recreates it: only NotFound is expected here.
        if (isNotFound(err)) return undefined;
        throw err;
      }
    });
    assert.equal(after.metadata?.ownerReferences?.[0]?.name, 'one');
  });

  it('follows a spec change into the child and the condition', async () => {
    await api().patch({ namespace: ns, name: 'one' }, 'merge', { spec: { size: 3 } });
    await eventually(
      'replicas 3',
      async () => (await deployments().get({ namespace: ns, name: 'one' })).spec?.replicas === 3,
    );
    await eventually('observedGeneration 2', async () => {
      const o = await api().get({ namespace: ns, name: 'one' });
      return o.status?.conditions?.[0]?.observedGeneration === 2;
    });
  });

  it('reverts drift of an owned field (server-side apply re-applies it)', async () => {
    await deployments().patch({ namespace: ns, name: 'one' }, 'merge', { spec: { replicas: 7 } });
    await eventually(
      'replicas back to 3',
      async () => (await deployments().get({ namespace: ns, name: 'one' })).spec?.replicas === 3,
    );
  });

  it('runs the finalizer cleanup on delete, then lets the object go', async () => {
    await api().create(memcached(ns, 'doomed'));
    await eventually('finalizer added', async () =>
      (await api().get({ namespace: ns, name: 'doomed' })).metadata.finalizers?.includes(FINALIZER),
    );
    await api().delete({ namespace: ns, name: 'doomed' });
    await eventually('object gone', async () => {
      try {
        await api().get({ namespace: ns, name: 'doomed' });
        return false;
      } catch (err) {
        // Only NotFound means gone; any other error (5xx, network) is not an answer.
        if (isNotFound(err)) return true;
        throw err;
      }
    });
    // Cleanup must be idempotent: a pass on a cache that has not yet seen the finalizer's removal may
    // run it again (its finalizer update then fails with a Conflict and is dropped).
    assert.ok(
      cleaned.length >= 1 && cleaned.every((n) => n === 'doomed'),
      `cleanup ran for ${cleaned.join(',')}`,
    );
  });

  it('a write from a stale object is a typed Conflict, never a crash', async () => {
    const stale = await api().get({ namespace: ns, name: 'one' });
    await api().patch({ namespace: ns, name: 'one' }, 'merge', { metadata: { labels: { touched: 'yes' } } });
    await assert.rejects(
      mgr.client.update(MemcachedKind, { ...stale, metadata: { ...stale.metadata, labels: { mine: 'x' } } }),
      (err) => isConflict(err),
    );
  });

  it('a reconcile that hits a conflict is requeued and then succeeds', async () => {
    const seen: string[] = [];
    let conflicts = 0;
    class Flaky implements Reconciler<Memcached> {
      async reconcile(ctx: ReconcileContext<Memcached>, req: Request): Promise<void> {
        const obj = await ctx.client.get(MemcachedKind, req);
        if (!obj || req.name !== 'flaky') return;
        seen.push(obj.metadata.resourceVersion ?? '');
        if (conflicts === 0) {
          // A concurrent writer changes the object between our read and our write.
          await api().patch(req, 'merge', { metadata: { annotations: { writer: 'other' } } });
        }
        try {
          await ctx.client.update(MemcachedKind, {
            ...obj,
            metadata: { ...obj.metadata, annotations: { ...obj.metadata.annotations, done: 'yes' } },
          });
        } catch (err) {
          if (isConflict(err)) conflicts++;
          throw err;
        }
      }
    }
    mgr.controller('flaky').for(MemcachedKind).complete(new Flaky());
    await api().create(memcached(ns, 'flaky'));
    await eventually(
      'annotation written after the conflict',
      async () => (await api().get({ namespace: ns, name: 'flaky' })).metadata.annotations?.done === 'yes',
    );
    assert.ok(conflicts >= 1, 'the first write conflicted');
    assert.ok(
      lines.some((l) => l.msg === 'conflict writing a stale object; requeueing' && l.controller === 'flaky'),
    );
  });

  it('aggregates repeated events into one Event with a count', async () => {
    const transport = await Transport.fromKubeConfig(cp.kubeConfig);
    const recorder = new KubeEventRecorder(transport, 'aggregation-test', logger);
    const obj = await api().get({ namespace: ns, name: 'one' });
    // Back to back, no flush between: the repeats must wait for the create, and the count patches
    // must not overtake each other.
    for (let i = 0; i < 6; i++) recorder.event(obj, 'Warning', 'Flapping', 'the same thing happened');
    await recorder.flush();
    recorder.event(obj, 'Normal', 'Other', 'something else');
    await recorder.flush();
    const events = (await mgr.client.resource(builtinKinds.Event).list({ namespace: ns })).items.filter(
      (e) => e.involvedObject?.uid === obj.metadata.uid && e.source?.component === 'aggregation-test',
    );
    assert.equal(events.length, 2);
    assert.equal(events.find((e) => e.reason === 'Flapping')?.count, 6);
    assert.equal(events.find((e) => e.reason === 'Other')?.count, 1);
    transport.close();
  });

  it('serves /metrics, /healthz and /readyz', async () => {
    const metrics = await (await fetch(`http://127.0.0.1:${mgr.ports.metrics}/metrics`)).text();
    assert.match(
      metrics,
      /controller_runtime_reconcile_total\{controller="memcached",result="success"\} \d+/,
    );
    assert.match(metrics, /workqueue_adds_total\{name="memcached"\} \d+/);
    assert.match(metrics, /controller_runtime_reconcile_errors_total\{controller="flaky"\} [1-9]/);
    assert.equal((await fetch(`http://127.0.0.1:${mgr.ports.health}/healthz`)).status, 200);
    const ready = await fetch(`http://127.0.0.1:${mgr.ports.health}/readyz`);
    assert.equal(ready.status, 200);
    assert.match(await ready.text(), /\[\+\]informers ok/);
  });

  it('survives a kube-apiserver restart: watches resume and a later change converges', async () => {
    await restartAndConverge(cp, mgr, ns, { downtimeMs: 500 });
  });

  it('reads come from the cache and honour label selectors', async () => {
    const cache = new InformerCache(await Transport.fromKubeConfig(cp.kubeConfig), { logger });
    const client = new ReconcileClient(await Transport.fromKubeConfig(cp.kubeConfig), cache, 'test');
    cache.informersFor(builtinKinds.Deployment);
    cache.start();
    await cache.waitForSync();
    const all = await client.list(builtinKinds.Deployment, { namespace: ns });
    const some = await client.list(builtinKinds.Deployment, {
      namespace: ns,
      labelSelector: { 'app.kubernetes.io/instance': 'one' },
    });
    assert.ok(all.length >= 2);
    assert.equal(some.length, 1);
    assert.equal(await client.get(builtinKinds.Deployment, { namespace: ns, name: 'missing' }), undefined);
    await cache.stop();
  });
});

describe('Manager.create without a KubeConfig object', { timeout: 60_000, skip: controlPlaneSkip() }, () => {
  let cp: ControlPlane;
  before(async () => {
    cp = await startControlPlane();
  });
  after(async () => {
    await cp?.stop();
  });

  /** A manager made from $KUBECONFIG=`file` lists the namespaces. */
  async function listsNamespaces(file: string): Promise<void> {
    const saved = process.env.KUBECONFIG;
    process.env.KUBECONFIG = file;
    try {
      const mgr = await Manager.create({
        metricsBindAddress: '0',
        healthProbeBindAddress: '0',
        handleSignals: false,
        logger: memoryLogger().logger,
      });
      assert.equal(mgr.kubeConfig, undefined);
      const list = await mgr.client.resource(builtinKinds.Namespace).list();
      assert.ok(list.items.some((n) => n.metadata?.name === 'default'));
      await mgr.stop();
    } finally {
      if (saved === undefined) delete process.env.KUBECONFIG;
      else process.env.KUBECONFIG = saved;
    }
  }

  it('reads a kubeconfig that states its credentials (a token) in this process and talks to the server', async () => {
    await listsNamespaces(cp.kubeconfigPath);
  });

  it('loads a kubeconfig with an exec plugin through client-node in a child process and talks to the server', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'op-gen-exec-kubeconfig-'));
    try {
      const config = JSON.parse(readFileSync(cp.kubeconfigPath, 'utf8')) as {
        users: { name: string; user: Record<string, unknown> }[];
      };
      const user = config.users[0]!.user;
      const credential = {
        apiVersion: 'client.authentication.k8s.io/v1',
        kind: 'ExecCredential',
        status: { token: user.token },
      };
      const plugin = join(dir, 'get-token.sh');
      writeFileSync(plugin, `#!/bin/sh\necho '${JSON.stringify(credential)}'\n`, { mode: 0o755 });
      config.users[0]!.user = {
        exec: { apiVersion: 'client.authentication.k8s.io/v1', command: plugin, interactiveMode: 'Never' },
      };
      writeFileSync(join(dir, 'config'), JSON.stringify(config));
      await listsNamespaces(join(dir, 'config'));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('leader election on a Lease', { timeout: 120_000, skip: controlPlaneSkip() }, () => {
  let cp: ControlPlane;
  before(async () => {
    cp = await startControlPlane();
  });
  after(async () => {
    await cp?.stop();
  });

  it('elects one leader; the other takes over within the lease duration when it stops', async () => {
    const le = {
      enabled: true,
      id: 'sample-lock',
      namespace: 'default',
      leaseDurationMs: 3000,
      renewDeadlineMs: 2000,
      retryPeriodMs: 300,
    };
    const make = async (identity: string) =>
      Manager.create({
        kubeConfig: cp.kubeConfig,
        metricsBindAddress: '0',
        healthProbeBindAddress: '0',
        handleSignals: false,
        logger: memoryLogger().logger,
        leaderElection: { ...le, identity },
      });
    const a = await make('a');
    const b = await make('b');
    const runA = a.start();
    await a.ready;
    const runB = b.start();
    const t = await Transport.fromKubeConfig(cp.kubeConfig);
    const lease = () => readLease(t, 'default', le.id);
    // b has been trying while a renewed twice: a still holds the lease and b does not lead.
    const first = (await lease()).renewTime;
    const renewals = new Set([first]);
    await eventually('a renews its lease twice while b runs', async () => {
      const l = await lease();
      assert.equal(l.holderIdentity, 'a');
      renewals.add(l.renewTime);
      return renewals.size >= 3;
    });
    assert.equal(a.isLeader, true);
    assert.equal(b.isLeader, false, 'only one leader');
    await a.stop();
    await runA;
    await b.ready;
    assert.equal(b.isLeader, true);
    assert.equal((await lease()).holderIdentity, 'b');
    await b.stop();
    await runB;
    t.close();
  });

  it('without release, a crashed leader is replaced once its lease expires', async () => {
    const le = {
      enabled: true,
      id: 'crash-lock',
      namespace: 'default',
      leaseDurationMs: 2000,
      renewDeadlineMs: 1500,
      retryPeriodMs: 200,
    };
    const { LeaderElector } = await import('../../../src/runtime/index.ts');
    const t = await Transport.fromKubeConfig(cp.kubeConfig);
    const crashed = new LeaderElector(t, { ...le, identity: 'crashed' }, memoryLogger().logger);
    assert.equal(await crashed.acquire(), true);
    const held = await readLease(t, 'default', le.id);
    assert.equal(held.holderIdentity, 'crashed');
    // The crashed leader neither renews nor releases.
    const other = new LeaderElector(t, { ...le, identity: 'other' }, memoryLogger().logger);
    assert.equal(await other.acquire(), true);
    const taken = await readLease(t, 'default', le.id);
    assert.equal(taken.holderIdentity, 'other');
    assert.equal(taken.leaseTransitions, (held.leaseTransitions ?? 0) + 1);
    // Not before the crashed leader's lease ran out: the lease's own times say so (no stopwatch).
    assert.ok(
      Date.parse(taken.acquireTime) >= Date.parse(held.renewTime) + le.leaseDurationMs,
      `acquired at ${taken.acquireTime}, the crashed leader's lease ran to ${held.renewTime} + ${le.leaseDurationMs} ms`,
    );
    await other.release();
    t.close();
  });
});
