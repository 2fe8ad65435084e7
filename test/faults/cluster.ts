/**
 * The cluster side of the fault suite: the Memcached load, and the convergence check every fault
 * ends with: each Memcached has the finalizer, Ready=True with observedGeneration == generation,
 * and a Deployment controlled by it with the spec's replicas and image; each deleted Memcached is gone.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { CoreV1Api, type KubeConfig } from '@kubernetes/client-node';
import { isNotFound } from '../../src/client/api-error.ts';
import { defineKind } from '../../src/client/kind.ts';
import { ResourceClient, type ObjectLike } from '../../src/client/resource-client.ts';
import { Transport } from '../../src/client/transport.ts';
import { builtinKinds } from '../../src/runtime/builtin-kinds.ts';
import type { ControlPlane } from '../../src/testing/control-plane.ts';
import { installCrd } from '../../src/testing/install-crd.ts';

export interface Memcached extends ObjectLike {
  metadata: {
    name: string;
    namespace: string;
    uid?: string;
    generation?: number;
    resourceVersion?: string;
    finalizers?: string[];
    deletionTimestamp?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
  };
  spec: { size?: number; image: string };
  status?: {
    conditions?: {
      type: string;
      status: string;
      observedGeneration?: number;
      reason?: string;
      message?: string;
    }[];
  };
}

export const MemcachedKind = defineKind<Memcached>({
  group: 'cache.example.com',
  version: 'v1alpha1',
  kind: 'Memcached',
  plural: 'memcacheds',
  namespaced: true,
});

interface Deployment extends ObjectLike {
  metadata?: {
    name?: string;
    namespace?: string;
    ownerReferences?: { uid?: string; controller?: boolean }[];
  };
  spec?: { replicas?: number; template?: { spec?: { containers?: { name?: string; image?: string }[] } } };
}
const DeploymentKind = builtinKinds.Deployment as unknown as typeof builtinKinds.Deployment & {
  readonly __type?: Deployment;
};

export const FINALIZER = 'cache.example.com/finalizer';

interface CoreEvent extends ObjectLike {
  type?: string;
  reason?: string;
  message?: string;
  involvedObject?: { name?: string };
}
const EventKind = defineKind<CoreEvent>({
  group: '',
  version: 'v1',
  kind: 'Event',
  plural: 'events',
  namespaced: true,
});

/** Clients of the test process (not the operator's), reconnecting after an API server restart. */
export class Cluster {
  readonly memcacheds: ResourceClient<Memcached>;
  readonly deployments: ResourceClient<Deployment>;
  private readonly eventClient: ResourceClient<CoreEvent>;
  private readonly transport: Transport;
  private readonly kubeConfig: KubeConfig;

  private constructor(transport: Transport, kubeConfig: KubeConfig) {
    this.transport = transport;
    this.kubeConfig = kubeConfig;
    this.memcacheds = new ResourceClient(transport, MemcachedKind);
    this.deployments = new ResourceClient(transport, DeploymentKind as never);
    this.eventClient = new ResourceClient(transport, EventKind);
  }

  async events(namespace: string): Promise<CoreEvent[]> {
    return (await this.eventClient.listAll({ namespace })).items;
  }

  static async connect(cp: ControlPlane, crd: string): Promise<Cluster> {
    const transport = await Transport.fromKubeConfig(cp.kubeConfig, { maxSockets: 32, timeoutMs: 15_000 });
    await installCrd(transport, crd, MemcachedKind);
    return new Cluster(transport, cp.kubeConfig);
  }

  close(): void {
    this.transport.close();
  }

  async createNamespace(name: string): Promise<void> {
    await this.kubeConfig.makeApiClient(CoreV1Api).createNamespace({ body: { metadata: { name } } });
  }

  /** Creates `count` Memcacheds named m-0…, `concurrency` requests in flight. */
  async createMemcacheds(namespace: string, count: number, concurrency = 16): Promise<void> {
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < count) {
        const i = next++;
        await retry(() =>
          this.memcacheds.create({
            apiVersion: 'cache.example.com/v1alpha1',
            kind: 'Memcached',
            metadata: { name: `m-${i}`, namespace },
            spec: { size: (i % 3) + 1, image: 'registry.k8s.io/pause:3.10' },
          }),
        );
      }
    };
    await Promise.all(Array.from({ length: concurrency }, worker));
  }

  /**
   * Runs `fn` on each Memcached (by name) that exists, `concurrency` at a time, retrying transient
   * failures.
   */
  async eachMemcached(
    namespace: string,
    names: readonly string[],
    fn: (m: Memcached) => Promise<unknown>,
    concurrency = 16,
  ): Promise<void> {
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < names.length) {
        const name = names[next++]!;
        await retry(async () => {
          let m: Memcached;
          try {
            m = await this.memcacheds.get({ namespace, name });
          } catch (err) {
            if (isNotFound(err)) return; // not created yet (or deleted): nothing to change
            throw err;
          }
          await fn(m);
        });
      }
    };
    await Promise.all(Array.from({ length: concurrency }, worker));
  }

  /** What is not converged yet, as short descriptions (empty: converged). */
  async problems(namespace: string, expectGone: readonly string[] = []): Promise<string[]> {
    const [ms, ds] = await Promise.all([
      this.memcacheds.listAll({ namespace }),
      this.deployments.listAll({ namespace }),
    ]);
    const deployments = new Map(ds.items.map((d) => [d.metadata?.name ?? '', d]));
    const out: string[] = [];
    const gone = new Set(expectGone);
    for (const m of ms.items) {
      const name = m.metadata.name;
      if (gone.has(name)) {
        out.push(
          `${name}: still present after deletion (finalizers ${JSON.stringify(m.metadata.finalizers)})`,
        );
        continue;
      }
      if (!m.metadata.finalizers?.includes(FINALIZER)) {
        out.push(`${name}: no finalizer`);
        continue;
      }
      const ready = m.status?.conditions?.find((c) => c.type === 'Ready');
      if (ready?.status !== 'True') {
        out.push(`${name}: Ready ${ready?.status ?? 'missing'} ${ready?.reason ?? ''}`);
        continue;
      }
      if (ready.observedGeneration !== m.metadata.generation) {
        out.push(
          `${name}: observedGeneration ${ready.observedGeneration} != generation ${m.metadata.generation}`,
        );
        continue;
      }
      const d = deployments.get(name);
      if (!d) {
        out.push(`${name}: no Deployment`);
        continue;
      }
      const ref = d.metadata?.ownerReferences?.find((r) => r.controller);
      if (ref?.uid !== m.metadata.uid) out.push(`${name}: Deployment not controlled by it`);
      else if (d.spec?.replicas !== (m.spec.size ?? 1))
        out.push(`${name}: Deployment replicas ${d.spec?.replicas} != size ${m.spec.size ?? 1}`);
      else if (d.spec?.template?.spec?.containers?.[0]?.image !== m.spec.image)
        out.push(`${name}: Deployment image differs`);
    }
    return out;
  }

  /**
   * Polls until converged; resolves with the time it took (ms), or throws after `timeoutMs` naming
   * what was not converged.
   */
  async waitConverged(
    namespace: string,
    options: { timeoutMs?: number; expectGone?: readonly string[]; expectCount?: number } = {},
  ): Promise<number> {
    const started = Date.now();
    const deadline = started + (options.timeoutMs ?? 120_000);
    let last: string[] = ['not checked'];
    while (Date.now() < deadline) {
      try {
        last = await this.problems(namespace, options.expectGone);
        if (options.expectCount !== undefined) {
          const count = (await this.memcacheds.listAll({ namespace })).items.length;
          if (count !== options.expectCount) last.push(`${count} Memcacheds, want ${options.expectCount}`);
        }
        if (last.length === 0) return Date.now() - started;
      } catch (err) {
        last = [`check failed: ${(err as Error).message}`];
      }
      await sleep(100);
    }
    throw new Error(
      `not converged within ${options.timeoutMs ?? 120_000} ms: ${last.length} problems, e.g.\n  ${last.slice(0, 8).join('\n  ')}`,
    );
  }

  /** Memcacheds whose Ready condition is True for their generation. */
  async readyCount(namespace: string): Promise<number> {
    const ms = await this.memcacheds.listAll({ namespace });
    return ms.items.filter((m) =>
      m.status?.conditions?.some(
        (c) => c.type === 'Ready' && c.status === 'True' && c.observedGeneration === m.metadata.generation,
      ),
    ).length;
  }

  async deleteDeployment(namespace: string, name: string): Promise<void> {
    try {
      await this.deployments.delete({ namespace, name });
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
  }
}

/** Retries a request through transient failures (an API server restarting), up to ~30 s. */
export async function retry<T>(fn: () => Promise<T>): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await fn();
    } catch (err) {
      const status = (err as { statusCode?: number }).statusCode;
      if ((status !== undefined && status < 500 && status !== 429) || attempt >= 150) throw err;
      await sleep(200);
    }
  }
}
