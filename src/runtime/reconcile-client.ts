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
import type { Transport, TransportRequest } from '../client/transport.ts';
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
  private readonly statusWriter: StatusWriter;

  constructor(transport: Transport, cache: InformerCache, defaultFieldManager: string) {
    this.transport = transport;
    this.cache = cache;
    this.defaultFieldManager = defaultFieldManager;
    this.statusWriter = new StatusWriter(this);
  }

  /**
   * This client with `signal` on every API request it sends (combined with a request's own signal):
   * what a reconcile with a deadline gets as `ctx.client`, so its calls end when the deadline passes.
   * Cache reads are not affected (they do not wait).
   */
  withSignal(signal: AbortSignal): ReconcileClient {
    return this.withTransport((t) => signalled(t, signal));
  }

  /**
   * This client with its API requests sent through `wrap(transport)` (same cache, same field
   * manager): e.g. tracing.ts's tracedTransport, a span per request for a traced reconcile.
   */
  withTransport(wrap: (transport: Transport) => Transport): ReconcileClient {
    return new ReconcileClient(wrap(this.transport), this.cache, this.defaultFieldManager);
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

  /**
   * Objects of a kind: from the cache for watched kinds (through its namespace index, or the field
   * index `field` names; see cache.indexField), else from the API server, which is sent `field` as a
   * fieldSelector (it answers only for the fields it supports, e.g. `metadata.name`).
   */
  async list<T extends ObjectLike>(
    kind: Kind<T>,
    options: {
      namespace?: string;
      labelSelector?: LabelSelector;
      field?: Readonly<Record<string, string>>;
    } = {},
  ): Promise<T[]> {
    if (this.cached(kind, options.namespace)) return this.cache.list(kind, options);
    const selector = labelSelectorString(options.labelSelector);
    const fieldSelector = options.field ? fieldSelectorString(options.field) : '';
    const list = await this.resource(kind).listAll({
      ...(options.namespace ? { namespace: options.namespace } : {}),
      ...(selector ? { labelSelector: selector } : {}),
      ...(fieldSelector ? { fieldSelector } : {}),
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

  /**
   * Writes to the status subresource (controller-runtime's `client.Status()`): only `status` is
   * kept by the server, metadata and spec changes are ignored; `update` carries resourceVersion.
   */
  status(): StatusWriter {
    return this.statusWriter;
  }

  /** @deprecated use `status().update(kind, obj)` */
  updateStatus<T extends ObjectLike>(kind: Kind<T>, obj: T, options?: WriteOptions): Promise<T> {
    return this.statusWriter.update(kind, obj, options);
  }

  /** @deprecated use `status().patch(kind, key, type, patch)` */
  patchStatus<T extends ObjectLike>(
    kind: Kind<T>,
    key: ObjectKey,
    type: PatchType,
    patch: unknown,
    options?: PatchOptions,
  ): Promise<T> {
    return this.statusWriter.patch(kind, key, type, patch, options);
  }

  /** @deprecated use `status().apply(kind, obj)` */
  applyStatus<T extends ObjectLike>(
    kind: Kind<T>,
    obj: ApplyObject<T>,
    options?: Partial<ApplyOptions>,
  ): Promise<T> {
    return this.statusWriter.apply(kind, obj, options);
  }
}

/** Writes to the status subresource of objects, with the reconcile client's field manager. */
export class StatusWriter {
  private readonly client: ReconcileClient;

  constructor(client: ReconcileClient) {
    this.client = client;
  }

  private options<O extends WriteOptions>(options?: O): O & { fieldManager: string } {
    return { ...options, fieldManager: options?.fieldManager ?? this.client.defaultFieldManager } as O & {
      fieldManager: string;
    };
  }

  /** PUT of the status with the object's resourceVersion: a stale object fails with a Conflict. */
  update<T extends ObjectLike>(kind: Kind<T>, obj: T, options?: WriteOptions): Promise<T> {
    return this.client.resource(kind).replaceStatus(obj, this.options(options));
  }

  patch<T extends ObjectLike>(
    kind: Kind<T>,
    key: ObjectKey,
    type: PatchType,
    patch: unknown,
    options?: PatchOptions,
  ): Promise<T> {
    return this.client.resource(kind).patchStatus(key, type, patch, this.options(options));
  }

  /** Server-side apply of the status fields `obj` sets. */
  apply<T extends ObjectLike>(
    kind: Kind<T>,
    obj: ApplyObject<T>,
    options?: Partial<ApplyOptions>,
  ): Promise<T> {
    return this.client.resource(kind).applyStatus(obj, this.options(options));
  }
}

/** `a=x,b=y` with apimachinery's escaping of `\`, `,` and `=` in values (fields.EscapeValue). */
function fieldSelectorString(field: Readonly<Record<string, string>>): string {
  return Object.entries(field)
    .map(([name, value]) => `${name}=${value.replace(/[\\,=]/g, (c) => `\\${c}`)}`)
    .join(',');
}

/** `transport` with `signal` added to every request (both abort it when the request has its own). */
function signalled(transport: Transport, signal: AbortSignal): Transport {
  const withSignal = (req: TransportRequest): TransportRequest => ({
    ...req,
    signal: req.signal ? AbortSignal.any([req.signal, signal]) : signal,
  });
  return {
    request: (req) => transport.request(withSignal(req)),
    ...(transport.requestItems
      ? { requestItems: (req, onItems) => transport.requestItems!(withSignal(req), onItems) }
      : {}),
    stream: (req, onLine, onOpen) => transport.stream(withSignal(req), onLine, onOpen),
    close: () => transport.close(),
  };
}
