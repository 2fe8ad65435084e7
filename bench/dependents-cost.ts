/**
 * `node bench/dependents-cost.ts [--parents 2000] [--rounds 5]`: the reconcile cost of a 4-dependent
 * workflow (ConfigMap and ServiceAccount, then a Deployment depending on both, then a Service
 * depending on the Deployment) against the same written by hand (the 4 objects force-applied every
 * pass, Ready updated when it changes), on the fake API server. Per variant: the requests to
 * converge (Deployments made available between passes, as in bench/dependents-requests.ts), then
 * one steady pass over every parent with nothing changed: its requests and its CPU time. The two
 * variants run alternately, `rounds` times each; the steady CPU time is reported as medians and
 * their ratio (declared / hand-written). Reads come from the informer cache in both.
 */
import { parseArgs } from 'node:util';
import type { V1ConfigMap, V1Deployment, V1Service, V1ServiceAccount } from '@kubernetes/client-node';
import type { Kind } from '../src/client/kind.ts';
import type { ObjectLike } from '../src/client/resource-client.ts';
import { builtinKinds } from '../src/runtime/builtin-kinds.ts';
import type { InformerCache } from '../src/runtime/cache.ts';
import type { ReconcileContext, Reconciler } from '../src/runtime/controller.ts';
import type { Request } from '../src/runtime/object-key.ts';
import { dependent } from '../src/runtime/dependents/dependent.ts';
import { conditionUnchanged, setCondition, setControllerReference } from '../src/runtime/index.ts';
import { MemcachedKind, type Memcached } from '../test/fixtures/runtime/memcached-operator.ts';
import { measureMemcached, workflowReconciler } from './dependents-harness.ts';

const { values } = parseArgs({
  options: { parents: { type: 'string', default: '2000' }, rounds: { type: 'string', default: '5' } },
});
const N = Number(values.parents);
const ROUNDS = Number(values.rounds);
const { ConfigMap, ServiceAccount, Deployment, Service } = builtinKinds;

const labels = (m: Memcached) => ({ app: 'memcached', instance: m.metadata.name ?? '' });
const desiredConfig = (m: Memcached): V1ConfigMap => ({
  metadata: { name: `${m.metadata.name}-config`, labels: labels(m) },
  data: { IMAGE: m.spec.image },
});
const desiredAccount = (m: Memcached): V1ServiceAccount => ({
  metadata: { name: `${m.metadata.name}`, labels: labels(m) },
});
const desiredDeployment = (m: Memcached): V1Deployment => ({
  metadata: { name: m.metadata.name, labels: labels(m) },
  spec: {
    replicas: m.spec.size ?? 1,
    selector: { matchLabels: labels(m) },
    template: {
      metadata: { labels: labels(m) },
      spec: {
        serviceAccountName: m.metadata.name,
        containers: [
          {
            name: 'memcached',
            image: m.spec.image,
            envFrom: [{ configMapRef: { name: `${m.metadata.name}-config` } }],
          },
        ],
      },
    },
  },
});
const desiredService = (m: Memcached): V1Service => ({
  metadata: { name: m.metadata.name, labels: labels(m) },
  spec: { selector: labels(m), ports: [{ name: 'memcached', port: 11211 }] },
});

const config = dependent(ConfigMap, { name: 'config', desired: desiredConfig });
const account = dependent(ServiceAccount, { name: 'account', desired: desiredAccount });
const deployment = dependent(Deployment, { name: 'deployment', desired: desiredDeployment }).dependsOn(
  config,
  account,
);
const service = dependent(Service, { name: 'service', desired: desiredService }).dependsOn(deployment);

/** The same four objects, written by hand as a typical reconciler does: apply all, then Ready. */
class HandWritten implements Reconciler<Memcached> {
  async reconcile(ctx: ReconcileContext<Memcached>, req: Request): Promise<void> {
    const obj = await ctx.client.get(MemcachedKind, req);
    if (!obj) return;
    const apply = (kind: Kind<ObjectLike>, desired: ObjectLike) => {
      const owned: ObjectLike = setControllerReference(obj, {
        ...desired,
        apiVersion: kind.group ? `${kind.group}/${kind.version}` : kind.version,
        kind: kind.kind,
        metadata: { ...desired.metadata, namespace: obj.metadata.namespace ?? 'ns' },
      });
      return ctx.client.apply(kind, owned, { fieldManager: 'bench', force: true });
    };
    await Promise.all([
      apply(ConfigMap as Kind<ObjectLike>, desiredConfig(obj) as ObjectLike),
      apply(ServiceAccount as Kind<ObjectLike>, desiredAccount(obj) as ObjectLike),
    ]);
    await apply(Deployment as Kind<ObjectLike>, desiredDeployment(obj) as ObjectLike);
    await apply(Service as Kind<ObjectLike>, desiredService(obj) as ObjectLike);
    const ready = {
      type: 'Ready',
      status: 'True' as const,
      observedGeneration: obj.metadata.generation ?? 0,
      reason: 'Applied',
      message: 'children applied',
    };
    if (!conditionUnchanged(obj.status?.conditions, ready)) {
      await ctx.client.updateStatus(MemcachedKind, {
        ...obj,
        status: { ...obj.status, conditions: setCondition(obj.status?.conditions, ready) },
      });
    }
  }
}

interface Run {
  readonly passesToQuiet: number;
  readonly requestsToConverge: number;
  readonly steadyRequests: number;
  readonly steadyCpuMs: number;
}

async function measure(make: (cache: InformerCache) => Reconciler<Memcached>): Promise<Run> {
  const run = await measureMemcached({
    parents: N,
    childKinds: [ConfigMap, ServiceAccount, Service],
    counted: () => true,
    make,
  });
  return {
    passesToQuiet: run.passesToQuiet,
    requestsToConverge: run.toConverge,
    steadyRequests: run.steady,
    steadyCpuMs: run.steadyCpuMs,
  };
}

const declaredReconciler = (cache: InformerCache) =>
  workflowReconciler(cache, [config, account, deployment, service]);

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? (s[m] ?? 0) : ((s[m - 1] ?? 0) + (s[m] ?? 0)) / 2;
};

const hand: Run[] = [];
const declared: Run[] = [];
for (let r = 0; r < ROUNDS; r++) {
  hand.push(await measure(() => new HandWritten()));
  declared.push(await measure(declaredReconciler));
}
const summary = (runs: Run[]) => ({
  passesToQuiet: runs[0]?.passesToQuiet,
  requestsToConverge: runs[0]?.requestsToConverge,
  steadyRequests: runs[0]?.steadyRequests,
  steadyCpuMsMedian: Math.round(median(runs.map((x) => x.steadyCpuMs))),
  steadyCpuMs: runs.map((x) => Math.round(x.steadyCpuMs)),
});
const h = summary(hand);
const d = summary(declared);
console.log(
  `4-dependent workflow, ${N} parents, ${ROUNDS} alternating rounds, fake API server (node ${process.version})`,
);
console.log(
  JSON.stringify(
    {
      handWritten: h,
      declared: d,
      steadyCpuRatioDeclaredOverHand: +(d.steadyCpuMsMedian / h.steadyCpuMsMedian).toFixed(3),
    },
    null,
    2,
  ),
);
