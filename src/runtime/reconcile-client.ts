import { isNotFound } from '../client/api-error.ts';
import type { Kind } from '../client/kind.ts';
import {
  ResourceClient,
  type ApplyObject,
  type ApplyOptions,
  type DeleteOptions,
  type ObjectKey,
  type ObjectLike,
  type PatchOptions,
  type PatchType,
  type WriteOptions,
} from '../client/resource-client.ts';
import type { Transport } from '../client/transport.ts';
import type { InformerCache } from './cache.ts';
import { labelSelectorString, type LabelSelector } from './label-selector.ts';

/**
 * The client reconcilers get: reads come from the shared cache (always a little stale; never a
 * round trip) for kinds the manager watches, and from the API for others; writes go to the API.
 * `update` carries metadata.resourceVersion, so writing from a stale object fails with a Conflict
 * ApiError; the controller requeues on it with backoff. Cached objects are shared: do not mutate them.
 */
export class ReconcileClient {
  private readonly transport: Transport;
  private readonly cache: InformerCache;
  private readonly clients = new Map<Kind<unknown>, ResourceClient<ObjectLike>>();
  readonly defaultFieldManager: string;

  constructor(transport: Transport, cache: InformerCache, defaultFieldManager: string) {
    this.transport = transport;
    this.cache = cache;
    this.defaultFieldManager = defaultFieldManager;
  }

  /** The uncached REST client for a kind. */
  resource<T extends ObjectLike>(kind: Kind<T>): ResourceClient<T> {
    let c = this.clients.get(kind as Kind<unknown>);
    if (!c) {
      c = new ResourceClient<ObjectLike>(this.transport, kind as Kind<ObjectLike>);
      this.clients.set(kind as Kind<unknown>, c);
    }
    return c as unknown as ResourceClient<T>;
  }

  private cached(kind: Kind<unknown>, namespace: string | undefined): boolean {
    return this.cache.isCached(kind) && this.cache.watchesNamespace(namespace);
  }

  /** The object, or undefined when it does not exist (in the cache, for watched kinds). */
  async get<T extends ObjectLike>(kind: Kind<T>, key: ObjectKey): Promise<T | undefined> {
    if (this.cached(kind, key.namespace)) return this.cache.get(kind, key.namespace, key.name);
    try {
      return await this.resource(kind).get(key);
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  }

  async list<T extends ObjectLike>(
    kind: Kind<T>,
    options: { namespace?: string; labelSelector?: LabelSelector } = {},
  ): Promise<T[]> {
    if (this.cached(kind, options.namespace)) return this.cache.list(kind, options);
    const selector = labelSelectorString(options.labelSelector);
    const list = await this.resource(kind).listAll({
      ...(options.namespace ? { namespace: options.namespace } : {}),
      ...(selector ? { labelSelector: selector } : {}),
    });
    return list.items;
  }

  private write(options?: WriteOptions): WriteOptions {
    return { fieldManager: this.defaultFieldManager, ...options };
  }

  create<T extends ObjectLike>(kind: Kind<T>, obj: T, options?: WriteOptions): Promise<T> {
    return this.resource(kind).create(obj, this.write(options));
  }

  /** PUT with the object's resourceVersion: optimistic concurrency. */
  update<T extends ObjectLike>(kind: Kind<T>, obj: T, options?: WriteOptions): Promise<T> {
    return this.resource(kind).replace(obj, this.write(options));
  }

  patch<T extends ObjectLike>(
    kind: Kind<T>,
    key: ObjectKey,
    type: PatchType,
    patch: unknown,
    options?: PatchOptions,
  ): Promise<T> {
    return this.resource(kind).patch(key, type, patch, this.write(options));
  }

  /** Server-side apply: send the whole desired state every time; the server merges by field owner. */
  apply<T extends ObjectLike>(
    kind: Kind<T>,
    obj: ApplyObject<T>,
    options?: Partial<ApplyOptions>,
  ): Promise<T> {
    return this.resource(kind).apply(obj, { fieldManager: this.defaultFieldManager, ...options });
  }

  /** Deletes; resolves false when the object was already gone. */
  async delete<T extends ObjectLike>(
    kind: Kind<T>,
    key: ObjectKey,
    options?: DeleteOptions,
  ): Promise<boolean> {
    try {
      await this.resource(kind).delete(key, options);
      return true;
    } catch (err) {
      if (isNotFound(err)) return false;
      throw err;
    }
  }

  updateStatus<T extends ObjectLike>(kind: Kind<T>, obj: T, options?: WriteOptions): Promise<T> {
    return this.resource(kind).replaceStatus(obj, this.write(options));
  }

  patchStatus<T extends ObjectLike>(
    kind: Kind<T>,
    key: ObjectKey,
    type: PatchType,
    patch: unknown,
    options?: PatchOptions,
  ): Promise<T> {
    return this.resource(kind).patchStatus(key, type, patch, this.write(options));
  }

  applyStatus<T extends ObjectLike>(
    kind: Kind<T>,
    obj: ApplyObject<T>,
    options?: Partial<ApplyOptions>,
  ): Promise<T> {
    return this.resource(kind).applyStatus(obj, { fieldManager: this.defaultFieldManager, ...options });
  }
}
