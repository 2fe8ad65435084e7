import type { Kind } from '../../client/kind.ts';
import type { ApplyObject, ObjectKey, ObjectLike } from '../../client/resource-client.ts';
import type { ReconcileContext } from '../controller.ts';
import { defaultReady, type ReadyResult } from './readiness.ts';

/** What a dependent's functions get: the reconcile context, the parent, and what is known so far. */
export interface DependentContext<P extends ObjectLike> extends ReconcileContext<P> {
  /** The parent being reconciled (read from the cache). */
  readonly parent: P;
  /**
   * The live object of a dependent reconciled earlier in this pass (a dependency), or of this one
   * when asked from `ready`/`deleteWhen`; undefined when it does not exist (yet). Bulk dependents
   * give their first object; use `actualSet` for all of them.
   */
  actual<O extends ObjectLike>(dependent: AnyDependent<O>): O | undefined;
  /** The live objects of a dependent reconciled earlier in this pass. */
  actualSet<O extends ObjectLike>(dependent: AnyDependent<O>): readonly O[];
}

/** Options every kind of dependent shares. */
export interface CommonOptions<P extends ObjectLike, O> {
  /**
   * Names the dependent: in `dependsOn`, its condition (`<Name>Ready`), its events, metrics and
   * the label its objects carry. A DNS label (lowercase, digits, `-`), at most 40 characters.
   * Default: the kind, lowercased.
   */
  readonly name?: string;
  /** Ready or not (a string says why not). Default: per kind (see defaultReady). */
  readonly ready?: (actual: O, ctx: DependentContext<P>) => ReadyResult;
  /**
   * Whether the dependent should exist now (JOSDK's reconcile precondition). When false its objects
   * are deleted, and so are those of the dependents that depend on it.
   */
  readonly reconcileWhen?: (parent: P, ctx: DependentContext<P>) => boolean;
  /**
   * After the dependent was deleted (ordered cleanup, or `reconcileWhen` turned false): whether
   * its deletion is complete, so what it depends on may be deleted next (JOSDK's delete
   * postcondition). Default: none of its objects is left in the cache.
   */
  readonly deleteWhen?: (parent: P, ctx: DependentContext<P>) => boolean;
  /**
   * Whether the dependent takes part at all (JOSDK's activation condition): while false it is not
   * reconciled, not deleted, and its kind is not watched, e.g. a kind whose CRD may be missing
   * from the cluster. Its kind is watched from the first pass where it is true.
   */
  readonly activationWhen?: (parent: P, ctx: DependentContext<P>) => boolean;
}

/** Options of a dependent the runtime writes. */
export interface ManagedOptions<P extends ObjectLike, O> extends CommonOptions<P, O> {
  /**
   * On the parent's deletion: `garbage-collection` (default) leaves the objects to Kubernetes'
   * garbage collector (through their owner reference); `ordered` deletes them in reverse order of
   * the workflow (a dependent once every dependent depending on it is gone) behind a finalizer on
   * the parent.
   */
  readonly cleanup?: 'garbage-collection' | 'ordered';
  /**
   * The value of the `op-gen.dev/dependent` label on the dependent's objects, which finds them
   * for pruning and deletion. Default: the dependent's name. Set it to keep the objects when
   * renaming a dependent, or to tell apart two dependents of one kind in another controller.
   */
  readonly discriminator?: string;
}

export interface DependentOptions<P extends ObjectLike, O> extends ManagedOptions<P, O> {
  /**
   * The object as it should be: metadata.name is required; the namespace defaults to the parent's.
   * Apply semantics: set only the fields this controller cares about; a field left out is left
   * to others (or removed, if this controller set it before).
   */
  readonly desired: (parent: P, ctx: DependentContext<P>) => ApplyObject<O>;
}

export interface BulkOptions<P extends ObjectLike, O> extends ManagedOptions<P, O> {
  /**
   * The objects as they should be, by a key of the caller's (a zone, a user name; it names the
   * object in messages). Objects of this dependent and parent not in the set are deleted.
   */
  readonly desiredSet: (parent: P, ctx: DependentContext<P>) => ReadonlyMap<string, ApplyObject<O>>;
}

export interface ReadOnlyOptions<P extends ObjectLike, O> extends CommonOptions<P, O> {
  /** Which object to read (e.g. a Secret the parent's spec names); the namespace defaults to the parent's. */
  readonly key: (parent: P, ctx: DependentContext<P>) => ObjectKey;
}

/** Something outside Kubernetes (a database user, a DNS record), reconciled by a pair of functions. */
export interface ExternalOptions<P extends ObjectLike> {
  readonly name: string;
  /**
   * Brings the external thing in line with the parent (idempotent, must not wait) and returns its
   * readiness, which says whether the dependents of it may proceed.
   */
  readonly reconcile: (parent: P, ctx: DependentContext<P>) => Promise<ReadyResult>;
  /** Deletes it (idempotent) on the parent's deletion, in reverse workflow order, behind a finalizer. */
  readonly delete?: (parent: P, ctx: DependentContext<P>) => Promise<void>;
  /** While not ready, ask again after this many ms (nothing outside the cluster sends events). Default 10 s. */
  readonly pollMs?: number;
  readonly reconcileWhen?: (parent: P, ctx: DependentContext<P>) => boolean;
  readonly activationWhen?: (parent: P, ctx: DependentContext<P>) => boolean;
}

interface Spec<P extends ObjectLike, O extends ObjectLike> {
  readonly type: 'single' | 'bulk' | 'read-only' | 'external';
  readonly kind: Kind<O> | undefined;
  readonly name: string;
  readonly after: readonly string[];
  readonly options: DependentOptions<P, O> | BulkOptions<P, O> | ReadOnlyOptions<P, O> | ExternalOptions<P>;
}

const NAME = /^[a-z0-9]([-a-z0-9]{0,38}[a-z0-9])?$/;

/**
 * A declared dependent: what the workflow reconciles for each parent. Immutable; `dependsOn`
 * returns a copy that waits for the named dependents to be ready.
 */
export class Dependent<O extends ObjectLike = ObjectLike, P extends ObjectLike = ObjectLike> {
  /** @internal */
  readonly spec: Spec<P, O>;

  /** @internal */
  constructor(spec: Spec<P, O>) {
    if (!NAME.test(spec.name))
      throw new Error(
        `dependent "${spec.name}": a name is a DNS label of at most 40 characters (lowercase letters, digits, '-'); set { name }`,
      );
    const disc = (spec.options as ManagedOptions<P, O>).discriminator;
    if (disc !== undefined && !/^[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$/.test(disc))
      throw new Error(`dependent "${spec.name}": discriminator "${disc}" is not a valid label value`);
    this.spec = spec;
  }

  get name(): string {
    return this.spec.name;
  }

  get kind(): Kind<O> | undefined {
    return this.spec.kind;
  }

  /** Names of the dependents this one waits for. */
  get dependencies(): readonly string[] {
    return this.spec.after;
  }

  /** A copy that is reconciled only once every one of `deps` is ready (deleted before them). */
  dependsOn(...deps: readonly (AnyDependent | string)[]): Dependent<O, P> {
    const names = deps.map((d) => (typeof d === 'string' ? d : d.name));
    return new Dependent<O, P>({ ...this.spec, after: [...new Set([...this.spec.after, ...names])] });
  }
}

/**
 * Any dependent, whatever its object and parent types (a workflow mixes kinds; `ready` and
 * `desired` make Dependent invariant in both).
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- see above
export type AnyDependent<O extends ObjectLike = any> = Dependent<O, any>;

function defaultName(kind: Kind<unknown>): string {
  return kind.kind.toLowerCase();
}

/**
 * A Kubernetes object the parent owns: applied with server-side apply under the controller's field
 * manager (drift corrected, fields of other managers left alone, a conflict reported), with the
 * parent as its controller owner, its kind watched, its live state read from the cache, and no
 * write when the live object already holds the desired values.
 */
export function dependent<O extends ObjectLike, P extends ObjectLike = ObjectLike>(
  kind: Kind<O>,
  options: DependentOptions<P, O>,
): Dependent<O, P> {
  return new Dependent<O, P>({
    type: 'single',
    kind,
    name: options.name ?? defaultName(kind),
    after: [],
    options,
  });
}

/** A set of objects of one kind per parent (one per zone, per user), pruned to the desired set. */
export function dependents<O extends ObjectLike, P extends ObjectLike = ObjectLike>(
  kind: Kind<O>,
  options: BulkOptions<P, O>,
): Dependent<O, P> {
  return new Dependent<O, P>({
    type: 'bulk',
    kind,
    name: options.name ?? `${defaultName(kind)}s`,
    after: [],
    options,
  });
}

/**
 * An object the parent uses but does not own (a Secret its spec names): watched, its readiness
 * gates the dependents that depend on it, never written nor deleted.
 */
export function readOnlyDependent<O extends ObjectLike, P extends ObjectLike = ObjectLike>(
  kind: Kind<O>,
  options: ReadOnlyOptions<P, O>,
): Dependent<O, P> {
  return new Dependent<O, P>({
    type: 'read-only',
    kind,
    name: options.name ?? defaultName(kind),
    after: [],
    options,
  });
}

/** Something outside Kubernetes, with the same ordering, readiness and deletion semantics. */
export function externalDependent<P extends ObjectLike = ObjectLike>(
  options: ExternalOptions<P>,
): Dependent<ObjectLike, P> {
  return new Dependent<ObjectLike, P>({
    type: 'external',
    kind: undefined,
    name: options.name,
    after: [],
    options,
  });
}

/** The readiness check of a dependent: its own, or its kind's default. */
export function readinessOf<P extends ObjectLike, O extends ObjectLike>(
  d: Dependent<O, P>,
): (actual: O, ctx: DependentContext<P>) => ReadyResult {
  const own = (d.spec.options as CommonOptions<P, O>).ready;
  if (own) return own;
  const byKind = d.spec.kind ? defaultReady(d.spec.kind) : () => true;
  return (actual) => byKind(actual);
}
