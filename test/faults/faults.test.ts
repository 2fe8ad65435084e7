/**
 * `npm run test:faults`: the scaffolded Memcached operator as a separate process against a real
 * kube-apiserver + etcd, through the faults an operator meets in production. Each fault ends with
 * the same check (cluster.ts): every Memcached Ready with observedGeneration == generation, its
 * Deployment controlled by it with the spec's replicas and image, deleted ones gone; the operator
 * did not crash, leaders never overlapped. Figures are printed as `# fault: ...` lines (and written
 * as JSON to $OP_GEN_FAULTS_REPORT when set). Size: OP_GEN_FAULTS_OBJECTS (default 150).
 */
import assert from 'node:assert/strict';
import { appendFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { controlPlaneSkip, startControlPlane, type ControlPlane } from '../../src/testing/index.ts';
import { Cluster, retry } from './cluster.ts';
import { OperatorProcess, scaffoldOperator, type ScaffoldedProject } from './operator.ts';

const N = Number(process.env.OP_GEN_FAULTS_OBJECTS ?? 150);
const skip = controlPlaneSkip();

function report(fault: string, figures: Record<string, number | string>): void {
  const text = Object.entries(figures)
    .map(([k, v]) => `${k} ${typeof v === 'number' ? Math.round(v) : v}`)
    .join(', ');
  console.log(`# ${fault}: ${text}`);
  const file = process.env.OP_GEN_FAULTS_REPORT;
  if (file) appendFileSync(file, `${JSON.stringify({ fault, objects: N, ...figures })}\n`);
}

async function until<T>(
  what: string,
  probe: () => Promise<T | undefined> | T | undefined,
  timeoutMs = 60_000,
) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const v = await probe();
    if (v !== undefined) return v;
    await sleep(50);
  }
  throw new Error(`timed out waiting for ${what}`);
}

async function started(op: OperatorProcess, leader = false): Promise<void> {
  await until(
    `${op.name} to start`,
    () => {
      if (!op.running) throw new Error(`${op.name} exited:\n${op.logTail()}`);
      return op.loggedAt(leader ? 'acquired the leader lease' : 'manager started') ? true : undefined;
    },
    60_000,
  );
}

async function reconciles(op: OperatorProcess): Promise<{ total: number; errors: number }> {
  return {
    total: (await op.metric('controller_runtime_reconcile_total')) ?? -1,
    errors: (await op.metric('controller_runtime_reconcile_errors_total')) ?? -1,
  };
}

describe('faults: the scaffolded operator against a real API server', { skip }, () => {
  let cp: ControlPlane;
  let project: ScaffoldedProject;
  let cluster: Cluster;
  const operators: OperatorProcess[] = [];

  const startOperator = async (name: string, namespace: string, leaderElect = false) => {
    const op = await OperatorProcess.start(project, {
      name,
      namespace,
      kubeconfig: cp.kubeconfigPath,
      leaderElect,
    });
    operators.push(op);
    return op;
  };

  before(async () => {
    project = scaffoldOperator();
    cp = await startControlPlane();
    cluster = await Cluster.connect(cp, project.crd);
  });

  after(async () => {
    await Promise.all(operators.map((op) => op.stop(5_000)));
    cluster?.close();
    await cp?.stop();
    if (process.env.OP_GEN_KEEP_FAULTS) console.log(`# kept ${project.dir}`);
    else project?.remove();
  });

  it('API server killed hard (SIGKILL) under load: converges soon after it is back', async () => {
    const ns = 'restart';
    await cluster.createNamespace(ns);
    const op = await startOperator('restart', ns);
    await started(op);
    await cluster.createMemcacheds(ns, N);
    await until('a third Ready', async () => ((await cluster.readyCount(ns)) >= N / 3 ? true : undefined));
    const killedAt = Date.now();
    await cp.restartApiServer({ signal: 'SIGKILL', downtimeMs: 4_000 });
    const backAt = Date.now();
    const convergedMs = await cluster.waitConverged(ns, { expectCount: N });
    assert.ok(op.running, `the operator crashed:\n${op.logTail()}`);
    const r = await reconciles(op);
    report('api-server-restart', {
      outageMs: backAt - killedAt,
      convergedAfterBackMs: convergedMs,
      reconciles: r.total,
      reconcileErrors: r.errors,
    });
    await op.stop();
    assert.equal((await op.exited).code, 0, op.logTail());
  });

  it('conflict storm from a second client: converges, no hot loop', async () => {
    const ns = 'conflict';
    await cluster.createNamespace(ns);
    const op = await startOperator('conflict', ns);
    await started(op);
    const names = Array.from({ length: N }, (_, i) => `m-${i}`);
    const storming = { on: true, patches: 0 };
    const storm = (async () => {
      await until('the first object', async () =>
        (await cluster.memcacheds.listAll({ namespace: ns })).items.length > 0 ? true : undefined,
      );
      // Label patches change every object's resourceVersion (not its generation) while the operator
      // writes status with the resourceVersion it cached: its writes conflict and must be retried.
      for (let round = 0; storming.on && round < 20; round++) {
        await cluster.eachMemcached(ns, names, async (m) => {
          await cluster.memcacheds.patch({ namespace: ns, name: m.metadata.name }, 'merge', {
            metadata: { labels: { storm: String(round) } },
          });
          storming.patches++;
        });
      }
    })();
    const t0 = Date.now();
    await cluster.createMemcacheds(ns, N);
    await sleep(3_000);
    storming.on = false;
    await storm;
    const stormEnded = Date.now();
    const convergedMs = await cluster.waitConverged(ns, { expectCount: N });
    const r = await reconciles(op);
    assert.ok(op.running, `the operator crashed:\n${op.logTail()}`);
    // Every patch may cause one reconcile; a hot loop would cause many more.
    assert.ok(r.total < storming.patches + 6 * N, `reconciles ${r.total} for ${storming.patches} patches`);
    report('conflict-storm', {
      patches: storming.patches,
      stormMs: stormEnded - t0,
      convergedAfterStormMs: convergedMs,
      reconciles: r.total,
      reconcileErrors: r.errors,
    });
    await op.stop();
  });

  it('SIGTERM during load: exits 0 at once; a new operator converges what was left', async () => {
    const ns = 'sigterm';
    await cluster.createNamespace(ns);
    const op = await startOperator('sigterm-1', ns);
    await started(op);
    await cluster.createMemcacheds(ns, N);
    const signalledAt = Date.now();
    op.signal('SIGTERM');
    const exit = await op.exited;
    assert.equal(exit.code, 0, `exit ${exit.code} ${exit.signal}:\n${op.logTail()}`);
    const stoppedLogged = op.loggedAt('manager stopped');
    assert.ok(stoppedLogged, 'logged manager stopped');
    // No half-applied Deployment: each one present is controlled by its Memcached.
    const deployments = await retry(() => cluster.deployments.listAll({ namespace: ns }));
    for (const d of deployments.items)
      assert.ok(
        d.metadata?.ownerReferences?.some((ref) => ref.controller),
        `${d.metadata?.name} lacks its controller reference`,
      );
    const next = await startOperator('sigterm-2', ns);
    await started(next);
    const convergedMs = await cluster.waitConverged(ns, { expectCount: N });
    report('sigterm-under-load', {
      exitMs: exit.at - signalledAt,
      deploymentsAtExit: deployments.items.length,
      convergedAfterRestartMs: convergedMs,
    });
    await next.stop();
  });

  it('leader handoff with two replicas: SIGTERM hands over at once, SIGKILL after the lease expires; never two leaders', async () => {
    const ns = 'leader';
    await cluster.createNamespace(ns);
    const a = await startOperator('leader-a', ns, true);
    await started(a, true);
    const b = await startOperator('leader-b', ns, true);
    await until('b standing by', () =>
      b.loggedAt('waiting to acquire the leader lease') ? true : undefined,
    );
    await cluster.createMemcacheds(ns, N);
    await cluster.waitConverged(ns, { expectCount: N });
    assert.equal(b.loggedAt('acquired the leader lease'), undefined, 'only one leader');

    // SIGTERM: a releases the lease after its controllers stopped; b takes over at once.
    const termAt = Date.now();
    a.signal('SIGTERM');
    const aExit = await a.exited;
    assert.equal(aExit.code, 0, a.logTail());
    const bAcquired = await until('b to lead', () => b.loggedAt('acquired the leader lease'));
    const aReleased = a.loggedAt('released the leader lease');
    assert.ok(aReleased !== undefined, `a released its lease:\n${a.logTail()}`);
    assert.ok(bAcquired >= aReleased, 'b acquired only after a released (no overlap)');
    const names = Array.from({ length: N }, (_, i) => `m-${i}`);
    const bumped = names.filter((_, i) => i % 4 === 0);
    await cluster.eachMemcached(ns, bumped, (m) =>
      cluster.memcacheds.patch({ namespace: ns, name: m.metadata.name }, 'merge', {
        spec: { size: ((m.spec.size ?? 1) % 3) + 2 },
      }),
    );
    const afterTerm = await cluster.waitConverged(ns, { expectCount: N });

    // SIGKILL: c stands by; b dies without releasing; c waits for the lease to expire.
    const c = await startOperator('leader-c', ns, true);
    await until('c standing by', () =>
      c.loggedAt('waiting to acquire the leader lease') ? true : undefined,
    );
    const killAt = Date.now();
    b.signal('SIGKILL');
    await b.exited;
    const cAcquired = await until('c to lead', () => c.loggedAt('acquired the leader lease'), 60_000);
    assert.ok(cAcquired >= killAt, 'c acquired after b died');
    await cluster.eachMemcached(ns, bumped, (m) =>
      cluster.memcacheds.patch({ namespace: ns, name: m.metadata.name }, 'merge', {
        spec: { size: ((m.spec.size ?? 1) % 3) + 1 },
      }),
    );
    const afterKill = await cluster.waitConverged(ns, { expectCount: N });
    assert.ok(c.running, c.logTail());
    report('leader-handoff', {
      sigtermExitMs: aExit.at - termAt,
      sigtermTakeoverMs: bAcquired - termAt,
      convergedAfterSigtermMs: afterTerm,
      sigkillTakeoverMs: cAcquired - killAt,
      convergedAfterSigkillMs: afterKill,
    });
    await c.stop();
  });

  it('failures a user must act on show in status and events; foreign Deployments are left alone', async () => {
    const ns = 'failures';
    await cluster.createNamespace(ns);
    // A Deployment made by someone else, with the name a Memcached will want.
    await cluster.deployments.create({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'taken', namespace: ns },
      spec: {
        replicas: 1,
        selector: { matchLabels: { app: 'other' } },
        template: {
          metadata: { labels: { app: 'other' } },
          spec: { containers: [{ name: 'other', image: 'registry.k8s.io/pause:3.10' }] },
        },
      } as never,
    } as never);
    const op = await startOperator('failures', ns);
    await started(op);
    // The second one's name makes a label value longer than 63 characters: the API rejects its
    // Deployment (422) whatever the controller retries.
    const invalidName = `invalid-${'x'.repeat(60)}`;
    for (const name of ['taken', invalidName]) {
      await cluster.memcacheds.create({
        apiVersion: 'cache.example.com/v1alpha1',
        kind: 'Memcached',
        metadata: { name, namespace: ns },
        spec: { size: 2, image: 'registry.k8s.io/pause:3.10' },
      });
    }
    const readyOf = async (name: string) =>
      (await cluster.memcacheds.get({ namespace: ns, name })).status?.conditions?.find(
        (c) => c.type === 'Ready',
      );
    const taken = await until('taken reported', async () => {
      const c = await readyOf('taken');
      return c?.status === 'False' ? c : undefined;
    });
    assert.equal(taken.reason, 'DeploymentNotOwned');
    assert.match(taken.message ?? '', /not created by this Memcached/);
    const invalid = await until('invalid reported', async () => {
      const c = await readyOf(invalidName);
      return c?.status === 'False' ? c : undefined;
    });
    assert.equal(invalid.reason, 'DeploymentInvalid');
    assert.match(invalid.message ?? '', /must be no more than 63 characters/);
    const foreign = await cluster.deployments.get({ namespace: ns, name: 'taken' });
    assert.equal(foreign.metadata?.ownerReferences, undefined, 'not adopted');
    assert.deepEqual(
      foreign.spec?.template?.spec?.containers?.map((c) => c.name),
      ['other'],
      'its pod template is untouched',
    );
    const events = await until('Warning events', async () => {
      const list = await cluster.events(ns);
      const warnings = list.filter((e) => e.type === 'Warning');
      return warnings.length >= 2 ? warnings : undefined;
    });
    assert.deepEqual(events.map((e) => e.reason).sort(), ['DeploymentInvalid', 'DeploymentNotOwned']);
    report('user-action-failures', { reported: 2 });
    await op.stop();
  });
});

describe('faults: a watch gap (manager stopped, etcd compacted, no watch cache)', { skip }, () => {
  let cp: ControlPlane;
  let project: ScaffoldedProject;
  let cluster: Cluster;
  let op: OperatorProcess | undefined;

  before(async () => {
    project = scaffoldOperator();
    cp = await startControlPlane({ apiServerFlags: ['--watch-cache=false'] });
    cluster = await Cluster.connect(cp, project.crd);
  });

  after(async () => {
    op?.signal('SIGCONT');
    await op?.stop(5_000);
    cluster?.close();
    await cp?.stop();
    project?.remove();
  });

  it('SIGSTOP while objects change and owned objects are deleted; SIGCONT converges', async () => {
    const ns = 'gap';
    await cluster.createNamespace(ns);
    op = await OperatorProcess.start(project, { name: 'gap', namespace: ns, kubeconfig: cp.kubeconfigPath });
    await started(op);
    await cluster.createMemcacheds(ns, N);
    await cluster.waitConverged(ns, { expectCount: N });
    op.signal('SIGSTOP');
    const names = Array.from({ length: N }, (_, i) => `m-${i}`);
    const resized = names.filter((_, i) => i % 3 === 0);
    const lostDeployments = names.filter((_, i) => i % 3 === 1).slice(0, 20);
    const deleted = names.filter((_, i) => i % 3 === 2).slice(0, 10);
    await cluster.eachMemcached(ns, resized, (m) =>
      cluster.memcacheds.patch({ namespace: ns, name: m.metadata.name }, 'merge', {
        spec: { size: ((m.spec.size ?? 1) % 3) + 1 },
      }),
    );
    for (const name of lostDeployments) await cluster.deleteDeployment(ns, name);
    for (const name of deleted) await cluster.memcacheds.delete({ namespace: ns, name });
    await compactEtcd(cp.etcdUrl);
    const contAt = Date.now();
    op.signal('SIGCONT');
    const convergedMs = await cluster.waitConverged(ns, {
      expectCount: N - deleted.length,
      expectGone: deleted,
    });
    assert.ok(op.running, op.logTail());
    report('watch-gap', {
      resized: resized.length,
      deploymentsDeleted: lostDeployments.length,
      memcachedsDeleted: deleted.length,
      convergedAfterContMs: convergedMs,
      sinceContMs: Date.now() - contAt,
    });
  });
});

/** Compacts etcd to its current revision (through its JSON gateway), so older watches get 410. */
async function compactEtcd(etcdUrl: string): Promise<void> {
  const post = async (path: string, body: unknown) => {
    const res = await fetch(`${etcdUrl}${path}`, { method: 'POST', body: JSON.stringify(body) });
    if (!res.ok) throw new Error(`etcd ${path}: ${res.status} ${await res.text()}`);
    return (await res.json()) as { header?: { revision?: string } };
  };
  const status = await post('/v3/kv/range', { key: Buffer.from('/').toString('base64') });
  const revision = status.header?.revision;
  if (!revision) throw new Error('etcd did not report its revision');
  await post('/v3/kv/compaction', { revision, physical: true });
}
