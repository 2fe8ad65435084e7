import { actionRequired, ownershipConflict, serverMessage } from '../failures.ts';
import { ApiError, isConflict } from '../../client/api-error.ts';
import { apiVersionOf, kindKey, type Kind } from '../../client/kind.ts';
import type { ObjectLike } from '../../client/resource-client.ts';
import type { OwnerReference } from '../../api-types/meta.ts';
import type { Condition } from '../../api-types/meta.ts';
import type { ReconcileContext, Reconciler, Result } from '../controller.ts';
import { hasFinalizer, isBeingDeleted, withFinalizer, withoutFinalizer } from '../finalizers.ts';
import type { Histogram, Counter } from '../metrics.ts';
import type { Registry } from '../metrics.ts';
import { exponentialBuckets } from '../metrics.ts';
import { Expectations } from '../expectations.ts';
import { keyOf, type Request } from '../object-key.ts';
import { controllerOf } from '../owner-references.ts';
import { stableJson, withSpecHash } from '../spec-hash.ts';
import {
  readinessOf,
  type AnyDependent,
  type BulkOptions,
  type CommonOptions,
  type DependentContext,
  type DependentOptions,
  type ExternalOptions,
  type ManagedOptions,
  type ReadOnlyOptions,
} from './dependent.ts';
import { orderDependents } from './graph.ts';
import { containsDesired } from './match.ts';
import type { ReadyResult } from './readiness.ts';
import { lets, nextConditions, type Outcome } from './status.ts';

/** The label naming the dependent an object belongs to (its discriminator). */
export const DEPENDENT_LABEL = 'op-gen.dev/dependent';
/** The label carrying the uid of the parent an object belongs to. */
export const OWNER_UID_LABEL = 'op-gen.dev/owner-uid';
/** The finalizer a parent carries while a dependent needs ordered cleanup. */
export const DEPENDENTS_FINALIZER = 'op-gen.dev/dependents';

export interface WorkflowOptions {
  /** Write `<Name>Ready` and `Ready` conditions to the parent's status subresource. Default true. */
  readonly conditions?: boolean;
  /** The finalizer used for ordered cleanup. Default `op-gen.dev/dependents`. */
  readonly finalizer?: string;
}

/** What the workflow needs from the controller it runs in. */
export interface WorkflowHooks {
  /** Watch a kind whose objects are owned (controller ownerReference) by the parent. */
  watchOwned(kind: Kind<ObjectLike>): void;
  /** Watch a kind whose objects map to parents through `parentsOf`. */
  watchMapped(kind: Kind<ObjectLike>, parentsOf: (obj: ObjectLike) => readonly Request[]): void;
  /** Calls `onEvent` with every object of a kind the cache adds, updates or deletes. */
  observe(kind: Kind<ObjectLike>, onEvent: (obj: ObjectLike, deleted: boolean) => void): void;
  /** Where per-dependent metrics go (none when absent). */
  readonly registry?: Registry;
}

type Meta = NonNullable<ObjectLike['metadata']> & {
  uid?: string;
  generation?: number;
  labels?: Record<string, string>;
  ownerReferences?: OwnerReference[];
};
type Parent = ObjectLike & { status?: { conditions?: Condition[] } };

const meta = (o: ObjectLike): Meta => (o.metadata ?? {}) as Meta;
const describe = (kind: string, o: ObjectLike): string =>
  `${kind} ${meta(o).namespace ? `${meta(o).namespace}/` : ''}${meta(o).name ?? ''}`;
const message = (err: unknown): string => (err instanceof Error ? err.message : String(err));
const readyOutcome = (r: ReadyResult, what: string): Outcome =>
  r === true
    ? { phase: 'Ready', reason: 'Ready', message: `${what} is ready` }
    : {
        phase: 'NotReady',
        reason: 'NotReady',
        message: typeof r === 'string' ? `${what}: ${r}` : `${what} is not ready`,
      };

/** One pass over one parent: the live objects found so far, for `ctx.actual`. */
class Pass<P extends ObjectLike> {
  readonly actuals = new Map<string, ObjectLike[]>();
  readonly parent: P;
  readonly base: ReconcileContext<P>;

  constructor(parent: P, base: ReconcileContext<P>) {
    this.parent = parent;
    this.base = base;
  }

  context(): DependentContext<P> {
    return {
      ...this.base,
      parent: this.parent,
      actual: <O extends ObjectLike>(d: AnyDependent<O>) => this.actuals.get(d.name)?.[0] as O | undefined,
      actualSet: <O extends ObjectLike>(d: AnyDependent<O>) => (this.actuals.get(d.name) ?? []) as O[],
    };
  }
}

/**
 * A controller's dependents as a workflow (a DAG by `dependsOn`), reconciled for each parent: each
 * dependent once every dependency is ready, independent ones in parallel, then conditions on the
 * parent; on the parent's deletion, dependents with ordered cleanup are deleted in reverse order.
 * Nothing waits inside a reconcile: a dependent that waits is reconciled again on the next event of
 * its dependencies (watched kinds) or after `pollMs` (external ones).
 */
export class Workflow<P extends ObjectLike = ObjectLike> {
  readonly dependents: readonly AnyDependent[];
  private readonly parentKind: Kind<P>;
  private readonly controller: string;
  private readonly options: WorkflowOptions;
  private readonly byName: ReadonlyMap<string, AnyDependent>;
  /** Dependents of each dependent (the reverse edges), for cleanup. */
  private readonly dependentsOf = new Map<string, AnyDependent[]>();
  private readonly watched = new Set<string>();
  private hooks: WorkflowHooks | undefined;
  /** Read-only dependents: object key -> keys of the parents reading it (for their events). */
  private readonly readers = new Map<string, Set<string>>();
  /** Parent key -> dependent name -> the object key it reads. */
  private readonly reads = new Map<string, Map<string, string>>();
  private metrics: { total: Counter; time: Histogram } | undefined;
  /**
   * Creations and deletions sent but not yet seen by the cache (`c|` and `d|` + object key): a pass
   * on a lagging cache would otherwise create or delete the same object again.
   */
  private readonly pending = new Expectations();
  /** Per parent: the resourceVersion its last condition write went over, and what it wrote. */
  private readonly lastStatus = new Map<string, { over: string; written: string }>();

  constructor(
    controller: string,
    parentKind: Kind<P>,
    list: readonly AnyDependent[],
    options: WorkflowOptions = {},
  ) {
    this.controller = controller;
    this.parentKind = parentKind;
    this.options = options;
    this.dependents = orderDependents(controller, list);
    this.byName = new Map(this.dependents.map((d) => [d.name, d]));
    for (const d of this.dependents)
      for (const dep of d.dependencies)
        this.dependentsOf.set(dep, [...(this.dependentsOf.get(dep) ?? []), d]);
    if (parentKind.namespaced)
      for (const d of this.dependents)
        if (d.kind && !d.kind.namespaced && d.spec.type !== 'read-only')
          throw new Error(
            `controller ${controller}: dependent "${d.name}" is a cluster-scoped ${d.kind.kind}, which a namespaced ${parentKind.kind} cannot own`,
          );
  }

  /** Creations and deletions sent that the cache has not shown yet (for tests and diagnostics). */
  get pendingWrites(): number {
    return this.pending.size;
  }

  private get finalizer(): string {
    return this.options.finalizer ?? DEPENDENTS_FINALIZER;
  }

  /** Whether the parent needs the finalizer: some dependent is deleted in order. */
  private get ordered(): boolean {
    return this.dependents.some(
      (d) =>
        (d.spec.type === 'external' && (d.spec.options as ExternalOptions<P>).delete !== undefined) ||
        ((d.spec.type === 'single' || d.spec.type === 'bulk') &&
          (d.spec.options as ManagedOptions<P, ObjectLike>).cleanup === 'ordered'),
    );
  }

  /**
   * Starts the watches (those of dependents with an activation condition start when first active)
   * and returns the reconciler; `after` (if any) runs after each pass that did not fail, the
   * parent's deletion included (it may hold a finalizer of its own), and after a parent that is gone.
   */
  reconciler(hooks: WorkflowHooks, after?: Reconciler<P>): Reconciler<P> {
    this.hooks = hooks;
    if (hooks.registry) {
      const labels = ['controller', 'dependent'];
      this.metrics = {
        total: hooks.registry.counter(
          'op_gen_dependent_reconcile_total',
          'Reconciles of a dependent per controller and outcome (per object: created, updated, unchanged, deleted, conflict; per pass: ready, not_ready, waiting, skipped, inactive, failed)',
          [...labels, 'result'],
        ),
        time: hooks.registry.histogram(
          'op_gen_dependent_reconcile_time_seconds',
          'Time to reconcile one dependent of one parent',
          exponentialBuckets(0.001, 2, 14),
          labels,
        ),
      };
    }
    for (const d of this.dependents)
      if (!(d.spec.options as CommonOptions<P, ObjectLike>).activationWhen) this.watch(d);
    return {
      reconcile: async (ctx, req) => {
        const result = await this.reconcile(ctx, req);
        if (!after) return result;
        // Also while the parent is being deleted: the reconciler may hold a finalizer of its own.
        const own = await after.reconcile(ctx, req);
        return mergeResults(result, own ?? undefined);
      },
    };
  }

  private watch(d: AnyDependent): void {
    const kind = d.kind as Kind<ObjectLike> | undefined;
    if (!kind || !this.hooks) return;
    const key = `${d.spec.type === 'read-only' ? 'read' : 'own'}:${kindKey(kind)}`;
    if (this.watched.has(key)) return;
    this.watched.add(key);
    if (d.spec.type === 'read-only')
      this.hooks.watchMapped(kind, (obj) => {
        const k = `${kindKey(kind)}|${meta(obj).namespace ?? ''}/${meta(obj).name ?? ''}`;
        return [...(this.readers.get(k) ?? [])].map((p) => {
          const [namespace, name] = p.split('/', 2) as [string, string];
          return { namespace, name };
        });
      });
    else {
      this.hooks.watchOwned(kind);
      this.hooks.observe(kind, (obj, deleted) => {
        const key = objectId(kind, obj);
        // Forgotten, not lowered: an entry lives only from the write to the event that shows it.
        this.pending.forget(`c|${key}`);
        // Not any update: one sent before the deletion may arrive after it.
        if (deleted || isBeingDeleted(obj)) this.pending.forget(`d|${key}`);
      });
    }
  }

  /** One reconcile of one parent: its dependents, or their cleanup when it is being deleted. */
  async reconcile(ctx: ReconcileContext<P>, req: Request): Promise<Result | undefined> {
    const found = await ctx.client.get(this.parentKind, req);
    if (!found) {
      this.forgetReads(keyOf(req.namespace, req.name));
      this.lastStatus.delete(keyOf(req.namespace, req.name));
      return undefined;
    }
    let parent = { ...found, apiVersion: apiVersionOf(this.parentKind), kind: this.parentKind.kind } as P;
    if (isBeingDeleted(parent)) {
      await this.cleanup(ctx, parent);
      return undefined;
    }
    if (this.ordered && !hasFinalizer(parent, this.finalizer)) {
      const updated = await ctx.client.update(this.parentKind, withFinalizer(parent, this.finalizer));
      parent = { ...updated, apiVersion: parent.apiVersion, kind: parent.kind } as P;
    }
    const pass = new Pass(parent, ctx);
    const outcomes = await this.forward(pass);
    if (this.options.conditions !== false) await this.writeConditions(ctx, parent, outcomes);
    const transient = [...outcomes.values()].find((o) => o.error !== undefined);
    if (transient) throw transient.error;
    const polls = [...outcomes.values()].flatMap((o) => (o.pollMs !== undefined ? [o.pollMs] : []));
    return polls.length > 0 ? { requeueAfter: Math.min(...polls) } : undefined;
  }

  /** Reconciles every dependent in dependency order, independent ones concurrently. */
  private async forward(pass: Pass<P>): Promise<Map<string, Outcome>> {
    const running = new Map<string, Promise<Outcome>>();
    const run = (d: AnyDependent): Promise<Outcome> => {
      let p = running.get(d.name);
      if (!p) {
        p = Promise.all(d.dependencies.map((n) => run(this.byName.get(n)!))).then((deps) =>
          this.timed(d, () => this.step(pass, d, deps)),
        );
        running.set(d.name, p);
      }
      return p;
    };
    const results = await Promise.all(this.dependents.map(run));
    const outcomes = new Map(this.dependents.map((d, i) => [d.name, results[i]!]));
    const skipped = new Set(this.dependents.filter((d) => outcomes.get(d.name)!.phase === 'Skipped'));
    if (skipped.size > 0) {
      const deleted = await this.deleteInReverse(pass, skipped, () => true);
      for (const [d, result] of deleted)
        if (result !== true)
          outcomes.set(
            d.name,
            result === false
              ? { ...outcomes.get(d.name)!, message: `${outcomes.get(d.name)!.message}; being deleted` }
              : result,
          );
    }
    return outcomes;
  }

  /**
   * Deletes `members` in reverse dependency order (JOSDK's cleanup): each once every member that
   * depends on it is gone; those `deletes` says no to count as gone at once (garbage-collected).
   * Gives per dependent true (gone), false (still there, or waiting for its dependents) or the
   * outcome of a failure.
   */
  private async deleteInReverse(
    pass: Pass<P>,
    members: ReadonlySet<AnyDependent>,
    deletes: (d: AnyDependent) => boolean,
  ): Promise<Map<AnyDependent, boolean | Outcome>> {
    const done = new Map<AnyDependent, Promise<boolean | Outcome>>();
    const run = (d: AnyDependent): Promise<boolean | Outcome> => {
      let p = done.get(d);
      if (!p) {
        const after = (this.dependentsOf.get(d.name) ?? []).filter((x) => members.has(x));
        p = Promise.all(after.map(run)).then(async (results) => {
          if (!results.every((r) => r === true)) return false;
          if (!deletes(d)) return true;
          try {
            return await this.remove(pass, d);
          } catch (err) {
            return this.failed(pass, d, err);
          }
        });
        done.set(d, p);
      }
      return p;
    };
    const list = [...members];
    const results = await Promise.all(list.map(run));
    return new Map(list.map((d, i) => [d, results[i]!]));
  }

  private async timed(d: AnyDependent, work: () => Promise<Outcome>): Promise<Outcome> {
    const started = performance.now();
    const outcome = await work();
    const labels = { controller: this.controller, dependent: d.name };
    this.metrics?.time.observe(labels, (performance.now() - started) / 1000);
    return outcome;
  }

  private count(d: AnyDependent, result: string): void {
    this.metrics?.total.inc({ controller: this.controller, dependent: d.name, result });
  }

  private async step(pass: Pass<P>, d: AnyDependent, deps: readonly Outcome[]): Promise<Outcome> {
    const ctx = pass.context();
    const options = d.spec.options as CommonOptions<P, ObjectLike>;
    const outcome = await (async (): Promise<Outcome> => {
      try {
        if (options.activationWhen && !options.activationWhen(pass.parent, ctx))
          return { phase: 'Inactive', reason: 'Inactive', message: 'not active' };
        this.watch(d);
        // JOSDK's rules: what depends on a dependent that is not reconciled (its reconcileWhen is
        // false, or it is inactive) is not reconciled either, and is deleted (after the pass, in
        // reverse order: see deleteInReverse).
        const notReconciled = d.dependencies.find((_, i) => ['Skipped', 'Inactive'].includes(deps[i]!.phase));
        if (notReconciled !== undefined)
          return {
            phase: 'Skipped',
            reason: 'NotReconciled',
            message: `not reconciled: dependency ${notReconciled} is not`,
          };
        if (options.reconcileWhen && !options.reconcileWhen(pass.parent, ctx))
          return {
            phase: 'Skipped',
            reason: 'NotReconciled',
            message: 'not reconciled: reconcileWhen is false',
          };
        const waiting = d.dependencies.filter((_, i) => !lets(deps[i]!));
        if (waiting.length > 0)
          return {
            phase: 'Waiting',
            reason: 'Waiting',
            message: `waiting for ${waiting.join(', ')} to be ready`,
          };
        switch (d.spec.type) {
          case 'single':
            return await this.single(pass, d, d.spec.options as DependentOptions<P, ObjectLike>);
          case 'bulk':
            return await this.bulk(pass, d, d.spec.options as BulkOptions<P, ObjectLike>);
          case 'read-only':
            return this.readOnly(pass, d, d.spec.options as ReadOnlyOptions<P, ObjectLike>);
          case 'external':
            return await this.external(pass, d, d.spec.options as ExternalOptions<P>);
        }
      } catch (err) {
        return this.failed(pass, d, err);
      }
    })();
    this.count(
      d,
      outcome.phase === 'Ready'
        ? 'ready'
        : outcome.phase === 'NotReady'
          ? 'not_ready'
          : outcome.phase.toLowerCase(),
    );
    return outcome;
  }

  /** A failure: one a user must act on (conflict, refusal) is reported; others are retried too. */
  private failed(pass: Pass<P>, d: AnyDependent, err: unknown): Outcome {
    if (err instanceof NotOwnedError) {
      pass.base.recorder.event(pass.parent, 'Warning', 'NotOwned', `dependent ${d.name}: ${err.message}`);
      return { phase: 'Failed', reason: 'NotOwned', message: err.message };
    }
    if (err instanceof InvalidDesiredError) {
      // The operator's code must change: retrying cannot help; its next version or the parent's
      // next change brings the parent back.
      pass.base.recorder.event(pass.parent, 'Warning', 'InvalidDesired', err.message);
      return { phase: 'Failed', reason: 'InvalidDesired', message: err.message };
    }
    if (err instanceof FieldConflictError) {
      const msg = `${err.message}; the field is left to its owner`;
      pass.base.recorder.event(pass.parent, 'Warning', 'FieldConflict', `dependent ${d.name}: ${msg}`);
      this.count(d, 'conflict');
      return { phase: 'Failed', reason: 'FieldConflict', message: msg };
    }
    const action = actionRequired(err);
    pass.base.log.error('dependent failed', { dependent: d.name, error: err });
    if (action) {
      pass.base.recorder.event(
        pass.parent,
        'Warning',
        action.reason,
        `dependent ${d.name}: ${action.message}`,
      );
      return { phase: 'Failed', reason: action.reason, message: action.message };
    }
    pass.base.recorder.event(
      pass.parent,
      'Warning',
      'DependentFailed',
      `dependent ${d.name}: ${message(err)}`,
    );
    return { phase: 'Failed', reason: 'Error', message: message(err), error: err };
  }

  /** The desired object as applied: type meta, namespace, the dependent's labels, owner, hash. */
  private prepare(pass: Pass<P>, d: AnyDependent, desired: ObjectLike, key?: string): ObjectLike {
    const kind = d.kind!;
    const m = meta(desired);
    const parent = meta(pass.parent);
    if (!m.name)
      throw new InvalidDesiredError(
        `dependent ${d.name}: the desired ${kind.kind}${key ? ` "${key}"` : ''} has no metadata.name`,
      );
    const namespace = kind.namespaced ? (m.namespace ?? parent.namespace) : undefined;
    if (this.parentKind.namespaced && namespace !== parent.namespace)
      throw new InvalidDesiredError(
        `dependent ${d.name}: ${kind.kind} ${namespace}/${m.name} is in another namespace than its ${this.parentKind.kind}, which cannot own it`,
      );
    const owner: OwnerReference = {
      apiVersion: apiVersionOf(this.parentKind),
      kind: this.parentKind.kind,
      name: parent.name ?? '',
      uid: parent.uid ?? '',
      controller: true,
      blockOwnerDeletion: true,
    };
    const labels = {
      ...m.labels,
      [DEPENDENT_LABEL]: (d.spec.options as ManagedOptions<P, ObjectLike>).discriminator ?? d.name,
      [OWNER_UID_LABEL]: parent.uid ?? '',
    };
    const prepared: ObjectLike = {
      ...desired,
      apiVersion: apiVersionOf(kind),
      kind: kind.kind,
      metadata: {
        ...m,
        ...(namespace ? { namespace } : {}),
        labels,
        ownerReferences: [...(m.ownerReferences ?? []).filter((r) => r.uid !== owner.uid), owner],
      },
    };
    return withSpecHash(prepared, prepared);
  }

  /** Applies `desired` unless the live object holds it already; the live object after. */
  private async ensure(
    pass: Pass<P>,
    d: AnyDependent,
    desired: ObjectLike,
    actual: ObjectLike | undefined,
  ): Promise<ObjectLike | undefined> {
    const kind = d.kind!;
    const { apiVersion: _a, kind: _k, ...comparable } = desired;
    const id = objectId(kind as Kind<ObjectLike>, desired);
    // Created by an earlier pass, not in the cache yet: its ADDED event brings the parent back.
    if (!actual && !this.pending.satisfied(`c|${id}`)) return undefined;
    if (actual) {
      const conflict = ownershipConflict(actual, pass.parent, { kind: kind.kind });
      if (conflict) throw new NotOwnedError(conflict);
      if (containsDesired(comparable, actual)) {
        this.count(d, 'unchanged');
        return actual;
      }
    }
    let live: ObjectLike;
    try {
      live = await pass.base.client.apply(kind as Kind<ObjectLike>, desired, { force: false });
    } catch (err) {
      // An apply without force answers 409 when another field manager owns a field this one sets.
      if (isConflict(err) && err instanceof ApiError) throw new FieldConflictError(serverMessage(err));
      throw err;
    }
    if (!actual) this.pending.expectCreations(`c|${id}`, 1);
    const op = actual ? 'updated' : 'created';
    this.count(d, op);
    pass.base.recorder.event(
      pass.parent,
      'Normal',
      actual ? 'Updated' : 'Created',
      `${describe(kind.kind, live)} ${op} (dependent ${d.name})`,
    );
    return live;
  }

  private async single(
    pass: Pass<P>,
    d: AnyDependent,
    options: DependentOptions<P, ObjectLike>,
  ): Promise<Outcome> {
    const ctx = pass.context();
    const desired = this.prepare(pass, d, options.desired(pass.parent, ctx));
    const m = meta(desired);
    const actual = await pass.base.client.get(d.kind as Kind<ObjectLike>, {
      namespace: m.namespace,
      name: m.name ?? '',
    });
    if (actual && isBeingDeleted(actual)) {
      // Applying now would change an object on its way out; its deletion event brings the parent back.
      pass.actuals.set(d.name, [actual]);
      return {
        phase: 'NotReady',
        reason: 'BeingDeleted',
        message: `${describe(d.kind!.kind, actual)} is being deleted; it is created again once gone`,
      };
    }
    const live = await this.ensure(pass, d, desired, actual);
    if (!live) return cachePending(describe(d.kind!.kind, desired));
    pass.actuals.set(d.name, [live]);
    return readyOutcome(readinessOf(d)(live, pass.context()), describe(d.kind!.kind, live));
  }

  /** The objects of a dependent for this parent, found by its labels (in the cache). */
  private owned(pass: Pass<P>, d: AnyDependent): Promise<ObjectLike[]> {
    const parent = meta(pass.parent);
    return pass.base.client.list(d.kind as Kind<ObjectLike>, {
      ...(d.kind!.namespaced && parent.namespace ? { namespace: parent.namespace } : {}),
      labelSelector: {
        [DEPENDENT_LABEL]: (d.spec.options as ManagedOptions<P, ObjectLike>).discriminator ?? d.name,
        [OWNER_UID_LABEL]: parent.uid ?? '',
      },
    });
  }

  private async bulk(pass: Pass<P>, d: AnyDependent, options: BulkOptions<P, ObjectLike>): Promise<Outcome> {
    const kind = d.kind!;
    const wanted = [...options.desiredSet(pass.parent, pass.context())].map(([key, o]) => ({
      key,
      desired: this.prepare(pass, d, o, key),
    }));
    const existing = await this.owned(pass, d);
    const id = (o: ObjectLike): string => `${meta(o).namespace ?? ''}/${meta(o).name ?? ''}`;
    const byId = new Map(existing.map((o) => [id(o), o]));
    const wantedIds = new Set(wanted.map((w) => id(w.desired)));
    const pruned = existing.filter(
      (o) => !wantedIds.has(id(o)) && controllerOf(o)?.uid === meta(pass.parent).uid,
    );
    const [lives] = await Promise.all([
      Promise.all(
        wanted.map(async (w) => ({
          key: w.key,
          live: await this.ensure(
            pass,
            d,
            w.desired,
            byId.get(id(w.desired)) ??
              (await pass.base.client.get(kind as Kind<ObjectLike>, {
                namespace: meta(w.desired).namespace,
                name: meta(w.desired).name ?? '',
              })),
          ),
        })),
      ),
      Promise.all(pruned.map((o) => this.deleteObject(pass, d, o))),
    ]);
    pass.actuals.set(
      d.name,
      lives.flatMap((l) => (l.live ? [l.live] : [])),
    );
    const ready = readinessOf(d);
    const notReady = lives.flatMap(({ key, live }) => {
      if (!live) return [`${key}: created, not in the cache yet`];
      const r = ready(live, pass.context());
      return r === true ? [] : [`${key}: ${typeof r === 'string' ? r : 'not ready'}`];
    });
    if (notReady.length > 0)
      return {
        phase: 'NotReady',
        reason: 'NotReady',
        message: `${notReady.length}/${lives.length} not ready: ${notReady.slice(0, 3).join('; ')}${notReady.length > 3 ? '; ...' : ''}`,
      };
    return { phase: 'Ready', reason: 'Ready', message: `${lives.length} ${kind.kind}(s) ready` };
  }

  private async readOnly(
    pass: Pass<P>,
    d: AnyDependent,
    options: ReadOnlyOptions<P, ObjectLike>,
  ): Promise<Outcome> {
    const kind = d.kind!;
    const parent = meta(pass.parent);
    const key = options.key(pass.parent, pass.context());
    const namespace = kind.namespaced ? (key.namespace ?? parent.namespace) : undefined;
    this.recordRead(
      keyOf(parent.namespace, parent.name ?? ''),
      d.name,
      `${kindKey(kind)}|${namespace ?? ''}/${key.name}`,
    );
    const what = `${kind.kind} ${namespace ? `${namespace}/` : ''}${key.name}`;
    const actual = await pass.base.client.get(kind as Kind<ObjectLike>, { namespace, name: key.name });
    if (!actual) return { phase: 'NotReady', reason: 'NotFound', message: `${what} does not exist` };
    pass.actuals.set(d.name, [actual]);
    return readyOutcome(readinessOf(d)(actual, pass.context()), what);
  }

  private async external(pass: Pass<P>, d: AnyDependent, options: ExternalOptions<P>): Promise<Outcome> {
    const r = await options.reconcile(pass.parent, pass.context());
    const outcome = readyOutcome(r, d.name);
    return outcome.phase === 'Ready' ? outcome : { ...outcome, pollMs: options.pollMs ?? 10_000 };
  }

  private async deleteObject(pass: Pass<P>, d: AnyDependent, o: ObjectLike): Promise<void> {
    const kind = d.kind!;
    const m = meta(o);
    // Deleted by an earlier pass, not seen by the cache yet: its event brings the parent back.
    const id = `d|${objectId(kind as Kind<ObjectLike>, o)}`;
    if (!this.pending.satisfied(id)) return;
    this.pending.expectDeletions(id, 1);
    const deleted = await pass.base.client.delete(
      kind as Kind<ObjectLike>,
      { namespace: m.namespace, name: m.name ?? '' },
      { propagationPolicy: 'Background', ...(m.uid ? { preconditions: { uid: m.uid } } : {}) },
    );
    if (!deleted) return;
    this.count(d, 'deleted');
    pass.base.recorder.event(
      pass.parent,
      'Normal',
      'Deleted',
      `${describe(kind.kind, o)} deleted (dependent ${d.name})`,
    );
  }

  /**
   * Deletes what a dependent made for this parent (only objects it controls) and says whether the
   * deletion is complete (`deleteWhen`, default: none left in the cache).
   */
  private async remove(pass: Pass<P>, d: AnyDependent): Promise<boolean> {
    if (d.spec.type === 'read-only') return true;
    if (d.spec.type === 'external') {
      await (d.spec.options as ExternalOptions<P>).delete?.(pass.parent, pass.context());
      return true;
    }
    const mine = (await this.owned(pass, d)).filter((o) => controllerOf(o)?.uid === meta(pass.parent).uid);
    const alive = mine.filter((o) => !isBeingDeleted(o));
    await Promise.all(alive.map((o) => this.deleteObject(pass, d, o)));
    pass.actuals.set(d.name, mine);
    const deleteWhen = (d.spec.options as CommonOptions<P, ObjectLike>).deleteWhen;
    return deleteWhen ? deleteWhen(pass.parent, pass.context()) : mine.length === 0;
  }

  /**
   * The parent is being deleted: dependents with ordered cleanup are deleted once every dependent
   * depending on them is gone; the finalizer goes when all are. The rest is left to the garbage
   * collector. Waits for deletions through the children's events (or a poll for external ones).
   */
  private async cleanup(ctx: ReconcileContext<P>, parent: P): Promise<void> {
    if (!hasFinalizer(parent, this.finalizer)) return;
    const pass = new Pass(parent, ctx);
    // Inactive dependents are neither reconciled nor deleted; the others go in reverse order, the
    // garbage-collected ones counting as gone at once.
    const active = new Set(
      this.dependents.filter((d) => {
        const when = (d.spec.options as CommonOptions<P, ObjectLike>).activationWhen;
        return !when || when(parent, pass.context());
      }),
    );
    const results = await this.deleteInReverse(pass, active, (d) => {
      if (d.spec.type === 'external') return true;
      const options = d.spec.options as ManagedOptions<P, ObjectLike>;
      return (d.spec.type === 'single' || d.spec.type === 'bulk') && options.cleanup === 'ordered';
    });
    const all = [...results.values()];
    const failure = all.find((r): r is Outcome => typeof r === 'object' && r.error !== undefined);
    if (failure) throw failure.error;
    if (!all.every((r) => r === true)) {
      ctx.log.debug('dependents still being deleted; waiting for their events');
      return;
    }
    await ctx.client.update(this.parentKind, withoutFinalizer(parent, this.finalizer));
  }

  private async writeConditions(
    ctx: ReconcileContext<P>,
    parent: P,
    outcomes: ReadonlyMap<string, Outcome>,
  ): Promise<void> {
    const p = parent as Parent;
    const next = nextConditions(p.status?.conditions, outcomes, meta(parent).generation ?? 0);
    if (!next) return;
    const m = meta(parent);
    const key = keyOf(m.namespace, m.name ?? '');
    const written = stableJson(next.map(({ lastTransitionTime: _t, ...c }) => c));
    const last = this.lastStatus.get(key);
    // The cache still has the parent this controller last wrote over, and the pass would write
    // the same again: a sure Conflict. The parent's own event brings the next pass.
    if (last && last.over === m.resourceVersion && last.written === written) return;
    ctx.log.debug('writing conditions', {
      over: m.resourceVersion,
      conditions: next.map((c) => `${c.type}=${c.status} ${c.reason}: ${c.message}`),
      before: (p.status?.conditions ?? []).map((c) => `${c.type}=${c.status} ${c.reason}: ${c.message}`),
    });
    await ctx.client
      .status()
      .patch(this.parentKind, { namespace: m.namespace, name: m.name ?? '' }, 'merge', {
        metadata: { resourceVersion: m.resourceVersion },
        status: { conditions: next },
      });
    this.lastStatus.set(key, { over: m.resourceVersion ?? '', written });
  }

  /** Remembers that a parent's read-only dependent reads an object, so its events reach the parent. */
  private recordRead(parentKey: string, dependent: string, objectKey: string): void {
    const reads = this.reads.get(parentKey) ?? new Map<string, string>();
    const before = reads.get(dependent);
    if (before === objectKey) return;
    if (before !== undefined) this.unread(parentKey, before);
    reads.set(dependent, objectKey);
    this.reads.set(parentKey, reads);
    const readers = this.readers.get(objectKey) ?? new Set<string>();
    readers.add(parentKey);
    this.readers.set(objectKey, readers);
  }

  private unread(parentKey: string, objectKey: string): void {
    const readers = this.readers.get(objectKey);
    readers?.delete(parentKey);
    if (readers?.size === 0) this.readers.delete(objectKey);
  }

  private forgetReads(parentKey: string): void {
    for (const objectKey of this.reads.get(parentKey)?.values() ?? []) this.unread(parentKey, objectKey);
    this.reads.delete(parentKey);
  }
}

/** The cache's key of an object of a kind. */
function objectId(kind: Kind<ObjectLike>, o: ObjectLike): string {
  return `${kindKey(kind)}|${meta(o).namespace ?? ''}/${meta(o).name ?? ''}`;
}

/** A dependent created by an earlier pass that the cache has not shown yet. */
function cachePending(what: string): Outcome {
  return { phase: 'NotReady', reason: 'NotReady', message: `${what} created; not in the cache yet` };
}

/** An object exists but belongs to someone else: never taken over. */
class NotOwnedError extends Error {}

/** Another field manager owns a field the apply sets (the API server's message names both). */
class FieldConflictError extends Error {}

/** A desired object the runtime cannot apply (no name, another namespace than its parent's). */
class InvalidDesiredError extends Error {}

function mergeResults(a: Result | undefined, b: Result | undefined): Result | undefined {
  if (!a) return b;
  if (!b) return a;
  const after = [a.requeueAfter, b.requeueAfter].filter((x): x is number => x !== undefined && x > 0);
  return {
    ...(a.requeue || b.requeue ? { requeue: true } : {}),
    ...(after.length > 0 ? { requeueAfter: Math.min(...after) } : {}),
  };
}
