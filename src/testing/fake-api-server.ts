import { ApiError } from '../client/api-error.ts';
import type { KindSpec } from '../client/kind.ts';
import type { Query, Transport, TransportRequest } from '../client/transport.ts';
import { parseSelector, selectorMatches, type Requirement } from '../client/label-selector.ts';
import { realClock, type Clock } from '../runtime/clock.ts';
import { applyFields, leafPaths, mergePatch, jsonPatch, type FieldPath } from './fake-api-fields.ts';
import { connectionReset, statusError } from './fake-api-errors.ts';

export { connectionRefused, connectionReset, statusError } from './fake-api-errors.ts';

/** A stored object, as JSON. */
export type FakeObject = Record<string, unknown> & {
  metadata: Record<string, unknown> & { name: string; namespace?: string; resourceVersion: string };
};

/** One request as the fake server saw it: which transport sent it, and what. */
export interface FakeRequest {
  /** The name given to `server.transport(name)`; `default` otherwise. */
  readonly client: string;
  readonly method: TransportRequest['method'];
  readonly path: string;
  readonly query: Query;
  readonly body: unknown;
  readonly contentType: string | undefined;
  /** True for a watch (a `stream` call). */
  readonly watch: boolean;
}

/** Decides whether a request fails before the server handles it: return the error to fail it with. */
export type Fault = (req: FakeRequest) => Error | undefined;

export interface FakeApiServerOptions {
  /** Timestamps, and watch `timeoutSeconds`. Default the real clock. */
  readonly clock?: Clock;
  /**
   * Serve watch-list (`sendInitialEvents`, kube-apiserver's WatchList feature, on by default since
   * 1.34). False answers such a watch as a server with the feature off does: 400 Bad Request.
   */
  readonly watchList?: boolean;
}

export interface FakeResourceOptions {
  /** Whether the kind has a status subresource (main writes keep status; /status writes only status). */
  readonly statusSubresource?: boolean;
}

interface Resource {
  readonly key: string;
  kind: string | undefined;
  apiVersion: string;
  status: boolean;
  readonly objects: Map<string, FakeObject>;
  /** Field owners per object key: manager -> leaf paths it set. */
  readonly owners: Map<string, Map<string, FieldPath[]>>;
}

interface StoredEvent {
  readonly rv: number;
  readonly resource: string;
  readonly type: 'ADDED' | 'MODIFIED' | 'DELETED';
  readonly object: FakeObject;
  readonly previous: FakeObject | undefined;
}

interface Target {
  readonly resource: Resource;
  readonly namespace: string | undefined;
  readonly name: string | undefined;
  readonly subresource: string | undefined;
}

interface WatchSession {
  readonly resource: string;
  readonly namespace: string | undefined;
  readonly selector: Requirement[];
  readonly fields: Readonly<Record<string, string>>;
  readonly bookmarks: boolean;
  readonly onLine: (line: string) => void;
  end(err?: Error): void;
}

const clone = <T>(v: T): T => structuredClone(v);

function objectKeyOf(namespace: string | undefined, name: string): string {
  return namespace ? `${namespace}/${name}` : name;
}

/** Everything but metadata and status: what bumps metadata.generation when it changes. */
function specOf(obj: Record<string, unknown>): string {
  const { metadata: _m, status: _s, ...rest } = obj;
  return JSON.stringify(rest);
}

function sameContent(a: FakeObject, b: FakeObject): boolean {
  const strip = (o: FakeObject): string =>
    JSON.stringify({ ...o, metadata: { ...o.metadata, resourceVersion: '', managedFields: undefined } });
  return strip(a) === strip(b);
}

/**
 * An API server in memory, for unit tests of controllers and of the runtime itself: it implements
 * `Transport` (hand `server.transport()` to a Manager, a ResourceClient, an informer), keeps objects
 * per resource with one resourceVersion counter like etcd's, and answers as kube-apiserver does where
 * the runtime depends on it:
 *
 * - list (label and `metadata.name`/`metadata.namespace` field selectors, `limit`/`continue`) and
 *   watch from a resourceVersion, replaying the events after it; a watch from a resourceVersion
 *   older than the last `compact()` gets a 410 Gone ERROR event (a list's `continue` token, 410
 *   Expired); a watch without one starts with ADDED for every object; a watch-list
 *   (`sendInitialEvents=true`, `resourceVersionMatch=NotOlderThan`) does too, then sends the BOOKMARK
 *   annotated `k8s.io/initial-events-end: "true"` (option `watchList: false` refuses it, 400, as a
 *   server with the WatchList feature off does); BOOKMARK events on
 *   `bookmark()` for watches that allow them; watches end at `timeoutSeconds` (on the clock), on
 *   `closeWatches()`, and fail on `disconnect()`;
 * - create (AlreadyExists), update with optimistic concurrency (409 Conflict on a stale
 *   resourceVersion; a no-op update keeps the resourceVersion and sends no event), generation bumps on
 *   spec changes, delete with preconditions, finalizers and deletionTimestamp;
 * - merge, strategic (as merge) and JSON patches; server-side apply with field owners per manager,
 *   conflicts (409) unless `force`, and removal of fields a manager stops applying;
 * - the status subresource for kinds `register`ed with `statusSubresource: true`.
 *
 * Not modelled: admission, validation, defaulting, garbage collection of owned objects, and
 * field ownership of nested list items (lists are owned whole). `fault()` injects failures (429,
 * 5xx, refused connections) into chosen requests.
 */
export class FakeApiServer {
  private readonly resources = new Map<string, Resource>();
  private readonly history: StoredEvent[] = [];
  private readonly sessions = new Set<WatchSession>();
  private readonly faults = new Set<Fault>();
  private rv = 1;
  private compactedRv = 0;
  private uids = 0;
  private readonly clock: Clock;
  private readonly watchList: boolean;
  /** Every request handled or failed, in order. */
  readonly requests: FakeRequest[] = [];

  constructor(options: FakeApiServerOptions = {}) {
    this.clock = options.clock ?? realClock;
    this.watchList = options.watchList ?? true;
  }

  /** Declares a kind (its Kind name for lists, and whether it has a status subresource). */
  register(kind: KindSpec, options: FakeResourceOptions = {}): this {
    const r = this.resource(kind.group, kind.version, kind.plural);
    r.kind = kind.kind;
    r.status = options.statusSubresource ?? false;
    return this;
  }

  /** A Transport onto this server; `client` names the caller in `requests` and for faults. */
  transport(client = 'default'): Transport {
    return {
      request: <T>(req: TransportRequest) => this.request<T>(client, req),
      stream: (req, onLine, onOpen) => this.stream(client, req, onLine, onOpen),
      close: () => undefined,
    };
  }

  /** Fails the requests `fault` returns an error for, until the returned function is called. */
  fault(fault: Fault): () => void {
    this.faults.add(fault);
    return () => this.faults.delete(fault);
  }

  /** The current resourceVersion (of the last write). */
  get resourceVersion(): string {
    return String(this.rv);
  }

  /** Open watches. */
  get watches(): number {
    return this.sessions.size;
  }

  /** Forgets the event history: watches from any resourceVersion up to now get 410 Gone. */
  compact(): void {
    this.compactedRv = this.rv;
    this.history.length = 0;
  }

  /** Sends a BOOKMARK with the current resourceVersion to every watch that allows bookmarks. */
  bookmark(): void {
    for (const s of [...this.sessions]) {
      if (!s.bookmarks) continue;
      const r = this.resources.get(s.resource);
      this.send(s, 'BOOKMARK', {
        ...(r?.kind ? { kind: r.kind, apiVersion: r.apiVersion } : {}),
        metadata: { resourceVersion: String(this.rv) },
      });
    }
  }

  /** Ends every open watch cleanly (as a server-side timeout does). */
  closeWatches(): void {
    for (const s of [...this.sessions]) s.end();
  }

  /** Fails every open watch with a reset connection (a crashed server, a dropped network). */
  disconnect(): void {
    for (const s of [...this.sessions]) s.end(connectionReset());
  }

  /** The stored object, or undefined (a copy: changing it changes nothing). */
  get(kind: KindSpec, namespace: string | undefined, name: string): FakeObject | undefined {
    const obj = this.resource(kind.group, kind.version, kind.plural).objects.get(
      objectKeyOf(kind.namespaced ? namespace : undefined, name),
    );
    return obj ? clone(obj) : undefined;
  }

  /** Every stored object of a kind, sorted by namespace/name (copies). */
  list(kind: KindSpec): FakeObject[] {
    const r = this.resource(kind.group, kind.version, kind.plural);
    return [...r.objects.keys()].sort().map((k) => clone(r.objects.get(k)!));
  }

  private resource(group: string, version: string, plural: string): Resource {
    const key = `${group}/${version}/${plural}`;
    let r = this.resources.get(key);
    if (!r) {
      r = {
        key,
        kind: undefined,
        apiVersion: group === '' ? version : `${group}/${version}`,
        status: false,
        objects: new Map(),
        owners: new Map(),
      };
      this.resources.set(key, r);
    }
    return r;
  }

  private target(path: string): Target {
    const parts = path.split('/').filter((p) => p !== '');
    let rest: string[];
    let group: string;
    let version: string | undefined;
    if (parts[0] === 'api') {
      group = '';
      version = parts[1];
      rest = parts.slice(2);
    } else if (parts[0] === 'apis') {
      group = parts[1] ?? '';
      version = parts[2];
      rest = parts.slice(3);
    } else {
      throw statusError(404, 'NotFound', `the server could not find the requested resource ${path}`);
    }
    let namespace: string | undefined;
    if (rest[0] === 'namespaces' && rest.length >= 3) {
      namespace = rest[1];
      rest = rest.slice(2);
    }
    const [plural, name, subresource] = rest;
    if (!version || !plural) throw statusError(404, 'NotFound', `no resource at ${path}`);
    return { resource: this.resource(group, version, plural), namespace, name, subresource };
  }

  private check(client: string, req: TransportRequest, watch: boolean): FakeRequest {
    const seen: FakeRequest = {
      client,
      method: req.method,
      path: req.path,
      query: req.query ?? {},
      body: req.body === undefined ? undefined : clone(req.body),
      contentType: req.contentType,
      watch,
    };
    this.requests.push(seen);
    for (const fault of this.faults) {
      const err = fault(seen);
      if (err) throw err;
    }
    return seen;
  }

  private async request<T>(client: string, req: TransportRequest): Promise<T> {
    // A turn of the event loop, as real I/O takes: a reconcile loop on the fake never starves timers.
    await new Promise<void>((resolve) => setImmediate(resolve));
    if (req.signal?.aborted) throw new Error('aborted');
    const seen = this.check(client, req, false);
    try {
      return clone(this.handle(seen)) as T;
    } catch (err) {
      if (err instanceof ApiError)
        throw new ApiError(err.statusCode, req.method, req.path, {
          reason: err.reason,
          message: err.message.replace(/^\S+ \S+: \d+ \w+: /, ''),
          ...(err.retryAfterSeconds !== undefined
            ? { details: { retryAfterSeconds: err.retryAfterSeconds } }
            : {}),
        });
      throw err;
    }
  }

  private handle(req: FakeRequest): unknown {
    const t = this.target(req.path);
    const dryRun = req.query.dryRun === 'All';
    switch (req.method) {
      case 'GET':
        if (t.name === undefined) return this.listAnswer(t, req.query);
        return this.read(t);
      case 'POST':
        if (t.name !== undefined) throw statusError(405, 'MethodNotAllowed', 'POST to an object');
        return this.create(t, req.body, fieldManagerOf(req), dryRun);
      case 'PUT':
        return this.update(t, req.body, fieldManagerOf(req), dryRun);
      case 'PATCH':
        return this.patch(t, req, dryRun);
      case 'DELETE':
        return this.remove(t, req.body, dryRun);
    }
  }

  private existing(t: Target): FakeObject {
    if (t.name === undefined) throw statusError(405, 'MethodNotAllowed', 'needs an object name');
    if (t.subresource !== undefined && (t.subresource !== 'status' || !t.resource.status))
      throw statusError(404, 'NotFound', `no subresource ${t.subresource}`);
    const obj = t.resource.objects.get(objectKeyOf(t.namespace, t.name));
    if (!obj) throw statusError(404, 'NotFound', `${t.resource.key} "${t.name}" not found`);
    return obj;
  }

  private read(t: Target): FakeObject {
    return this.existing(t);
  }

  private listAnswer(t: Target, query: Query): unknown {
    let start = 0;
    let listRv = this.rv;
    if (typeof query.continue === 'string' && query.continue !== '') {
      const token = JSON.parse(Buffer.from(query.continue, 'base64').toString('utf8')) as {
        rv: number;
        start: number;
      };
      if (token.rv < this.compactedRv)
        throw statusError(
          410,
          'Expired',
          'The provided continue parameter is too old to display a consistent list result.',
        );
      start = token.start;
      listRv = token.rv;
    }
    const selector = parseSelector(String(query.labelSelector ?? ''));
    const fields = parseFieldSelector(String(query.fieldSelector ?? ''));
    const all = [...t.resource.objects.entries()]
      .filter(([, o]) => matches(o, t.namespace, selector, fields))
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([, o]) => o);
    const limit = typeof query.limit === 'number' && query.limit > 0 ? query.limit : all.length;
    const items = all.slice(start, start + limit);
    const more = start + limit < all.length;
    return {
      apiVersion: t.resource.apiVersion,
      kind: `${t.resource.kind ?? 'Object'}List`,
      metadata: {
        resourceVersion: String(listRv),
        ...(more
          ? {
              continue: Buffer.from(JSON.stringify({ rv: listRv, start: start + limit })).toString('base64'),
              remainingItemCount: all.length - start - limit,
            }
          : {}),
      },
      items,
    };
  }

  private create(t: Target, body: unknown, manager: string, dryRun: boolean): FakeObject {
    const obj = clone(body) as FakeObject;
    if (typeof obj !== 'object' || obj === null) throw statusError(400, 'BadRequest', 'no object');
    const meta = (obj.metadata ??= {} as FakeObject['metadata']);
    if (!meta.name) {
      const prefix = typeof meta.generateName === 'string' ? meta.generateName : '';
      if (!prefix) throw statusError(422, 'Invalid', 'metadata.name: Required value');
      meta.name = `${prefix}${(++this.uids).toString(36).padStart(5, '0')}`;
    }
    if (t.namespace !== undefined) {
      if (meta.namespace !== undefined && meta.namespace !== t.namespace)
        throw statusError(400, 'BadRequest', 'the namespace of the object does not match the request');
      meta.namespace = t.namespace;
    }
    const key = objectKeyOf(t.namespace, meta.name);
    if (t.resource.objects.has(key))
      throw statusError(409, 'AlreadyExists', `${t.resource.key} "${meta.name}" already exists`);
    if (t.resource.status) delete obj.status;
    meta.uid = `fake-uid-${++this.uids}`;
    meta.creationTimestamp = new Date(this.clock.now()).toISOString();
    meta.generation = 1;
    Reflect.deleteProperty(meta, 'resourceVersion');
    delete meta.deletionTimestamp;
    if (dryRun) return { ...obj, metadata: { ...meta, resourceVersion: String(this.rv) } };
    this.own(t.resource, key, manager, obj, undefined);
    return this.store(t.resource, key, obj, undefined);
  }

  private update(t: Target, body: unknown, manager: string, dryRun: boolean): unknown {
    const old = this.existing(t);
    const next = clone(body) as FakeObject;
    if (typeof next !== 'object' || next === null) throw statusError(400, 'BadRequest', 'no object');
    const rv = next.metadata?.resourceVersion;
    if (rv !== undefined && rv !== '' && rv !== old.metadata.resourceVersion)
      throw statusError(
        409,
        'Conflict',
        `Operation cannot be fulfilled on ${t.resource.key} "${old.metadata.name}": the object has been modified; please apply your changes to the latest version and try again`,
      );
    return this.write(t, old, next, manager, dryRun);
  }

  /** Stores `next` over `old` at the target (main resource or status), keeping what the server owns. */
  private write(t: Target, old: FakeObject, proposed: FakeObject, manager: string, dryRun: boolean): unknown {
    let next: FakeObject;
    if (t.subresource === 'status') {
      next = { ...clone(old), status: proposed.status };
      if (proposed.status === undefined) delete next.status;
    } else {
      next = proposed;
      if (t.resource.status) {
        if (old.status === undefined) delete next.status;
        else next.status = clone(old.status);
      }
    }
    next.metadata = {
      ...next.metadata,
      name: old.metadata.name,
      ...(old.metadata.namespace !== undefined ? { namespace: old.metadata.namespace } : {}),
      uid: old.metadata.uid,
      creationTimestamp: old.metadata.creationTimestamp,
      generation: old.metadata.generation,
      resourceVersion: old.metadata.resourceVersion,
      ...(old.metadata.deletionTimestamp !== undefined
        ? { deletionTimestamp: old.metadata.deletionTimestamp }
        : {}),
    };
    if (specOf(next) !== specOf(old)) next.metadata.generation = Number(old.metadata.generation ?? 0) + 1;
    if (sameContent(old, next) || dryRun) return next;
    const key = objectKeyOf(old.metadata.namespace, old.metadata.name);
    this.own(t.resource, key, manager, next, old);
    const finalizers = next.metadata.finalizers as unknown[] | undefined;
    if (next.metadata.deletionTimestamp !== undefined && !finalizers?.length) {
      return this.drop(t.resource, key, next);
    }
    return this.store(t.resource, key, next, old);
  }

  private patch(t: Target, req: FakeRequest, dryRun: boolean): unknown {
    const manager = fieldManagerOf(req);
    const type = req.contentType ?? 'application/merge-patch+json';
    const body = typeof req.body === 'string' ? (JSON.parse(req.body) as unknown) : req.body;
    if (type === 'application/apply-patch+yaml') return this.apply(t, body, req, manager, dryRun);
    const old = this.existing(t);
    let next: unknown;
    if (type === 'application/json-patch+json') next = jsonPatch(old, body);
    else if (type === 'application/merge-patch+json' || type === 'application/strategic-merge-patch+json')
      next = mergePatch(old, body);
    else throw statusError(415, 'UnsupportedMediaType', `patch type ${type}`);
    const proposed = next as FakeObject;
    const rv = proposed.metadata?.resourceVersion;
    if (rv !== undefined && rv !== old.metadata.resourceVersion)
      throw statusError(409, 'Conflict', 'the object has been modified (resourceVersion in the patch)');
    return this.write(t, old, proposed, manager, dryRun);
  }

  private apply(t: Target, body: unknown, req: FakeRequest, manager: string, dryRun: boolean): unknown {
    if (req.query.fieldManager === undefined)
      throw statusError(400, 'BadRequest', 'fieldManager is required for apply requests');
    const applied = body as FakeObject;
    const key = objectKeyOf(t.namespace, t.name ?? '');
    const old = t.resource.objects.get(key);
    if (!old) {
      if (t.subresource !== undefined) this.existing(t);
      return this.create({ ...t, name: undefined }, applied, manager, dryRun);
    }
    this.existing(t);
    const statusOnly = t.subresource === 'status';
    const paths = leafPaths(applied).filter((p) => isAppliedField(p, statusOnly));
    const owners = t.resource.owners.get(key) ?? new Map<string, FieldPath[]>();
    const conflicts: string[] = [];
    for (const [other, owned] of owners) {
      if (other === manager) continue;
      for (const p of paths) {
        if (!owned.some((o) => samePath(o, p))) continue;
        if (JSON.stringify(valueAt(old, p)) === JSON.stringify(valueAt(applied, p))) continue;
        conflicts.push(`conflict with "${other}": .${p.join('.')}`);
      }
    }
    if (conflicts.length > 0 && req.query.force !== true && req.query.force !== 'true')
      throw statusError(
        409,
        'Conflict',
        `Apply failed with ${conflicts.length} conflict${conflicts.length === 1 ? '' : 's'}: ${conflicts.join(', ')}`,
      );
    const before = owners.get(manager) ?? [];
    const ownedByOthers = [...owners].filter(([m]) => m !== manager).flatMap(([, ps]) => ps);
    const dropped = before.filter(
      (p) => !paths.some((q) => samePath(p, q)) && !ownedByOthers.some((q) => samePath(p, q)),
    );
    const next = applyFields(old, applied, dropped, statusOnly) as FakeObject;
    const result = this.write(t, old, next, '', dryRun);
    if (!dryRun) {
      const current = t.resource.owners.get(key) ?? new Map<string, FieldPath[]>();
      for (const [other, owned] of current)
        if (other !== manager)
          current.set(
            other,
            owned.filter((o) => !paths.some((p) => samePath(o, p))),
          );
      current.set(manager, paths);
      if (t.resource.objects.has(key)) t.resource.owners.set(key, current);
    }
    return result;
  }

  private remove(t: Target, body: unknown, dryRun: boolean): unknown {
    const old = this.existing(t);
    const pre = (body as { preconditions?: { uid?: string; resourceVersion?: string } } | undefined)
      ?.preconditions;
    if (
      (pre?.uid !== undefined && pre.uid !== old.metadata.uid) ||
      (pre?.resourceVersion !== undefined && pre.resourceVersion !== old.metadata.resourceVersion)
    )
      throw statusError(409, 'Conflict', 'Precondition failed: UID or resourceVersion in precondition');
    if (dryRun) return old;
    const key = objectKeyOf(old.metadata.namespace, old.metadata.name);
    const finalizers = old.metadata.finalizers as unknown[] | undefined;
    if (finalizers?.length) {
      if (old.metadata.deletionTimestamp !== undefined) return old;
      const next = clone(old);
      next.metadata.deletionTimestamp = new Date(this.clock.now()).toISOString();
      return this.store(t.resource, key, next, old);
    }
    return this.drop(t.resource, key, old);
  }

  /** Records field ownership of a non-apply write: the manager owns the leaves it changed. */
  private own(
    r: Resource,
    key: string,
    manager: string,
    next: FakeObject,
    old: FakeObject | undefined,
  ): void {
    if (manager === '') return;
    const owners = r.owners.get(key) ?? new Map<string, FieldPath[]>();
    const changed = leafPaths(next).filter(
      (p) =>
        isAppliedField(p, false) &&
        (old === undefined || JSON.stringify(valueAt(old, p)) !== JSON.stringify(valueAt(next, p))),
    );
    if (changed.length === 0) return;
    for (const [other, owned] of owners)
      if (other !== manager)
        owners.set(
          other,
          owned.filter((o) => !changed.some((p) => samePath(o, p))),
        );
    const mine = owners.get(manager) ?? [];
    owners.set(manager, [...mine.filter((o) => !changed.some((p) => samePath(o, p))), ...changed]);
    r.owners.set(key, owners);
  }

  private store(r: Resource, key: string, obj: FakeObject, previous: FakeObject | undefined): FakeObject {
    obj.metadata.resourceVersion = String(++this.rv);
    r.objects.set(key, obj);
    this.publish({
      rv: this.rv,
      resource: r.key,
      type: previous ? 'MODIFIED' : 'ADDED',
      object: obj,
      previous,
    });
    return obj;
  }

  private drop(r: Resource, key: string, last: FakeObject): unknown {
    const gone = clone(last);
    gone.metadata.resourceVersion = String(++this.rv);
    const previous = r.objects.get(key);
    r.objects.delete(key);
    r.owners.delete(key);
    this.publish({ rv: this.rv, resource: r.key, type: 'DELETED', object: gone, previous });
    return { kind: 'Status', apiVersion: 'v1', status: 'Success', details: { name: gone.metadata.name } };
  }

  private publish(event: StoredEvent): void {
    this.history.push(event);
    for (const s of [...this.sessions]) if (s.resource === event.resource) this.deliver(s, event);
  }

  /** Sends an event as the session sees it: an object entering or leaving its selector is ADDED or DELETED. */
  private deliver(s: WatchSession, e: StoredEvent): void {
    const now = matches(e.object, s.namespace, s.selector, s.fields);
    const before = e.previous !== undefined && matches(e.previous, s.namespace, s.selector, s.fields);
    if (e.type === 'DELETED') {
      if (before || now) this.send(s, 'DELETED', e.object);
    } else if (now) {
      this.send(s, e.type === 'MODIFIED' && !before ? 'ADDED' : e.type, e.object);
    } else if (before) {
      this.send(s, 'DELETED', e.object);
    }
  }

  private send(s: WatchSession, type: string, object: unknown): void {
    if (!this.sessions.has(s)) return;
    try {
      s.onLine(JSON.stringify({ type, object }));
    } catch (err) {
      s.end(err as Error);
    }
  }

  private async stream(
    client: string,
    req: TransportRequest,
    onLine: (line: string) => void,
    onOpen?: () => void,
  ): Promise<void> {
    // A turn of the event loop, as real I/O takes: a reconcile loop on the fake never starves timers.
    await new Promise<void>((resolve) => setImmediate(resolve));
    const seen = this.check(client, req, true);
    const t = this.target(req.path);
    const q = seen.query;
    const selector = parseSelector(String(q.labelSelector ?? ''));
    const fields = parseFieldSelector(String(q.fieldSelector ?? ''));
    const initialEvents = q.sendInitialEvents === true || q.sendInitialEvents === 'true';
    const bookmarks = q.allowWatchBookmarks === true || q.allowWatchBookmarks === 'true';
    if (initialEvents && !this.watchList)
      throw statusError(
        400,
        'BadRequest',
        'sendInitialEvents: Forbidden: sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled',
      );
    if (initialEvents && (q.resourceVersionMatch !== 'NotOlderThan' || !bookmarks))
      throw statusError(
        400,
        'BadRequest',
        'sendInitialEvents needs resourceVersionMatch=NotOlderThan and allowWatchBookmarks=true',
      );
    return new Promise<void>((resolve, reject) => {
      let timer: ReturnType<Clock['setTimeout']> | undefined;
      const session: WatchSession = {
        resource: t.resource.key,
        namespace: t.namespace,
        selector,
        fields,
        bookmarks,
        onLine,
        end: (err) => {
          if (!this.sessions.delete(session)) return;
          if (timer) this.clock.clearTimeout(timer);
          if (err) reject(err);
          else resolve();
        },
      };
      this.sessions.add(session);
      req.signal?.addEventListener('abort', () => session.end(), { once: true });
      if (req.signal?.aborted) return session.end();
      const seconds = Number(q.timeoutSeconds ?? 0);
      if (seconds > 0) timer = this.clock.setTimeout(() => session.end(), seconds * 1000);
      onOpen?.();
      const from =
        q.resourceVersion === undefined || q.resourceVersion === '' ? '0' : String(q.resourceVersion);
      if (from === '0' || initialEvents) {
        // Watch-list with a resourceVersion (NotOlderThan) starts from the current state too.
        for (const key of [...t.resource.objects.keys()].sort()) {
          const obj = t.resource.objects.get(key)!;
          if (matches(obj, t.namespace, selector, fields)) this.send(session, 'ADDED', obj);
        }
        if (initialEvents)
          this.send(session, 'BOOKMARK', {
            ...(t.resource.kind ? { kind: t.resource.kind, apiVersion: t.resource.apiVersion } : {}),
            metadata: {
              resourceVersion: String(this.rv),
              annotations: { 'k8s.io/initial-events-end': 'true' },
            },
          });
        return;
      }
      const rv = Number(from);
      if (!Number.isFinite(rv) || rv < this.compactedRv) {
        this.send(session, 'ERROR', {
          kind: 'Status',
          apiVersion: 'v1',
          status: 'Failure',
          code: 410,
          reason: 'Expired',
          message: `too old resource version: ${from} (${this.compactedRv})`,
        });
        return session.end();
      }
      for (const e of this.history) {
        if (e.rv > rv && e.resource === session.resource) this.deliver(session, e);
      }
    });
  }
}

function fieldManagerOf(req: FakeRequest): string {
  const m = req.query.fieldManager;
  return typeof m === 'string' && m !== '' ? m : req.method === 'PATCH' ? 'unknown-patch' : 'unknown';
}

function parseFieldSelector(selector: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of selector.split(',')) {
    if (part.trim() === '') continue;
    const [k, v] = part.split(/==?/);
    if (k !== 'metadata.name' && k !== 'metadata.namespace')
      throw statusError(400, 'BadRequest', `field label not supported: ${k}`);
    out[k] = v ?? '';
  }
  return out;
}

function matches(
  obj: FakeObject,
  namespace: string | undefined,
  selector: readonly Requirement[],
  fields: Readonly<Record<string, string>>,
): boolean {
  if (namespace !== undefined && obj.metadata.namespace !== namespace) return false;
  if (fields['metadata.name'] !== undefined && obj.metadata.name !== fields['metadata.name']) return false;
  if (fields['metadata.namespace'] !== undefined && obj.metadata.namespace !== fields['metadata.namespace'])
    return false;
  const labels = (obj.metadata.labels ?? {}) as Record<string, string>;
  return selectorMatches(selector, labels);
}

/** Fields an apply or update takes ownership of: not the identity and server-set metadata. */
function isAppliedField(path: FieldPath, statusOnly: boolean): boolean {
  const [top, second] = path;
  if (statusOnly) return top === 'status';
  if (top === 'apiVersion' || top === 'kind' || top === 'status') return false;
  if (top === 'metadata')
    return (
      second === 'labels' ||
      second === 'annotations' ||
      second === 'finalizers' ||
      second === 'ownerReferences'
    );
  return true;
}

function samePath(a: FieldPath, b: FieldPath): boolean {
  return a.length === b.length && a.every((s, i) => s === b[i]);
}

function valueAt(obj: unknown, path: FieldPath): unknown {
  let cur = obj;
  for (const s of path) {
    if (typeof cur !== 'object' || cur === null || Array.isArray(cur)) return undefined;
    cur = (cur as Record<string, unknown>)[s];
  }
  return cur;
}
