/**
 * The one measuring loop of the dependents benchmarks (bench/dependents-requests.ts,
 * bench/dependents-cost.ts): N Memcached parents on the fake API server, a reconciler fed from the
 * informer cache, passes over every parent until a pass sends nothing counted (Deployments made
 * available by hand between passes, as no controller-manager runs here; at most 10 passes), then one
 * more pass with nothing changed (a resync), its requests and CPU.
 */
import type { Kind } from '../src/client/kind.ts';
import { ResourceClient, type ObjectLike } from '../src/client/resource-client.ts';
import { builtinKinds } from '../src/runtime/builtin-kinds.ts';
import { InformerCache } from '../src/runtime/cache.ts';
import type { ReconcileContext, Reconciler } from '../src/runtime/controller.ts';
import type { AnyDependent } from '../src/runtime/dependents/dependent.ts';
import { Workflow } from '../src/runtime/dependents/workflow.ts';
import { createLogger } from '../src/runtime/logger.ts';
import { ReconcileClient } from '../src/runtime/reconcile-client.ts';
import { FakeApiServer, type FakeRequest } from '../src/testing/fake-api-server.ts';
import { MemcachedKind, type Memcached } from '../test/fixtures/runtime/memcached-operator.ts';

const log = createLogger({ level: 'error', write: () => {} });
const { Deployment } = builtinKinds;

async function settle(): Promise<void> {
  for (let i = 0; i < 50; i++) await new Promise<void>((r) => setImmediate(r));
}

export interface MemcachedRun {
  /** Passes until one sent nothing counted; 10 means still sending after 10. */
  readonly passesToQuiet: number;
  /** Counted requests until then. */
  readonly toConverge: number;
  /** Counted requests of one more pass with nothing changed. */
  readonly steady: number;
  /** The CPU of that pass (the fake server serves in-process, so its work is in it too). */
  readonly steadyCpuMs: number;
}

export interface MemcachedBenchOptions {
  readonly parents: number;
  /** The children's kinds besides Deployment (registered on the server and cached). */
  readonly childKinds: readonly Kind<ObjectLike>[];
  /** Which of the manager's requests count (its watches never do). */
  readonly counted: (request: FakeRequest) => boolean;
  readonly make: (cache: InformerCache) => Reconciler<Memcached>;
}

export async function measureMemcached(options: MemcachedBenchOptions): Promise<MemcachedRun> {
  const server = new FakeApiServer()
    .register(MemcachedKind, { statusSubresource: true })
    .register(Deployment, { statusSubresource: true });
  for (const kind of options.childKinds) server.register(kind);
  const transport = server.transport('manager');
  const cache = new InformerCache(transport, { logger: log });
  for (const kind of [MemcachedKind, Deployment, ...options.childKinds] as Kind<ObjectLike>[])
    cache.informersFor(kind);
  const reconciler = options.make(cache);
  cache.start();
  await cache.waitForSync();
  const ctx: ReconcileContext<Memcached> = {
    client: new ReconcileClient(transport, cache, 'op-gen-manager'),
    log,
    recorder: { event: () => undefined },
    signal: new AbortController().signal,
    kind: MemcachedKind,
    controller: 'memcached',
    reconcileId: 'bench',
  };
  const api = new ResourceClient(server.transport('user'), MemcachedKind);
  for (let i = 0; i < options.parents; i++)
    await api.create({
      apiVersion: 'cache.example.com/v1alpha1',
      kind: 'Memcached',
      metadata: { name: `m${i}`, namespace: 'ns' },
      spec: { image: 'memcached:1.6', size: 1 },
    });
  await settle();
  const count = (): number =>
    server.requests.filter((r) => r.client === 'manager' && !r.watch && options.counted(r)).length;
  const pass = async (): Promise<void> => {
    for (let i = 0; i < options.parents; i++) {
      try {
        await reconciler.reconcile(ctx, { namespace: 'ns', name: `m${i}` });
      } catch (err) {
        // A conflict on a stale cache: the next pass retries, as the controller would.
        if (process.env.BENCH_DEBUG) console.error(err);
      }
    }
    await settle();
  };
  const deployments = new ResourceClient(server.transport('kube-controller-manager'), Deployment);
  const start = count();
  let passes = 0;
  for (;;) {
    const before = count();
    await pass();
    passes++;
    for (const d of server.list(Deployment)) {
      const status = (d as ObjectLike & { status?: { availableReplicas?: number } }).status;
      if (status?.availableReplicas) continue;
      await deployments.patchStatus({ namespace: 'ns', name: d.metadata.name }, 'merge', {
        status: {
          observedGeneration: d.metadata.generation,
          replicas: 1,
          updatedReplicas: 1,
          availableReplicas: 1,
        },
      });
    }
    await settle();
    if (count() === before || passes >= 10) break;
  }
  const converged = count();
  const cpu = process.cpuUsage();
  await pass();
  const used = process.cpuUsage(cpu);
  await cache.stop();
  return {
    passesToQuiet: passes,
    toConverge: converged - start,
    steady: count() - converged,
    steadyCpuMs: (used.user + used.system) / 1000,
  };
}

/** A workflow of `dependents` as the builder wires it, its children's events observed on `cache`. */
export function workflowReconciler(
  cache: InformerCache,
  dependents: readonly AnyDependent[],
): Reconciler<Memcached> {
  return new Workflow<Memcached>('memcached', MemcachedKind, dependents).reconciler({
    watchOwned: () => undefined,
    watchMapped: () => undefined,
    observe: (kind, onEvent) =>
      cache.addHandlers(kind, {
        onAdd: (o) => onEvent(o, false),
        onUpdate: (_o, n) => onEvent(n, false),
        onDelete: (o) => onEvent(o, true),
      }),
  });
}
