import type { Condition } from '../../../../src/api-types/meta.ts';
import { defineKind, type Kind } from '../../../../src/client/kind.ts';
import { ResourceClient, type ObjectLike } from '../../../../src/client/resource-client.ts';
import type { Transport } from '../../../../src/client/transport.ts';
import { builtinKinds } from '../../../../src/runtime/builtin-kinds.ts';
import { InformerCache } from '../../../../src/runtime/cache.ts';
import type { ReconcileContext, Reconciler } from '../../../../src/runtime/controller.ts';
import type { AnyDependent } from '../../../../src/runtime/dependents/dependent.ts';
import { Workflow, type WorkflowOptions } from '../../../../src/runtime/dependents/workflow.ts';
import type { EventRecorder, EventType } from '../../../../src/runtime/events.ts';
import { Registry } from '../../../../src/runtime/metrics.ts';
import { keyOf, type Request } from '../../../../src/runtime/object-key.ts';
import { FakeApiServer, type FakeRequest } from '../../../../src/testing/fake-api-server.ts';
import { ReconcileClient } from '../../../../src/runtime/reconcile-client.ts';
import { quietLogger, settle } from '../../../helpers/runtime-fakes.ts';

export interface AppSpec {
  image?: string;
  zones?: string[];
  withService?: boolean;
  secretName?: string;
}
export type App = ObjectLike & {
  metadata?: ObjectLike['metadata'] & { uid?: string; generation?: number; finalizers?: string[] };
  spec?: AppSpec;
  status?: { conditions?: Condition[] };
};

export const AppKind = defineKind<App>({
  group: 'test.op-gen.dev',
  version: 'v1',
  kind: 'App',
  plural: 'apps',
  namespaced: true,
});

export const { ConfigMap, Deployment, Service, Secret } = builtinKinds;

export interface RecordedEvent {
  readonly object: string;
  readonly type: EventType;
  readonly reason: string;
  readonly message: string;
}

/**
 * A workflow's reconciler over a real InformerCache and ReconcileClient on the fake API server, with
 * no Manager around it: the test calls reconcile itself, and sees which parents the dependents'
 * watches would enqueue (`enqueued`), every request (`writes()`), events and metrics.
 */
export class Harness {
  readonly server: FakeApiServer;
  readonly cache: InformerCache;
  readonly client: ReconcileClient;
  readonly registry = new Registry();
  readonly events: RecordedEvent[] = [];
  readonly enqueued: string[] = [];
  readonly workflow: Workflow<App>;
  readonly reconciler: Reconciler<App>;
  readonly apps: ResourceClient<App>;

  constructor(
    list: readonly AnyDependent[],
    options: {
      workflow?: WorkflowOptions;
      transport?: (t: Transport) => Transport;
      after?: Reconciler<App>;
    } = {},
  ) {
    this.server = new FakeApiServer()
      .register(AppKind, { statusSubresource: true })
      .register(ConfigMap)
      .register(Secret)
      .register(Deployment, { statusSubresource: true })
      .register(Service, { statusSubresource: true });
    const base = this.server.transport('manager');
    const transport = options.transport ? options.transport(base) : base;
    this.cache = new InformerCache(transport, { logger: quietLogger });
    this.client = new ReconcileClient(transport, this.cache, 'op-gen-manager');
    this.apps = new ResourceClient(this.server.transport('test'), AppKind);
    this.cache.informersFor(AppKind);
    this.workflow = new Workflow<App>('app', AppKind, list, options.workflow ?? {});
    const enqueue = (keys: readonly string[]): void => void this.enqueued.push(...keys);
    this.reconciler = this.workflow.reconciler(
      {
        watchOwned: (kind) =>
          this.cache.addHandlers(kind, {
            onAdd: (o) => enqueue(ownerKeys(o)),
            onUpdate: (_o, n) => enqueue(ownerKeys(n)),
            onDelete: (o) => enqueue(ownerKeys(o)),
          }),
        observe: (kind, onEvent) =>
          this.cache.addHandlers(kind, {
            onAdd: (o) => onEvent(o, false),
            onUpdate: (_o, n) => onEvent(n, false),
            onDelete: (o) => onEvent(o, true),
          }),
        watchMapped: (kind, map) =>
          this.cache.addHandlers(kind, {
            onAdd: (o) => enqueue(map(o).map((r) => keyOf(r.namespace, r.name))),
            onUpdate: (_o, n) => enqueue(map(n).map((r) => keyOf(r.namespace, r.name))),
            onDelete: (o) => enqueue(map(o).map((r) => keyOf(r.namespace, r.name))),
          }),
        registry: this.registry,
      },
      options.after,
    );
  }

  async start(): Promise<this> {
    this.cache.start();
    await this.cache.waitForSync();
    return this;
  }

  async stop(): Promise<void> {
    await this.cache.stop();
  }

  context(): ReconcileContext<App> {
    const recorder: EventRecorder = {
      event: (obj, type, reason, message) =>
        this.events.push({ object: `${obj.kind}/${obj.metadata?.name}`, type, reason, message }),
    };
    return {
      client: this.client,
      log: quietLogger,
      recorder,
      signal: new AbortController().signal,
      kind: AppKind,
      controller: 'app',
      reconcileId: 'test',
    };
  }

  /** One reconcile of ns/<name>, then lets the cache see what it wrote. */
  async reconcile(name = 'a'): Promise<unknown> {
    const req: Request = { namespace: 'ns', name };
    const result = await this.reconciler.reconcile(this.context(), req);
    await settle();
    return result;
  }

  /** Requests the manager's transport sent that change something (reads come from the cache). */
  writes(since = 0): FakeRequest[] {
    return this.server.requests
      .slice(since)
      .filter((r) => r.client === 'manager' && !r.watch && r.method !== 'GET');
  }

  async createApp(name = 'a', spec: AppSpec = {}, finalizers?: string[]): Promise<App> {
    const app = await this.apps.create({
      metadata: { name, namespace: 'ns', ...(finalizers ? { finalizers } : {}) },
      spec,
    });
    await settle();
    return app;
  }

  get(kind: Kind<unknown>, name: string): ObjectLike | undefined {
    return this.server.get(kind, 'ns', name) as ObjectLike | undefined;
  }

  app(name = 'a'): App & { metadata: NonNullable<App['metadata']> } {
    return this.server.get(AppKind, 'ns', name) as App & { metadata: NonNullable<App['metadata']> };
  }

  condition(type: string, name = 'a'): Condition | undefined {
    return this.app(name).status?.conditions?.find((c) => c.type === type);
  }

  /** Makes a Deployment available, as its controller would. */
  async makeAvailable(name: string): Promise<void> {
    const d = this.server.get(Deployment, 'ns', name)!;
    const deployments = new ResourceClient(this.server.transport('kube-controller-manager'), Deployment);
    const replicas = (d as { spec?: { replicas?: number } }).spec?.replicas ?? 1;
    await deployments.patchStatus({ namespace: 'ns', name }, 'merge', {
      status: {
        observedGeneration: d.metadata.generation,
        replicas,
        availableReplicas: replicas,
        readyReplicas: replicas,
        updatedReplicas: replicas,
      },
    });
    await settle();
  }
}

function ownerKeys(o: ObjectLike): string[] {
  const refs = (o.metadata as { ownerReferences?: { kind?: string; name?: string; controller?: boolean }[] })
    .ownerReferences;
  return (refs ?? [])
    .filter((r) => r.controller && r.kind === 'App')
    .map((r) => keyOf(o.metadata?.namespace, r.name ?? ''));
}

export function configMap(
  name: string,
  data: Record<string, string>,
): ObjectLike & { data: Record<string, string> } {
  return { metadata: { name }, data };
}

export function deployment(name: string, image: string): ObjectLike & { spec: unknown } {
  return {
    metadata: { name },
    spec: {
      replicas: 1,
      selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'app', image }] } },
    },
  };
}

export function service(name: string): ObjectLike & { spec: unknown } {
  return { metadata: { name }, spec: { selector: { app: name }, ports: [{ port: 80 }] } };
}
