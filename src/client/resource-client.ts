import type { KubernetesObject } from '../api-types/meta.ts';
import { parseSelector, selectorString } from './label-selector.ts';
import { apiVersionOf, collectionPath, objectPath, type Kind } from './kind.ts';
import type { Query, Transport, TransportRequest } from './transport.ts';

/** The object types a resource client handles: anything with (optional) apiVersion/kind/metadata. */
export interface ObjectLike {
  apiVersion?: string;
  kind?: string;
  metadata?:
    | KubernetesObject['metadata']
    | { name?: string; namespace?: string; resourceVersion?: string; uid?: string };
}

/**
 * A value that is never mapped into a partial object. Checked first: a branded scalar of op-gen/api-types
 * (`int32` is `number & { [tag]?: 'int32' }`) is also an object type, and mapping its keys would
 * accept `'three'` or `{}` where a number belongs.
 */
export type Scalar = string | number | boolean | bigint | symbol | null | undefined;

/**
 * What a server-side apply sends: only the fields this manager owns (apiVersion, kind and
 * metadata.name are needed; everything else may be left out).
 */
export type ApplyObject<T> = T extends Scalar
  ? T
  : T extends readonly (infer E)[]
    ? ApplyObject<E>[]
    : T extends object
      ? { [K in keyof T]?: ApplyObject<T[K]> }
      : T;

/**
 * A label selector as sent to the API server: parsed and validated as the server does (an invalid one
 * rejects with a LabelSelectorError before any request) and printed in its canonical form.
 */
function serverSelector(selector: string | undefined): string | undefined {
  if (selector === undefined || selector === '') return undefined;
  return selectorString(parseSelector(selector)) || undefined;
}

export interface ObjectKey {
  readonly namespace?: string;
  readonly name: string;
}

/** Accept of a metadata-only list (client-go's metadata client): items are PartialObjectMetadata. */
export const PARTIAL_METADATA_LIST_ACCEPT =
  'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1';
/** Accept of a metadata-only watch or get: objects are PartialObjectMetadata. */
export const PARTIAL_METADATA_ACCEPT = 'application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1';

/**
 * An object as a metadata-only list or watch gives it (meta.k8s.io/v1 PartialObjectMetadata): the
 * metadata and nothing else (no spec, status or data).
 */
export interface PartialObjectMetadata extends ObjectLike {
  apiVersion?: string;
  kind?: string;
  metadata?: KubernetesObject['metadata'];
}

export interface ListOptions {
  /** Namespace to list in; omit for all namespaces (or a cluster-scoped kind). */
  readonly namespace?: string;
  readonly labelSelector?: string;
  readonly fieldSelector?: string;
  /** Page size; with `continue` for the next page. */
  readonly limit?: number;
  readonly continue?: string;
  readonly resourceVersion?: string;
  readonly signal?: AbortSignal;
  /** More query parameters, e.g. `shardSelector` (KEP-5866). */
  readonly extraQuery?: Query;
  /** The Accept header (e.g. PARTIAL_METADATA_LIST_ACCEPT for metadata only); default JSON. */
  readonly accept?: string;
}

export interface ObjectList<T> {
  readonly apiVersion?: string;
  readonly kind?: string;
  readonly metadata: {
    readonly resourceVersion?: string;
    readonly continue?: string;
    readonly remainingItemCount?: number;
    /** Set by servers that applied a `shardSelector` (absent when they ignored it). */
    readonly shardInfo?: { readonly selector: string };
  };
  readonly items: T[];
}

export interface WriteOptions {
  readonly fieldManager?: string;
  /** `All` makes it a server-side dry run. */
  readonly dryRun?: 'All';
  readonly signal?: AbortSignal;
}

export type PatchType = 'merge' | 'json' | 'strategic' | 'apply';

export interface PatchOptions extends WriteOptions {
  /** Server-side apply only: take ownership of conflicting fields. */
  readonly force?: boolean;
}

export interface ApplyOptions extends WriteOptions {
  readonly fieldManager: string;
  readonly force?: boolean;
}

export interface DeleteOptions {
  readonly propagationPolicy?: 'Foreground' | 'Background' | 'Orphan';
  readonly gracePeriodSeconds?: number;
  /** Delete only if the object still has this UID / resourceVersion. */
  readonly preconditions?: { readonly uid?: string; readonly resourceVersion?: string };
  readonly dryRun?: 'All';
  readonly signal?: AbortSignal;
}

export type JsonPatchOperation =
  | { readonly op: 'add' | 'replace' | 'test'; readonly path: string; readonly value: unknown }
  | { readonly op: 'remove'; readonly path: string }
  | { readonly op: 'move' | 'copy'; readonly from: string; readonly path: string };

export interface WatchEvent<T> {
  readonly type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';
  readonly object: T;
}

export interface WatchOptions {
  readonly namespace?: string;
  readonly labelSelector?: string;
  readonly fieldSelector?: string;
  readonly resourceVersion?: string;
  readonly allowWatchBookmarks?: boolean;
  /**
   * Watch-list (KEP-3157, the API server's WatchList feature): the watch starts with an ADDED event
   * for every object, then a BOOKMARK annotated `k8s.io/initial-events-end: "true"`, then live
   * events. Needs `resourceVersionMatch: 'NotOlderThan'` and `allowWatchBookmarks`.
   */
  readonly sendInitialEvents?: boolean;
  readonly resourceVersionMatch?: 'NotOlderThan';
  /** Server-side timeout of the watch. */
  readonly timeoutSeconds?: number;
  readonly signal?: AbortSignal;
  /** More query parameters, e.g. `shardSelector` (KEP-5866). */
  readonly extraQuery?: Query;
  /** Called once the server has accepted the watch (status 200), before any event. */
  readonly onOpen?: () => void;
  /** The Accept header (e.g. PARTIAL_METADATA_ACCEPT for metadata-only events); default JSON. */
  readonly accept?: string;
}

export interface Scale {
  apiVersion?: string;
  kind?: string;
  metadata?: { name?: string; namespace?: string; resourceVersion?: string };
  spec?: { replicas?: number };
  status?: { replicas: number; selector?: string };
}

const CONTENT_TYPES: Readonly<Record<PatchType, string>> = {
  merge: 'application/merge-patch+json',
  json: 'application/json-patch+json',
  strategic: 'application/strategic-merge-patch+json',
  apply: 'application/apply-patch+yaml',
};

function writeQuery(options: WriteOptions | undefined, extra: Query = {}): Query {
  return { fieldManager: options?.fieldManager, dryRun: options?.dryRun, ...extra };
}

function keyOf(obj: ObjectLike): ObjectKey {
  const name = obj.metadata?.name;
  if (!name) throw new Error('the object has no metadata.name');
  const namespace = obj.metadata?.namespace;
  return namespace ? { namespace, name } : { name };
}

/**
 * The generic typed REST client for one kind: the core under the runtime's reconcile client and the
 * generated typed clients. Every call goes to the API server (no cache); errors are ApiErrors.
 */
export class ResourceClient<T extends ObjectLike> {
  readonly kind: Kind<T>;
  private readonly transport: Transport;

  constructor(transport: Transport, kind: Kind<T>) {
    this.transport = transport;
    this.kind = kind;
  }

  /** Sets apiVersion and kind when missing: what the API server requires on writes. */
  withTypeMeta(obj: T): T {
    if (obj.apiVersion && obj.kind) return obj;
    return {
      ...obj,
      apiVersion: obj.apiVersion ?? apiVersionOf(this.kind),
      kind: obj.kind ?? this.kind.kind,
    };
  }

  get(key: ObjectKey, options: { signal?: AbortSignal } = {}): Promise<T> {
    return this.transport.request<T>({
      method: 'GET',
      path: objectPath(this.kind, key.namespace, key.name),
      ...(options.signal ? { signal: options.signal } : {}),
    });
  }

  async list(options: ListOptions = {}): Promise<ObjectList<T>> {
    return this.transport.request<ObjectList<T>>(this.listRequest(options));
  }

  private listRequest(options: ListOptions): TransportRequest {
    return {
      method: 'GET',
      path: collectionPath(this.kind, options.namespace),
      query: {
        ...options.extraQuery,
        labelSelector: serverSelector(options.labelSelector),
        fieldSelector: options.fieldSelector,
        limit: options.limit,
        continue: options.continue,
        resourceVersion: options.resourceVersion,
      },
      ...(options.signal ? { signal: options.signal } : {}),
      ...(options.accept ? { accept: options.accept } : {}),
    };
  }

  /**
   * One page of a list, its items handed to `onItems` in batches while the answer arrives (where
   * the transport can: `requestItems`; else all at once); resolves with the page, its items emptied.
   */
  private async listPage(options: ListOptions, onItems: (items: T[]) => void): Promise<ObjectList<T>> {
    const req = this.listRequest(options);
    if (this.transport.requestItems)
      return (await this.transport.requestItems(req, onItems as (items: unknown[]) => void)) as ObjectList<T>;
    const page = await this.transport.request<ObjectList<T>>(req);
    if (page.items.length > 0) onItems(page.items);
    return { ...page, items: [] };
  }

  /**
   * Every page of a list, following `continue`, with the items handed to `onItems` in batches, in
   * order, as they are decoded (a page of 100,000 objects is parsed while it still arrives: see
   * list-decoder.ts). Resolves with the last page, its items emptied (its metadata: the list's
   * resourceVersion). Only the first page carries `resourceVersion` (client-go's pager clears it on
   * the next pages: the continue token holds the list's version). A throw from onItems ends the list
   * and rejects.
   */
  async listEach(
    options: Omit<ListOptions, 'continue'>,
    onItems: (items: T[]) => void,
  ): Promise<ObjectList<T>> {
    let page = await this.listPage({ limit: 500, ...options }, onItems);
    const { resourceVersion: _first, ...next } = options;
    while (page.metadata.continue) {
      page = await this.listPage({ limit: 500, ...next, continue: page.metadata.continue }, onItems);
    }
    return page;
  }

  /**
   * Every page of a list, following `continue` (listEach, the items collected). Only the first page
   * carries `resourceVersion` (client-go's pager clears it on the next pages: the continue token
   * holds the list's version).
   */
  async listAll(options: Omit<ListOptions, 'continue'> = {}): Promise<ObjectList<T>> {
    // A loop, not push(...items): one page may hold every object (a resourceVersion-0 list from the
    // watch cache ignores the limit), and spreading 125,000 arguments overflows the stack.
    let items: T[] | undefined;
    const last = await this.listEach(options, (batch) => {
      if (items === undefined) items = batch;
      else for (const item of batch) items.push(item);
    });
    return { ...last, items: items ?? [] };
  }

  /**
   * Streams watch events until the server ends the watch or the signal aborts. Resolves when the
   * stream ends; the caller resumes from the last resourceVersion it saw.
   */
  async watch(options: WatchOptions, onEvent: (event: WatchEvent<T>) => void): Promise<void> {
    return this.transport.stream(
      {
        method: 'GET',
        path: collectionPath(this.kind, options.namespace),
        query: {
          ...options.extraQuery,
          watch: true,
          labelSelector: serverSelector(options.labelSelector),
          fieldSelector: options.fieldSelector,
          resourceVersion: options.resourceVersion,
          allowWatchBookmarks: options.allowWatchBookmarks,
          sendInitialEvents: options.sendInitialEvents,
          resourceVersionMatch: options.resourceVersionMatch,
          timeoutSeconds: options.timeoutSeconds,
        },
        ...(options.signal ? { signal: options.signal } : {}),
        ...(options.accept ? { accept: options.accept } : {}),
      },
      (line) => onEvent(JSON.parse(line) as WatchEvent<T>),
      options.onOpen,
    );
  }

  create(obj: T, options?: WriteOptions): Promise<T> {
    const key = keyOf(obj.metadata?.name ? obj : { ...obj, metadata: { ...obj.metadata, name: '-' } });
    return this.transport.request<T>({
      method: 'POST',
      path: collectionPath(this.kind, key.namespace),
      query: writeQuery(options),
      body: this.withTypeMeta(obj),
      ...(options?.signal ? { signal: options.signal } : {}),
    });
  }

  /** PUT: carries metadata.resourceVersion, so a stale object fails with Conflict. */
  replace(obj: T, options?: WriteOptions): Promise<T> {
    return this.put(obj, undefined, options);
  }

  patch(key: ObjectKey, type: PatchType, patch: unknown, options?: PatchOptions): Promise<T> {
    return this.patchPath(objectPath(this.kind, key.namespace, key.name), type, patch, options);
  }

  /** Server-side apply of the fields `obj` sets, owned by `fieldManager`. */
  apply(obj: ApplyObject<T>, options: ApplyOptions): Promise<T> {
    return this.patch(keyOf(obj as ObjectLike), 'apply', this.withTypeMeta(obj as T), options);
  }

  delete(key: ObjectKey, options: DeleteOptions = {}): Promise<unknown> {
    const body =
      options.propagationPolicy || options.preconditions || options.gracePeriodSeconds !== undefined
        ? {
            apiVersion: 'v1',
            kind: 'DeleteOptions',
            propagationPolicy: options.propagationPolicy,
            gracePeriodSeconds: options.gracePeriodSeconds,
            preconditions: options.preconditions,
          }
        : undefined;
    return this.transport.request({
      method: 'DELETE',
      path: objectPath(this.kind, key.namespace, key.name),
      query: { dryRun: options.dryRun },
      body,
      ...(options.signal ? { signal: options.signal } : {}),
    });
  }

  getStatus(key: ObjectKey): Promise<T> {
    return this.transport.request<T>({
      method: 'GET',
      path: objectPath(this.kind, key.namespace, key.name, 'status'),
    });
  }

  /** PUT on the status subresource: carries resourceVersion; only status changes are kept. */
  replaceStatus(obj: T, options?: WriteOptions): Promise<T> {
    return this.put(obj, 'status', options);
  }

  patchStatus(key: ObjectKey, type: PatchType, patch: unknown, options?: PatchOptions): Promise<T> {
    return this.patchPath(objectPath(this.kind, key.namespace, key.name, 'status'), type, patch, options);
  }

  /** Server-side apply to the status subresource. */
  applyStatus(obj: ApplyObject<T>, options: ApplyOptions): Promise<T> {
    return this.patchStatus(keyOf(obj as ObjectLike), 'apply', this.withTypeMeta(obj as T), options);
  }

  getScale(key: ObjectKey): Promise<Scale> {
    return this.transport.request<Scale>({
      method: 'GET',
      path: objectPath(this.kind, key.namespace, key.name, 'scale'),
    });
  }

  patchScale(key: ObjectKey, replicas: number, options?: WriteOptions): Promise<Scale> {
    return this.transport.request<Scale>({
      method: 'PATCH',
      path: objectPath(this.kind, key.namespace, key.name, 'scale'),
      query: writeQuery(options),
      body: { spec: { replicas } },
      contentType: CONTENT_TYPES.merge,
    });
  }

  /** PUT of the object, or of one of its subresources. */
  private put(obj: T, subresource: 'status' | undefined, options?: WriteOptions): Promise<T> {
    const key = keyOf(obj);
    return this.transport.request<T>({
      method: 'PUT',
      path: objectPath(this.kind, key.namespace, key.name, subresource),
      query: writeQuery(options),
      body: this.withTypeMeta(obj),
      ...(options?.signal ? { signal: options.signal } : {}),
    });
  }

  private patchPath(path: string, type: PatchType, patch: unknown, options?: PatchOptions): Promise<T> {
    if (type === 'apply' && !options?.fieldManager) {
      throw new Error('server-side apply needs a fieldManager');
    }
    return this.transport.request<T>({
      method: 'PATCH',
      path,
      query: writeQuery(options, type === 'apply' && options?.force ? { force: true } : {}),
      body: patch,
      contentType: CONTENT_TYPES[type],
      ...(options?.signal ? { signal: options.signal } : {}),
    });
  }
}
