/**
 * The faults of the fault suite as functions, shared by `npm run test:faults` (test/faults) and
 * `npm run bench:faults` (bench/compare, the same faults for the op-gen and the controller-runtime
 * operator). Each runs in its own namespace against a running control plane, asserts convergence
 * (cluster.ts), no crash and no two leaders, and returns its figures (milliseconds and counts).
 */
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ControlPlane } from '../../src/testing/control-plane.ts';
import { retry, type Cluster } from './cluster.ts';
import type { OperatorProcess } from './operator.ts';

export type Figures = Record<string, number>;

export interface FaultEnv {
  readonly cp: ControlPlane;
  readonly cluster: Cluster;
  readonly objects: number;
  /** Starts an operator process watching `namespace` (its Lease lives there too, unless `more` says). */
  start(
    name: string,
    namespace: string,
    leaderElect?: boolean,
    more?: StartOptions,
  ): Promise<OperatorProcess>;
}

/** What a scenario may change about an operator it starts. */
export interface StartOptions {
  /** POD_NAMESPACE: where its Lease lives. */
  readonly podNamespace?: string;
  /** A kubeconfig file to use instead of the admin's. */
  readonly kubeconfig?: string;
  readonly extraArgs?: readonly string[];
}

export async function until<T>(
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

export async function started(op: OperatorProcess, leader = false): Promise<void> {
  await until(
    `${op.name} to start`,
    () => {
      if (!op.running) throw new Error(`${op.name} exited:\n${op.logTail()}`);
      return op.loggedAt(leader ? 'acquired the leader lease' : 'manager started') ? true : undefined;
    },
    60_000,
  );
}

export async function reconciles(op: OperatorProcess): Promise<{ total: number; errors: number }> {
  return {
    total: (await op.metric('controller_runtime_reconcile_total')) ?? -1,
    errors: (await op.metric('controller_runtime_reconcile_errors_total')) ?? -1,
  };
}

/** API server killed hard (SIGKILL, 4 s down) under load: time to converge after it is back. */
export async function apiServerRestart(env: FaultEnv, ns: string): Promise<Figures> {
  await env.cluster.createNamespace(ns);
  const op = await env.start('restart', ns);
  await started(op);
  await env.cluster.createMemcacheds(ns, env.objects);
  await until('a third Ready', async () =>
    (await env.cluster.readyCount(ns)) >= env.objects / 3 ? true : undefined,
  );
  const killedAt = Date.now();
  await env.cp.restartApiServer({ signal: 'SIGKILL', downtimeMs: 4_000 });
  const backAt = Date.now();
  const convergedMs = await env.cluster.waitConverged(ns, { expectCount: env.objects });
  assert.ok(op.running, `the operator crashed:\n${op.logTail()}`);
  const r = await reconciles(op);
  const figures: Figures = {
    outageMs: backAt - killedAt,
    convergedAfterBackMs: convergedMs,
    reconciles: r.total,
    reconcileErrors: r.errors,
  };
  await op.stop();
  assert.equal((await op.exited).code, 0, op.logTail());
  return figures;
}

/** Label patches from a second client while the operator converges: converges, no hot loop. */
export async function conflictStorm(env: FaultEnv, ns: string): Promise<Figures> {
  await env.cluster.createNamespace(ns);
  // At debug level the operator logs each conflict it retries: the storm must cause some.
  const op = await env.start('conflict', ns, false, { extraArgs: ['--log-level=debug'] });
  await started(op);
  const names = Array.from({ length: env.objects }, (_, i) => `m-${i}`);
  const storming = { on: true, patches: 0 };
  const storm = (async () => {
    await until('the first object', async () =>
      (await env.cluster.memcacheds.listAll({ namespace: ns })).items.length > 0 ? true : undefined,
    );
    // Label patches change every object's resourceVersion (not its generation) while the operator
    // writes status with the resourceVersion it cached: its writes conflict and must be retried.
    for (let round = 0; storming.on && round < 20; round++) {
      await env.cluster.eachMemcached(ns, names, async (m) => {
        await env.cluster.memcacheds.patch({ namespace: ns, name: m.metadata.name }, 'merge', {
          metadata: { labels: { storm: String(round) } },
        });
        storming.patches++;
      });
    }
  })();
  const t0 = Date.now();
  await env.cluster.createMemcacheds(ns, env.objects);
  await sleep(3_000);
  storming.on = false;
  await storm;
  const stormEnded = Date.now();
  const convergedMs = await env.cluster.waitConverged(ns, { expectCount: env.objects });
  const r = await reconciles(op);
  assert.ok(op.running, `the operator crashed:\n${op.logTail()}`);
  // A storm that patched nothing (eachMemcached passes over objects not created yet) or caused no
  // conflict tested nothing.
  assert.ok(storming.patches >= env.objects, `only ${storming.patches} patches for ${env.objects} objects`);
  const conflicts = op.log().filter((l) => l.msg === 'conflict writing a stale object; requeueing').length;
  assert.ok(conflicts > 0, `the storm caused no conflict in ${r.total} reconciles:\n${op.logTail()}`);
  // Every patch may cause one reconcile; a hot loop would cause many more.
  assert.ok(
    r.total < storming.patches + 6 * env.objects,
    `reconciles ${r.total} for ${storming.patches} patches`,
  );
  const figures: Figures = {
    patches: storming.patches,
    stormMs: stormEnded - t0,
    convergedAfterStormMs: convergedMs,
    reconciles: r.total,
    reconcileErrors: r.errors,
    conflicts,
  };
  await op.stop();
  return figures;
}

/** SIGTERM while converging: exits 0 at once; a second operator converges what was left. */
export async function sigtermUnderLoad(env: FaultEnv, ns: string): Promise<Figures> {
  await env.cluster.createNamespace(ns);
  const op = await env.start('sigterm-1', ns);
  await started(op);
  await env.cluster.createMemcacheds(ns, env.objects);
  // Signalled once it has written a Deployment, so the check below has something to look at.
  await until('a first Deployment', async () =>
    (await env.cluster.deployments.listAll({ namespace: ns })).items.length > 0 ? true : undefined,
  );
  const signalledAt = Date.now();
  op.signal('SIGTERM');
  const exit = await op.exited;
  assert.equal(exit.code, 0, `exit ${exit.code} ${exit.signal}:\n${op.logTail()}`);
  const stoppedLogged = op.loggedAt('manager stopped');
  assert.ok(stoppedLogged, 'logged manager stopped');
  // No half-applied Deployment: each one present is controlled by its Memcached.
  const deployments = await retry(() => env.cluster.deployments.listAll({ namespace: ns }));
  assert.ok(deployments.items.length > 0, 'the operator wrote Deployments before it stopped');
  for (const d of deployments.items)
    assert.ok(
      d.metadata?.ownerReferences?.some((ref) => ref.controller),
      `${d.metadata?.name} lacks its controller reference`,
    );
  const next = await env.start('sigterm-2', ns);
  await started(next);
  const convergedMs = await env.cluster.waitConverged(ns, { expectCount: env.objects });
  const figures: Figures = {
    exitMs: exit.at - signalledAt,
    deploymentsAtExit: deployments.items.length,
    convergedAfterRestartMs: convergedMs,
  };
  await next.stop();
  return figures;
}

/** Two replicas: SIGTERM hands over at once, SIGKILL after the lease expires; never two leaders. */
export async function leaderHandoff(env: FaultEnv, ns: string): Promise<Figures> {
  await env.cluster.createNamespace(ns);
  const a = await env.start('leader-a', ns, true);
  await started(a, true);
  const b = await env.start('leader-b', ns, true);
  await until('b standing by', () => (b.loggedAt('waiting to acquire the leader lease') ? true : undefined));
  await env.cluster.createMemcacheds(ns, env.objects);
  await env.cluster.waitConverged(ns, { expectCount: env.objects });
  assert.equal(b.loggedAt('acquired the leader lease'), undefined, 'only one leader');

  // SIGTERM: a releases the lease after its controllers stopped; b takes over at once.
  const termAt = Date.now();
  a.signal('SIGTERM');
  const aExit = await a.exited;
  assert.equal(aExit.code, 0, a.logTail());
  const bAcquired = await until('b to lead', () => b.loggedAt('acquired the leader lease'));
  const aReleased = a.loggedAt('released the leader lease');
  assert.ok(aReleased !== undefined, `a released its lease:\n${a.logTail()}`);
  // No overlap: b leads only after a's controllers stopped (a releases the lease after that; its
  // own 'released' line may be written after b already acquired). op-gen's manager logs
  // 'controllers stopped': without the line there is nothing to check, and that fails.
  const aStopped = a.loggedAt('controllers stopped');
  assert.ok(aStopped !== undefined, `a logged 'controllers stopped':\n${a.logTail()}`);
  assert.ok(bAcquired >= aStopped, 'b acquired only after a stopped (no overlap)');
  const names = Array.from({ length: env.objects }, (_, i) => `m-${i}`);
  const bumped = names.filter((_, i) => i % 4 === 0);
  await env.cluster.eachMemcached(ns, bumped, (m) =>
    env.cluster.memcacheds.patch({ namespace: ns, name: m.metadata.name }, 'merge', {
      spec: { size: ((m.spec.size ?? 1) % 3) + 2 },
    }),
  );
  const afterTerm = await env.cluster.waitConverged(ns, { expectCount: env.objects });

  // SIGKILL: c stands by; b dies without releasing; c waits for the lease to expire.
  const c = await env.start('leader-c', ns, true);
  await until('c standing by', () => (c.loggedAt('waiting to acquire the leader lease') ? true : undefined));
  const killAt = Date.now();
  b.signal('SIGKILL');
  await b.exited;
  const cAcquired = await until('c to lead', () => c.loggedAt('acquired the leader lease'), 60_000);
  assert.ok(cAcquired >= killAt, 'c acquired after b died');
  await env.cluster.eachMemcached(ns, bumped, (m) =>
    env.cluster.memcacheds.patch({ namespace: ns, name: m.metadata.name }, 'merge', {
      spec: { size: ((m.spec.size ?? 1) % 3) + 1 },
    }),
  );
  const afterKill = await env.cluster.waitConverged(ns, { expectCount: env.objects });
  assert.ok(c.running, c.logTail());
  const figures: Figures = {
    sigtermExitMs: aExit.at - termAt,
    sigtermTakeoverMs: bAcquired - termAt,
    convergedAfterSigtermMs: afterTerm,
    sigkillTakeoverMs: cAcquired - killAt,
    convergedAfterSigkillMs: afterKill,
  };
  await c.stop();
  return figures;
}

/** A foreign Deployment and a 422: Ready=False with reason and a Warning event; nothing adopted. */
export async function userActionFailures(env: FaultEnv, ns: string): Promise<Figures> {
  await env.cluster.createNamespace(ns);
  // A Deployment made by someone else, with the name a Memcached will want.
  await env.cluster.deployments.create({
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
  const op = await env.start('failures', ns);
  await started(op);
  // The second one's name makes a label value longer than 63 characters: the API rejects its
  // Deployment (422) whatever the controller retries.
  const invalidName = `invalid-${'x'.repeat(60)}`;
  for (const name of ['taken', invalidName]) {
    await env.cluster.memcacheds.create({
      apiVersion: 'cache.example.com/v1alpha1',
      kind: 'Memcached',
      metadata: { name, namespace: ns },
      spec: { size: 2, image: 'registry.k8s.io/pause:3.10' },
    });
  }
  const readyOf = async (name: string) =>
    (await env.cluster.memcacheds.get({ namespace: ns, name })).status?.conditions?.find(
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
  assert.match(invalid.message ?? '', /must be no more than 63 (characters|bytes)/);
  const foreign = await env.cluster.deployments.get({ namespace: ns, name: 'taken' });
  assert.equal(foreign.metadata?.ownerReferences, undefined, 'not adopted');
  assert.deepEqual(
    foreign.spec?.template?.spec?.containers?.map((c) => c.name),
    ['other'],
    'its pod template is untouched',
  );
  const events = await until('Warning events', async () => {
    const list = await env.cluster.events(ns);
    const warnings = list.filter((e) => e.type === 'Warning');
    return warnings.length >= 2 ? warnings : undefined;
  });
  assert.deepEqual(events.map((e) => e.reason).sort(), ['DeploymentInvalid', 'DeploymentNotOwned']);
  const figures: Figures = { reported: 2 };
  await op.stop();
  return figures;
}

/** The operator SIGSTOPped while objects change and owned objects are deleted (run it on a control plane
 * without watch cache), etcd compacted; SIGCONT: converges. */
export async function watchGap(env: FaultEnv, ns: string): Promise<Figures> {
  await env.cluster.createNamespace(ns);
  const op = await env.start('gap', ns);
  await started(op);
  await env.cluster.createMemcacheds(ns, env.objects);
  await env.cluster.waitConverged(ns, { expectCount: env.objects });
  op.signal('SIGSTOP');
  const names = Array.from({ length: env.objects }, (_, i) => `m-${i}`);
  const resized = names.filter((_, i) => i % 3 === 0);
  const lostDeployments = names.filter((_, i) => i % 3 === 1).slice(0, 20);
  const deleted = names.filter((_, i) => i % 3 === 2).slice(0, 10);
  await env.cluster.eachMemcached(ns, resized, (m) =>
    env.cluster.memcacheds.patch({ namespace: ns, name: m.metadata.name }, 'merge', {
      spec: { size: ((m.spec.size ?? 1) % 3) + 1 },
    }),
  );
  for (const name of lostDeployments) await env.cluster.deleteDeployment(ns, name);
  for (const name of deleted) await env.cluster.memcacheds.delete({ namespace: ns, name });
  await compactEtcd(env.cp.etcdUrl);
  const contAt = Date.now();
  op.signal('SIGCONT');
  const convergedMs = await env.cluster.waitConverged(ns, {
    expectCount: env.objects - deleted.length,
    expectGone: deleted,
  });
  assert.ok(op.running, op.logTail());
  const figures: Figures = {
    resized: resized.length,
    deploymentsDeleted: lostDeployments.length,
    memcachedsDeleted: deleted.length,
    convergedAfterContMs: convergedMs,
    sinceContMs: Date.now() - contAt,
  };
  await op.stop();
  return figures;
}

/** Compacts etcd to its current revision (through its JSON gateway), so older watches get 410. */
export async function compactEtcd(etcdUrl: string): Promise<void> {
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
