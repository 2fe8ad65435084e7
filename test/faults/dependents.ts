/**
 * The fault suite for an operator on dependents (issue 40): the project scaffolded with `create api
 * --dependents configmap,deployment,service` (Memcached: a ConfigMap, a Deployment depending on it, a
 * Service depending on the Deployment; conditions ConfigReady, DeploymentReady, ServiceReady, Ready)
 * through an API server killed under load and a watch gap. Its convergence check: every Memcached
 * Ready for its generation, its three children controlled by it and as the spec says; nothing lost.
 * Its no-hot-loop check: with everything converged and the operator caught up and idle (settle), one
 * pass over every parent (each touched by an annotation) sends no write to the API server (counted by
 * the API server's apiserver_request_total); a pass that writes fails saying what it wrote and why.
 *
 * No kube-controller-manager runs on the test control plane, so no Deployment would ever become
 * available (the dependents' default readiness, which the Service waits for): a stand-in
 * (DeploymentStatusStandIn) reports every Deployment rolled out, as the deployment controller would.
 */
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { isNotFound } from '../../src/client/api-error.ts';
import { ResourceClient, type ObjectLike } from '../../src/client/resource-client.ts';
import { Transport } from '../../src/client/transport.ts';
import { builtinKinds } from '../../src/runtime/builtin-kinds.ts';
import { apiServerRequests, requestsBetween, sampleLabels } from '../helpers/prometheus-text.ts';
import { retry, type Memcached } from './cluster.ts';
import type { OperatorProcess } from './operator.ts';
import { compactEtcd, started, until, type FaultEnv, type Figures } from './scenarios.ts';

/** The flags of `create api` that scaffold the operator of these scenarios. */
export const DEPENDENTS_CONTROLLER = ['--dependents', 'configmap,deployment,service'] as const;

interface Child extends ObjectLike {
  metadata: {
    name: string;
    namespace?: string;
    generation?: number;
    ownerReferences?: { uid?: string; controller?: boolean }[];
  };
  data?: Record<string, string>;
  spec?: {
    replicas?: number;
    template?: { spec?: { containers?: { image?: string }[] } };
  };
  status?: { observedGeneration?: number; replicas?: number; availableReplicas?: number };
}

const kinds = {
  configMaps: builtinKinds.ConfigMap,
  deployments: builtinKinds.Deployment,
  services: builtinKinds.Service,
};

/** The test's clients for the children (its own connection; reconnects after an API server restart). */
class Children {
  readonly transport: Transport;
  readonly configMaps: ResourceClient<Child>;
  readonly deployments: ResourceClient<Child>;
  readonly services: ResourceClient<Child>;

  private constructor(transport: Transport) {
    this.transport = transport;
    this.configMaps = new ResourceClient(transport, kinds.configMaps as never);
    this.deployments = new ResourceClient(transport, kinds.deployments as never);
    this.services = new ResourceClient(transport, kinds.services as never);
  }

  static async connect(env: FaultEnv): Promise<Children> {
    return new Children(
      await Transport.fromKubeConfig(env.cp.kubeConfig, { maxSockets: 16, timeoutMs: 15_000 }),
    );
  }

  async delete(client: ResourceClient<Child>, namespace: string, name: string): Promise<void> {
    try {
      await retry(() => client.delete({ namespace, name }));
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
  }
}

/**
 * What kube-controller-manager's deployment controller would report: every Deployment of the
 * namespace rolled out (observedGeneration current, all replicas updated and available), checked
 * every 200 ms until stopped. It only writes deployments/status, which the operator never writes.
 */
class DeploymentStatusStandIn {
  patches = 0;
  private on = true;
  private readonly loop: Promise<void>;
  /** Rounds begun so far, and the last one that ended with nothing to patch and no failure. */
  private begun = 0;
  private lastQuiet = 0;

  constructor(children: Children, namespace: string) {
    this.loop = (async () => {
      while (this.on) {
        const round = ++this.begun;
        const patchesBefore = this.patches;
        try {
          for (const d of (await children.deployments.listAll({ namespace })).items) {
            const want = d.spec?.replicas ?? 1;
            const s = d.status;
            if (s?.observedGeneration === d.metadata.generation && s?.availableReplicas === want) continue;
            await children.deployments.patchStatus({ namespace, name: d.metadata.name }, 'merge', {
              status: {
                observedGeneration: d.metadata.generation,
                replicas: want,
                updatedReplicas: want,
                readyReplicas: want,
                availableReplicas: want,
              },
            });
            this.patches++;
          }
          if (this.patches === patchesBefore) this.lastQuiet = round;
        } catch {
          // The API server is down or the Deployment just went: the next round sees.
        }
        await sleep(200);
      }
    })();
  }

  /** Resolves once a round begun after this call found every Deployment rolled out (patched nothing). */
  async idle(): Promise<void> {
    const after = this.begun;
    await until('the Deployment stand-in to find nothing to patch', () =>
      this.lastQuiet > after ? true : undefined,
    );
  }

  async stop(): Promise<void> {
    this.on = false;
    await this.loop;
  }
}

const controlledBy = (child: Child | undefined, m: Memcached): boolean =>
  child?.metadata.ownerReferences?.some((r) => r.controller && r.uid === m.metadata.uid) ?? false;

/** What is not converged yet (empty: converged): see the header. */
async function problems(
  env: FaultEnv,
  children: Children,
  namespace: string,
  expectCount: number,
  expectGone: readonly string[],
): Promise<string[]> {
  const [ms, cms, ds, ss] = await Promise.all([
    env.cluster.memcacheds.listAll({ namespace }),
    children.configMaps.listAll({ namespace }),
    children.deployments.listAll({ namespace }),
    children.services.listAll({ namespace }),
  ]);
  const byName = (items: Child[]) => new Map(items.map((c) => [c.metadata.name, c]));
  const [configMaps, deployments, services] = [byName(cms.items), byName(ds.items), byName(ss.items)];
  const gone = new Set(expectGone);
  const out: string[] = [];
  if (ms.items.length !== expectCount) out.push(`${ms.items.length} Memcacheds, want ${expectCount}`);
  for (const m of ms.items) {
    const name = m.metadata.name;
    if (gone.has(name)) {
      out.push(`${name}: still present after deletion`);
      continue;
    }
    const notTrue = ['ConfigReady', 'DeploymentReady', 'ServiceReady', 'Ready'].filter((type) => {
      const c = m.status?.conditions?.find((x) => x.type === type);
      return c?.status !== 'True' || c.observedGeneration !== m.metadata.generation;
    });
    if (notTrue.length > 0) {
      out.push(`${name}: not True for generation ${m.metadata.generation}: ${notTrue.join(', ')}`);
      continue;
    }
    const size = m.spec.size ?? 1;
    const cm = configMaps.get(`${name}-config`);
    const d = deployments.get(name);
    const svc = services.get(name);
    if (!controlledBy(cm, m)) out.push(`${name}: ConfigMap missing or not controlled by it`);
    else if (cm?.data?.SIZE !== String(size) || cm.data.IMAGE !== m.spec.image)
      out.push(`${name}: ConfigMap ${JSON.stringify(cm?.data)} differs from the spec`);
    if (!controlledBy(d, m)) out.push(`${name}: Deployment missing or not controlled by it`);
    else if (d?.spec?.replicas !== size)
      out.push(`${name}: Deployment replicas ${d?.spec?.replicas} != ${size}`);
    else if (d.spec.template?.spec?.containers?.[0]?.image !== m.spec.image)
      out.push(`${name}: Deployment image differs`);
    if (!controlledBy(svc, m)) out.push(`${name}: Service missing or not controlled by it`);
  }
  return out;
}

/** Polls until converged; the time it took (ms), or an error naming what was not converged. */
async function waitConverged(
  env: FaultEnv,
  children: Children,
  namespace: string,
  expectCount: number,
  expectGone: readonly string[] = [],
  timeoutMs = 180_000,
): Promise<number> {
  const t0 = Date.now();
  let last: string[] = ['not checked'];
  while (Date.now() - t0 < timeoutMs) {
    try {
      last = await problems(env, children, namespace, expectCount, expectGone);
      if (last.length === 0) return Date.now() - t0;
    } catch (err) {
      last = [`check failed: ${(err as Error).message}`];
    }
    await sleep(200);
  }
  throw new Error(
    `not converged within ${timeoutMs} ms: ${last.length} problems, e.g.\n  ${last.slice(0, 8).join('\n  ')}`,
  );
}

/** Whether an apiserver_request_total sample is a write of the operator's (the stand-in's and the test's left out). */
function isOperatorWrite({
  verb,
  resource,
  subresource,
}: {
  verb: string;
  resource: string;
  subresource: string;
}): boolean {
  if (verb === 'GET' || verb === 'LIST' || verb === 'WATCH') return false;
  if (resource === 'memcacheds') return subresource === 'status';
  return (
    (resource === 'configmaps' || resource === 'deployments' || resource === 'services') && subresource === ''
  );
}

/** The operator's writes as the API server counts them. */
function operatorWrites(children: Children): Promise<Record<string, number>> {
  return apiServerRequests(children.transport, isOperatorWrite);
}

/** The operator's writes by `<VERB> <resource>[/<subresource>] <code>` (a 409 is a write that changed nothing). */
async function operatorWritesByCode(children: Children): Promise<Record<string, number>> {
  const text = await children.transport.request<string>({ method: 'GET', path: '/metrics' });
  const counts: Record<string, number> = {};
  for (const line of text.split('\n')) {
    if (!line.startsWith('apiserver_request_total{')) continue;
    const { verb = '', resource = '', subresource = '', code = '' } = sampleLabels(line);
    if (!isOperatorWrite({ verb, resource, subresource })) continue;
    const key = `${verb} ${resource}${subresource ? `/${subresource}` : ''} ${code}`;
    counts[key] = (counts[key] ?? 0) + Number(line.split(' ').at(-1));
  }
  return counts;
}

type Conditions = NonNullable<NonNullable<Memcached['status']>['conditions']>;

/** Each Memcached's resourceVersion and conditions (lastTransitionTime included), by name. */
async function statusSnapshot(
  env: FaultEnv,
  namespace: string,
): Promise<Map<string, { rv: string; conditions: Conditions }>> {
  const ms = await retry(() => env.cluster.memcacheds.listAll({ namespace }));
  return new Map(
    ms.items.map((m) => [
      m.metadata.name,
      { rv: m.metadata.resourceVersion ?? '', conditions: m.status?.conditions ?? [] },
    ]),
  );
}

const showCondition = (c: Conditions[number] | undefined): string =>
  c
    ? `${c.status} ${c.reason ?? ''} gen ${c.observedGeneration ?? '-'} at ${(c as { lastTransitionTime?: string }).lastTransitionTime ?? '-'} "${c.message ?? ''}"`
    : 'absent';

/** What changed in the Memcacheds' conditions between two snapshots, one line per changed condition. */
function statusChanges(
  before: Map<string, { rv: string; conditions: Conditions }>,
  after: Map<string, { rv: string; conditions: Conditions }>,
): string[] {
  const out: string[] = [];
  for (const [name, a] of after) {
    const b = before.get(name);
    if (!b) {
      out.push(`${name}: appeared`);
      continue;
    }
    const types = new Set([...b.conditions, ...a.conditions].map((c) => c.type));
    for (const type of types) {
      const cb = b.conditions.find((c) => c.type === type);
      const ca = a.conditions.find((c) => c.type === type);
      if (JSON.stringify(cb) !== JSON.stringify(ca))
        out.push(`${name} (rv ${b.rv} -> ${a.rv}) ${type}: ${showCondition(cb)} -> ${showCondition(ca)}`);
    }
  }
  return out;
}

/** The operator's log lines (debug included) that explain a write or a requeue. */
const EXPLAINING = new Set([
  'writing conditions',
  'conflict writing a stale object; requeueing',
  'reconcile failed',
  'dependent failed',
  'requeueing reconciles that waited for the API server',
  'API server unavailable; the reconcile waits for the cache to reconnect',
]);

/**
 * Waits, by signals (no sleep), until the operator has caught up with the converged state and is
 * idle, so that a quiet pass sees only what its own touches cause. The convergence check reads the
 * API server, not the operator's cache, and the two can differ for seconds: after an API server
 * restart the operator's Memcached watch may relist well after the others (the CRD answers 503/429
 * first), and a status write committed just before the SIGKILL, its response cut off, leaves that
 * parent in its cache behind the server: each reconcile of it writes its conditions over a stale
 * resourceVersion (a 409 PATCH, requeued with backoff) until the relist. So:
 * 1. a barrier Memcached created now gets Ready for its generation (with its children: the
 *    convergence check, one more object): the operator's Memcached watch is one stream in
 *    resourceVersion order, so its cache holds every parent at least as the convergence check saw it
 *    (its Ready also needs its ConfigMap and its rolled-out Deployment seen in the cache);
 * 2. the stand-in ends a round begun after that with nothing to patch;
 * 3. the operator's queue is empty with no reconcile running (one /metrics read).
 * A requeue still delayed by backoff is not on /metrics; it reads the caught-up cache, so it writes
 * nothing (the quiet pass would say so). Gives the barrier's name, to be touched in the pass too, and
 * how many of the operator's writes meanwhile the API server refused with 409 (writes over a stale
 * cache that the pass would otherwise have counted; the barrier's own included).
 */
async function settle(
  env: FaultEnv,
  children: Children,
  standIn: DeploymentStatusStandIn,
  op: OperatorProcess,
  namespace: string,
  converged: { count: number; gone?: readonly string[] },
  round: string,
): Promise<{ barrier: string; conflicts: number }> {
  const barrier = `barrier-${round}`;
  const writesBefore = await operatorWritesByCode(children);
  await retry(() =>
    env.cluster.memcacheds.create({
      apiVersion: 'cache.example.com/v1alpha1',
      kind: 'Memcached',
      metadata: { name: barrier, namespace },
      spec: { size: 1, image: 'registry.k8s.io/pause:3.10' },
    }),
  );
  await waitConverged(env, children, namespace, converged.count + 1, converged.gone);
  await standIn.idle();
  const since = await mark(env, children, op, namespace);
  try {
    await until('the operator idle (queue empty, no reconcile running)', async () => {
      const m = await op.metrics(['workqueue_depth', 'controller_runtime_active_workers']);
      return m?.workqueue_depth === 0 && m.controller_runtime_active_workers === 0 ? true : undefined;
    });
  } catch (err) {
    // A hot loop keeps it busy: say what it was writing.
    throw new Error(`${(err as Error).message}; ${await explain(env, children, op, namespace, since)}`, {
      cause: err,
    });
  }
  const writes = requestsBetween(writesBefore, await operatorWritesByCode(children)).byRequest;
  const conflicts = Object.entries(writes)
    .filter(([key]) => key.endsWith(' 409'))
    .reduce((sum, [, n]) => sum + n, 0);
  return { barrier, conflicts };
}

/** The operator's reconciles by result (a consistent read of /metrics). */
async function reconcileResults(op: OperatorProcess): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const r of ['success', 'error', 'requeue', 'requeue_after'])
    out[r] = (await op.metric('controller_runtime_reconcile_total', `result="${r}"`)) ?? -1;
  return out;
}

/** What explain() compares against: the state when a watched stretch began. */
interface Mark {
  readonly at: string;
  readonly busy: string;
  readonly status: Map<string, { rv: string; conditions: Conditions }>;
  readonly writes: Record<string, number>;
  readonly results: Record<string, number>;
}

async function mark(
  env: FaultEnv,
  children: Children,
  op: OperatorProcess,
  namespace: string,
): Promise<Mark> {
  const at = new Date().toISOString();
  const m = await op.metrics(['workqueue_depth', 'controller_runtime_active_workers']);
  return {
    at,
    busy: `queue depth ${m?.workqueue_depth}, ${m?.controller_runtime_active_workers} reconciles running`,
    status: await statusSnapshot(env, namespace),
    writes: await operatorWritesByCode(children),
    results: await reconcileResults(op),
  };
}

/**
 * What the operator wrote since `since` and why: its writes by response code, the conditions that
 * changed, its reconciles by result, and its (debug) log lines about each write and requeue.
 */
async function explain(
  env: FaultEnv,
  children: Children,
  op: OperatorProcess,
  namespace: string,
  since: Mark,
): Promise<string> {
  const byCode = requestsBetween(since.writes, await operatorWritesByCode(children)).byRequest;
  const changes = statusChanges(since.status, await statusSnapshot(env, namespace));
  const results = await reconcileResults(op);
  const lines = op
    .log()
    .filter((l) => l.ts >= since.at && EXPLAINING.has(l.msg))
    .map((l) => {
      const { ts, level, msg, name, over, before, conditions, error } = l as Record<string, unknown>;
      return JSON.stringify({ ts, level, msg, name, over, before, conditions, error });
    });
  return [
    `since ${since.at} (then ${since.busy}):`,
    `writes by code: ${JSON.stringify(byCode)}`,
    `reconciles by result: ${JSON.stringify(
      Object.fromEntries(Object.entries(results).map(([k, v]) => [k, v - (since.results[k] ?? 0)])),
    )}`,
    `conditions changed (${changes.length}):`,
    ...changes.slice(0, 20).map((c) => `  ${c}`),
    `the operator's log lines about writes and requeues (${lines.length}):`,
    ...lines.slice(0, 30).map((l) => `  ${l}`),
  ].join('\n');
}

/** What a quiet pass saw, for its failure message: the writes, what they changed and why they ran. */
interface QuietPass {
  writes: Record<string, number>;
  reconciles: number;
  /** explain()'s account of the writes (empty when none). */
  diagnosis: string;
}

/**
 * With everything converged and the operator settled: touches every Memcached (an annotation: a new
 * resourceVersion, no new generation), waits until the operator reconciled that many more times
 * with its queue empty, and returns the writes it sent meanwhile and the reconciles it ran.
 */
async function quietPass(
  env: FaultEnv,
  children: Children,
  op: OperatorProcess,
  namespace: string,
  names: readonly string[],
  round: string,
): Promise<QuietPass> {
  const total = async () => (await op.metric('controller_runtime_reconcile_total')) ?? -1;
  const since = await mark(env, children, op, namespace);
  const before = await operatorWrites(children);
  const n0 = await total();
  await env.cluster.eachMemcached(namespace, names, (m) =>
    env.cluster.memcacheds.patch({ namespace, name: m.metadata.name }, 'merge', {
      metadata: { annotations: { 'faults.op-gen.dev/touched': round } },
    }),
  );
  await until(
    'a pass over every touched Memcached',
    async () =>
      (await total()) >= n0 + names.length && (await op.metric('workqueue_depth')) === 0 ? true : undefined,
    120_000,
  );
  const writes = requestsBetween(before, await operatorWrites(children)).byRequest;
  const reconciles = (await total()) - n0;
  if (Object.keys(writes).length === 0) return { writes, reconciles, diagnosis: '' };
  const diagnosis = `${names.length} touched, ${reconciles} reconciles; ${await explain(env, children, op, namespace, since)}`;
  return { writes, reconciles, diagnosis };
}

/** The controller's debug lines about 409 Conflicts from the operator's log. */
const CONFLICT_RETRIED = 'conflict writing a stale object; requeueing';
const CONFLICT_PARKED = 'conflict while the cache is out of date; the reconcile waits for it to catch up';

/**
 * Conflicts the operator's reconciles met in the whole run: retried through the rate limiter
 * (`conflictRetries`), parked until the cache caught up (`conflictParks`), and the most for one
 * object (`maxConflictsOneObject`, both kinds together).
 */
function conflictFigures(op: OperatorProcess): Figures {
  const perObject = new Map<string, number>();
  let retries = 0;
  let parks = 0;
  for (const line of op.log()) {
    if (line.msg !== CONFLICT_RETRIED && line.msg !== CONFLICT_PARKED) continue;
    if (line.msg === CONFLICT_RETRIED) retries++;
    else parks++;
    const key = `${String(line['namespace'])}/${String(line['name'])}`;
    perObject.set(key, (perObject.get(key) ?? 0) + 1);
  }
  return {
    conflictRetries: retries,
    conflictParks: parks,
    maxConflictsOneObject: Math.max(0, ...perObject.values()),
  };
}

/** API server killed hard (SIGKILL, 4 s down) while the dependents converge: nothing lost, quiet after. */
export async function dependentsApiServerRestart(env: FaultEnv, ns: string): Promise<Figures> {
  await env.cluster.createNamespace(ns);
  const children = await Children.connect(env);
  const standIn = new DeploymentStatusStandIn(children, ns);
  try {
    const op = await env.start('deps-restart', ns, false, { extraArgs: ['--log-level=debug'] });
    await started(op);
    await env.cluster.createMemcacheds(ns, env.objects);
    await until('a third Ready', async () =>
      (await env.cluster.readyCount(ns)) >= env.objects / 3 ? true : undefined,
    );
    const killedAt = Date.now();
    await env.cp.restartApiServer({ signal: 'SIGKILL', downtimeMs: 4_000 });
    const backAt = Date.now();
    const convergedMs = await waitConverged(env, children, ns, env.objects);
    assert.ok(op.running, `the operator crashed:\n${op.logTail()}`);
    const settleStart = Date.now();
    const { barrier, conflicts } = await settle(
      env,
      children,
      standIn,
      op,
      ns,
      { count: env.objects },
      'restart',
    );
    const settleMs = Date.now() - settleStart;
    const names = [...Array.from({ length: env.objects }, (_, i) => `m-${i}`), barrier];
    const quiet = await quietPass(env, children, op, ns, names, 'restart');
    assert.deepEqual(
      quiet.writes,
      {},
      `no hot loop: a pass with nothing changed writes nothing; it wrote:\n${quiet.diagnosis}`,
    );
    const figures: Figures = {
      outageMs: backAt - killedAt,
      convergedAfterBackMs: convergedMs,
      settleMs,
      settleConflicts: conflicts,
      reconciles: (await op.metric('controller_runtime_reconcile_total')) ?? -1,
      reconcileErrors: (await op.metric('controller_runtime_reconcile_errors_total')) ?? -1,
      quietPassReconciles: quiet.reconciles,
      quietPassWrites: 0,
      deploymentStatusPatches: standIn.patches,
      ...conflictFigures(op),
    };
    await op.stop();
    assert.equal((await op.exited).code, 0, op.logTail());
    return figures;
  } finally {
    await standIn.stop();
    children.transport.close();
  }
}

/**
 * A watch gap: the operator stopped (SIGSTOP) while a third of the Memcacheds are resized, 20
 * Deployments, 20 ConfigMaps and 10 Services deleted by hand and 10 Memcacheds deleted, etcd
 * compacted (the operator's watches resume with 410 Gone and relist); SIGCONT: nothing lost (every
 * deleted child back, every resize applied, Ready for the new generation), then quiet.
 */
export async function dependentsWatchGap(env: FaultEnv, ns: string): Promise<Figures> {
  await env.cluster.createNamespace(ns);
  const children = await Children.connect(env);
  const standIn = new DeploymentStatusStandIn(children, ns);
  try {
    const op = await env.start('deps-gap', ns, false, { extraArgs: ['--log-level=debug'] });
    await started(op);
    await env.cluster.createMemcacheds(ns, env.objects);
    await waitConverged(env, children, ns, env.objects);
    op.signal('SIGSTOP');
    const names = Array.from({ length: env.objects }, (_, i) => `m-${i}`);
    const resized = names.filter((_, i) => i % 3 === 0);
    const lost = names.filter((_, i) => i % 3 === 1).slice(0, 20);
    const deleted = names.filter((_, i) => i % 3 === 2).slice(0, 10);
    await env.cluster.eachMemcached(ns, resized, (m) =>
      env.cluster.memcacheds.patch({ namespace: ns, name: m.metadata.name }, 'merge', {
        spec: { size: ((m.spec.size ?? 1) % 3) + 1 },
      }),
    );
    for (const name of lost) {
      await children.delete(children.deployments, ns, name);
      await children.delete(children.configMaps, ns, `${name}-config`);
    }
    for (const name of lost.slice(0, 10)) await children.delete(children.services, ns, name);
    for (const name of deleted) await env.cluster.memcacheds.delete({ namespace: ns, name });
    await compactEtcd(env.cp.etcdUrl);
    const contAt = Date.now();
    op.signal('SIGCONT');
    const remaining = names.filter((n) => !deleted.includes(n));
    const convergedMs = await waitConverged(env, children, ns, remaining.length, deleted);
    assert.ok(op.running, op.logTail());
    const settleStart = Date.now();
    const { barrier, conflicts } = await settle(
      env,
      children,
      standIn,
      op,
      ns,
      { count: remaining.length, gone: deleted },
      'gap',
    );
    const settleMs = Date.now() - settleStart;
    const quiet = await quietPass(env, children, op, ns, [...remaining, barrier], 'gap');
    assert.deepEqual(
      quiet.writes,
      {},
      `no hot loop: a pass with nothing changed writes nothing; it wrote:\n${quiet.diagnosis}`,
    );
    const figures: Figures = {
      resized: resized.length,
      childrenDeleted: lost.length * 2 + 10,
      memcachedsDeleted: deleted.length,
      convergedAfterContMs: convergedMs,
      sinceContMs: Date.now() - contAt,
      settleMs,
      settleConflicts: conflicts,
      quietPassReconciles: quiet.reconciles,
      quietPassWrites: 0,
    };
    await op.stop();
    return figures;
  } finally {
    await standIn.stop();
    children.transport.close();
  }
}
