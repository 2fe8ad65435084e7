import { apiVersionOf, type Kind } from '../client/kind.ts';
import type { ObjectLike, PartialObjectMetadata } from '../client/resource-client.ts';
import type { InformerCache } from './cache.ts';
import type { Controller } from './controller.ts';
import { type ControllerOptions, type Reconciler } from './controller.ts';
import { keyOf, objectKey, type Request } from './object-key.ts';
import { passes, type Predicate } from './predicates.ts';
import type { Registry } from './metrics.ts';
import type { AnyDependent } from './dependents/dependent.ts';
import { Workflow, type WorkflowOptions } from './dependents/workflow.ts';
import { LOW_PRIORITY } from './workqueue.ts';

/** Maps an event on a watched object to the requests it should trigger. */
export type MapFunction<W> = (obj: W) => readonly Request[];

interface OwnerRef {
  apiVersion?: string;
  kind?: string;
  name?: string;
  controller?: boolean;
}

interface Watch {
  readonly kind: Kind<ObjectLike>;
  readonly predicates: readonly Predicate<ObjectLike>[];
  readonly toKeys: (obj: ObjectLike) => readonly string[];
  /**
   * The watch of the `for` kind: an event enqueues the object's own key, which the informer's store
   * already computed and hands to the handler (one key string per object, no array per event).
   */
  readonly self?: boolean;
  /** Watched through the kind's metadata-only informers (PartialObjectMetadata). */
  readonly metadataOnly?: boolean;
}

export interface BuilderHost {
  readonly cache: InformerCache;
  /** Where per-dependent metrics go. */
  readonly registry?: Registry;
  register(controller: Controller<unknown>): void;
  newController<T>(
    name: string,
    kind: Kind<T>,
    reconciler: Reconciler<T>,
    options: ControllerOptions,
  ): Controller<T>;
}

/**
 * Declares what a controller reconciles and what triggers it, in controller-runtime's builder style:
 * `mgr.controller('memcached').for(Memcached).owns(builtinKinds.Deployment).complete(reconciler)`.
 */
export class ControllerBuilder<T extends ObjectLike = ObjectLike> {
  private readonly host: BuilderHost;
  private readonly name: string;
  private forKind: Kind<T> | undefined;
  private readonly watchList: Watch[] = [];
  private options: ControllerOptions = {};
  private globalPredicates: Predicate<ObjectLike>[] = [];
  private workflow: Workflow<T> | undefined;

  constructor(host: BuilderHost, name: string) {
    this.host = host;
    this.name = name;
  }

  /** The kind this controller reconciles: its events enqueue the object itself. */
  for<K extends ObjectLike>(
    kind: Kind<K>,
    options: { predicates?: readonly Predicate<K>[] } = {},
  ): ControllerBuilder<K> {
    if (this.forKind) throw new Error(`controller ${this.name}: for() may be called once`);
    const self = this as unknown as ControllerBuilder<K>;
    self.forKind = kind;
    self.watchList.push({
      kind: kind as Kind<ObjectLike>,
      predicates: (options.predicates ?? []) as readonly Predicate<ObjectLike>[],
      toKeys: (obj) => [objectKey(obj)],
      self: true,
    });
    return self;
  }

  /**
   * Objects this controller creates and owns: their events enqueue the owner named by their
   * controller ownerReference (when it is of the `for` kind). The reconciler finds an object's
   * children with `ctx.client.list(kind, { namespace, field: ownedBy(obj) })` (the kind's owner
   * index is built by the first such lookup).
   */
  owns<O extends ObjectLike>(kind: Kind<O>, options: { predicates?: readonly Predicate<O>[] } = {}): this {
    this.watchList.push(this.ownsWatch(kind, options.predicates ?? []));
    return this;
  }

  private ownsWatch<O extends ObjectLike>(kind: Kind<O>, predicates: readonly Predicate<O>[]): Watch {
    return {
      kind: kind as Kind<ObjectLike>,
      predicates: predicates as readonly Predicate<ObjectLike>[],
      toKeys: (obj) => {
        const owner = this.forKind;
        if (!owner) return [];
        const refs = (
          (obj.metadata as { ownerReferences?: OwnerRef[] } | undefined)?.ownerReferences ?? []
        ).filter(
          (r) =>
            r.controller &&
            r.kind === owner.kind &&
            r.apiVersion?.split('/')[0] === apiVersionOf(owner).split('/')[0],
        );
        return refs.map((r) => keyOf(owner.namespaced ? obj.metadata?.namespace : undefined, r.name ?? ''));
      },
    };
  }

  /** Any other kind, mapped to requests by `map`. */
  watches<W extends ObjectLike>(
    kind: Kind<W>,
    map: MapFunction<W>,
    options: { predicates?: readonly Predicate<W>[] } = {},
  ): this {
    this.watchList.push({
      kind: kind as Kind<ObjectLike>,
      predicates: (options.predicates ?? []) as readonly Predicate<ObjectLike>[],
      toKeys: (obj) => map(obj as W).map((r) => keyOf(r.namespace, r.name)),
    });
    return this;
  }

  /**
   * owns(kind) through a metadata-only watch (controller-runtime's `Owns(obj,
   * builder.OnlyMetadata)`): the cache keeps only the children's metadata (PartialObjectMetadata,
   * no spec, status or data: far less memory for Secrets, ConfigMaps, Pods), which is all the owner
   * mapping needs. Read them with `mgr.cache.getMetadata` / `listMetadata`.
   */
  ownsMetadata(
    kind: Kind<ObjectLike>,
    options: { predicates?: readonly Predicate<ObjectLike>[] } = {},
  ): this {
    this.owns(kind, options);
    this.markMetadataOnly();
    return this;
  }

  /**
   * watches(kind, map) through a metadata-only watch (controller-runtime's `Watches(obj, handler,
   * builder.OnlyMetadata)`): `map` and the predicates see PartialObjectMetadata.
   */
  watchesMetadata(
    kind: Kind<ObjectLike>,
    map: MapFunction<PartialObjectMetadata>,
    options: { predicates?: readonly Predicate<ObjectLike>[] } = {},
  ): this {
    this.watches(kind, map, options);
    this.markMetadataOnly();
    return this;
  }

  private markMetadataOnly(): void {
    const last = this.watchList.length - 1;
    this.watchList[last] = { ...this.watchList[last]!, metadataOnly: true };
  }

  /** Predicates applied to every watched kind. */
  withEventFilter(...predicates: Predicate<ObjectLike>[]): this {
    this.globalPredicates = [...this.globalPredicates, ...predicates];
    return this;
  }

  withOptions(options: ControllerOptions): this {
    this.options = { ...this.options, ...options };
    return this;
  }

  /**
   * Declares the objects this controller's parents depend on as a workflow (docs/dependents.md):
   * each reconcile applies them in `dependsOn` order, waits for readiness through their events,
   * writes `<Name>Ready` and `Ready` conditions, and (for `cleanup: 'ordered'`) deletes them in
   * reverse order on the parent's deletion. Their kinds are watched. Fails here on a cycle, an
   * unknown dependency or a duplicate name. With it, complete()'s reconciler is optional and runs
   * after the workflow.
   */
  dependents(list: readonly AnyDependent[], options: WorkflowOptions = {}): this {
    const kind = this.forKind;
    if (!kind) throw new Error(`controller ${this.name}: call for(kind) before dependents()`);
    if (this.workflow) throw new Error(`controller ${this.name}: dependents() may be called once`);
    this.workflow = new Workflow<T>(this.name, kind, list, options);
    return this;
  }

  /** Builds the controller and registers it with the manager. */
  complete(reconciler?: Reconciler<T>): Controller<T> {
    const kind = this.forKind;
    if (!kind) throw new Error(`controller ${this.name}: call for(kind) before complete()`);
    const workflow = this.workflow;
    if (!reconciler && !workflow)
      throw new Error(`controller ${this.name}: complete() needs a reconciler (or dependents())`);
    let listen = (w: Watch): void => void this.watchList.push(w);
    const run = workflow
      ? workflow.reconciler(
          {
            watchOwned: (k) => listen(this.ownsWatch(k, [])),
            observe: (k, onEvent) =>
              this.host.cache.addHandlers(k, {
                onAdd: (obj) => onEvent(obj, false),
                onUpdate: (_old, obj) => onEvent(obj, false),
                onDelete: (obj) => onEvent(obj, true),
              }),
            watchMapped: (k, map) =>
              listen({
                kind: k,
                predicates: [],
                toKeys: (obj) => map(obj).map((r) => keyOf(r.namespace, r.name)),
              }),
            ...(this.host.registry ? { registry: this.host.registry } : {}),
          },
          reconciler,
        )
      : reconciler!;
    const controller = this.host.newController(this.name, kind, run, this.options);
    listen = (w) => this.listen(controller, w);
    for (const w of this.watchList) this.listen(controller, w);
    this.host.register(controller as Controller<unknown>);
    return controller;
  }

  private listen(controller: Controller<T>, w: Watch): void {
    const predicates = [...this.globalPredicates, ...w.predicates];
    const filtered = predicates.length > 0;
    const toKeys = w.toKeys;
    const enqueueKeys = (keys: readonly string[], priority: number | undefined): void => {
      for (let i = 0; i < keys.length; i++) controller.enqueue(keys[i] as string, priority);
    };
    // The for-kind's key is the store's (when given; objectKey otherwise): one string per object.
    const enqueue = w.self
      ? (obj: ObjectLike, priority: number | undefined, key: string | undefined): void =>
          controller.enqueue(key ?? objectKey(obj), priority)
      : (obj: ObjectLike, priority: number | undefined): void => enqueueKeys(toKeys(obj), priority);
    /** An update: the new object's keys, then the old object's that differ (an owner change). */
    const enqueueUpdate = w.self
      ? (_old: ObjectLike, obj: ObjectLike, priority: number | undefined, key: string | undefined): void =>
          enqueue(obj, priority, key)
      : (oldObj: ObjectLike, obj: ObjectLike, priority: number | undefined): void => {
          const keys = toKeys(obj);
          enqueueKeys(keys, priority);
          if (oldObj === obj) return;
          const oldKeys = toKeys(oldObj);
          for (let i = 0; i < oldKeys.length; i++) {
            const k = oldKeys[i] as string;
            if (!keys.includes(k)) controller.enqueue(k, priority);
          }
        };
    const cache = this.host.cache;
    (w.metadataOnly ? cache.addMetadataHandlers.bind(cache) : cache.addHandlers.bind(cache))(w.kind, {
      onAdd: (obj, initialList, key) => {
        if (!filtered || passes(predicates, 'create', obj))
          enqueue(obj, initialList ? LOW_PRIORITY : undefined, key);
      },
      onUpdate: (oldObj, newObj, key) => {
        if (filtered && !passes(predicates, 'update', newObj, oldObj)) return;
        // A resync or relist of an unchanged object is not news (controller-runtime: low priority).
        // An owner change moves the object: the old owner must hear of it too. Each key once per
        // event, as controller-runtime's handlers (a for-kind object's old and new key are one).
        enqueueUpdate(oldObj, newObj, eventPriority(oldObj, newObj), key);
      },
      onDelete: (obj) => {
        if (!filtered || passes(predicates, 'delete', obj)) enqueue(obj, undefined, undefined);
      },
    });
  }
}

/** LOW_PRIORITY for an update that changed nothing (same resourceVersion: a resync or relist). */
function eventPriority(oldObj: ObjectLike, newObj: ObjectLike): number | undefined {
  const rv = newObj.metadata?.resourceVersion;
  return oldObj === newObj || (rv !== undefined && oldObj.metadata?.resourceVersion === rv)
    ? LOW_PRIORITY
    : undefined;
}
