/**
 * `node bench/dependents-requests.ts [--parents N]`: the requests the Memcached operator sends, written
 * by hand (test/fixtures/runtime/memcached-operator.ts) and declared on dependents
 * (test/fixtures/runtime/memcached-dependents.ts), on the fake API server: the writes until a pass
 * writes nothing (Deployments made available by hand between passes, at most 10 passes), and the
 * writes of one more pass over every parent with nothing changed (a resync). Counts, not times: the
 * same on every machine. Reads come from the informer cache in both.
 */
import { parseArgs } from 'node:util';
import type { Kind } from '../src/client/kind.ts';
import { ResourceClient, type ObjectLike } from '../src/client/resource-client.ts';
import { builtinKinds } from '../src/runtime/builtin-kinds.ts';
import { InformerCache } from '../src/runtime/cache.ts';
import type { ReconcileContext, Reconciler } from '../src/runtime/controller.ts';
import { Workflow } from '../src/runtime/dependents/workflow.ts';
import { createLogger } from '../src/runtime/logger.ts';
import { ReconcileClient } from '../src/runtime/reconcile-client.ts';
import { FakeApiServer } from '../src/testing/fake-api-server.ts';
import { deployment, service } from '../test/fixtures/runtime/memcached-dependents.ts';
import {
  MemcachedKind,
  MemcachedReconciler,
  type Memcached,
} from '../test/fixtures/runtime/memcached-operator.ts';

const { values } = parseArgs({ options: { parents: { type: 'string', default: '200' } } });
const N = Number(values.parents);
const log = createLogger({ level: 'error', write: () => {} });
const { Deployment, Service } = builtinKinds;

async function settle(): Promise<void> {
  for (let i = 0; i < 50; i++) await new Promise<void>((r) => setImmediate(r));
}

interface Counts {
  readonly passesToQuiet: number;
  readonly writesToConverge: number;
  readonly writesPerSteadyPass: number;
}

async function measure(make: (cache: InformerCache) => Reconciler<Memcached>): Promise<Counts> {
  const server = new FakeApiServer()
    .register(MemcachedKind, { statusSubresource: true })
    .register(Deployment, { statusSubresource: true })
    .register(Service);
  const transport = server.transport('manager');
  const cache = new InformerCache(transport, { logger: log });
  for (const kind of [MemcachedKind, Deployment, Service] as Kind<ObjectLike>[]) cache.informersFor(kind);
  const reconciler = make(cache);
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
  for (let i = 0; i < N; i++)
    await api.create({
      apiVersion: 'cache.example.com/v1alpha1',
      kind: 'Memcached',
      metadata: { name: `m${i}`, namespace: 'ns' },
      spec: { image: 'memcached:1.6', size: 1 },
    });
  await settle();
  const writes = (): number =>
    server.requests.filter((r) => r.client === 'manager' && !r.watch && r.method !== 'GET').length;
  const pass = async (): Promise<void> => {
    for (let i = 0; i < N; i++) {
      try {
        await reconciler.reconcile(ctx, { namespace: 'ns', name: `m${i}` });
      } catch {
        // A conflict on a stale cache: the next pass retries, as the controller would.
      }
    }
    await settle();
  };
  const deployments = new ResourceClient(server.transport('kube-controller-manager'), Deployment);
  const start = writes();
  let passes = 0;
  for (;;) {
    const before = writes();
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
    if (writes() === before || passes >= 10) break;
  }
  const converged = writes();
  await pass();
  await cache.stop();
  return {
    passesToQuiet: passes, // 10: still writing after 10 passes
    writesToConverge: converged - start,
    writesPerSteadyPass: writes() - converged,
  };
}

const handWritten = await measure(() => new MemcachedReconciler());
const declared = await measure((cache) =>
  new Workflow<Memcached>('memcached', MemcachedKind, [deployment, service]).reconciler({
    watchOwned: () => undefined,
    watchMapped: () => undefined,
    observe: (kind, onEvent) =>
      cache.addHandlers(kind, {
        onAdd: (o) => onEvent(o, false),
        onUpdate: (_o, n) => onEvent(n, false),
        onDelete: (o) => onEvent(o, true),
      }),
  }),
);
console.log(`Memcached operator, ${N} parents, fake API server (node ${process.version})`);
console.log(JSON.stringify({ handWritten, declared }, null, 2));
