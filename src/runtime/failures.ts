import type { Condition } from '../api-types/meta.ts';
import { ApiError } from '../client/api-error.ts';
import type { Kind } from '../client/kind.ts';
import type { ObjectLike } from '../client/resource-client.ts';
import { conditionUnchanged, setCondition, type ConditionInput } from './conditions.ts';
import type { ReconcileContext } from './controller.ts';
import { controllerOf } from './owner-references.ts';

/** A failure a user must act on, as a condition reason (CamelCase) and a message. */
export interface ActionRequired {
  readonly reason: string;
  readonly message: string;
}

/**
 * The failures retrying will not fix until a user acts, as reason and message: 422 Invalid (an
 * immutable field, a value the API rejects, a second controller reference), 403 Forbidden (missing
 * RBAC), 400 Bad Request. Undefined for everything else (outages, conflicts, timeouts), which the
 * controller retries with backoff. The message is the server's (it names the fields at fault).
 */
export function actionRequired(err: unknown): ActionRequired | undefined {
  if (!(err instanceof ApiError)) return undefined;
  if (err.statusCode !== 422 && err.statusCode !== 403 && err.statusCode !== 400) return undefined;
  return {
    reason: err.reason === 'Unknown' ? `Http${err.statusCode}` : err.reason,
    message: serverMessage(err),
  };
}

/** What the API server said, without the method, path and code an ApiError's message starts with. */
export function serverMessage(err: ApiError): string {
  // ApiError's message is `<method> <path>: <code> <reason>: <the server's message>`.
  const said = err.message.replace(/^\S+ \S+: \d+ \w+: /, '');
  return said === '' ? err.message : said;
}

/** An object whose status carries conditions (metav1.Condition). */
export type WithConditions = ObjectLike & {
  status?: { conditions?: Condition[] };
  metadata?: ObjectLike['metadata'] & { generation?: number };
};

export interface ReportFailureOptions extends ActionRequired {
  /** The condition set to False. Default `Ready`. */
  readonly type?: string;
}

/**
 * Shows a failure the user must act on where `kubectl describe` and `kubectl get` show it: sets the
 * condition (default `Ready`) to False with the reason, the message and the generation it was seen
 * at (written only if that changes something), and records a Warning event (repeats are
 * aggregated by the recorder). Like kubebuilder controllers that set `Ready=False` before
 * returning an error.
 */
export async function reportFailure<T extends WithConditions>(
  ctx: Pick<ReconcileContext<T>, 'client' | 'recorder' | 'log'>,
  kind: Kind<T>,
  obj: T,
  failure: ReportFailureOptions,
): Promise<void> {
  const condition: ConditionInput = {
    type: failure.type ?? 'Ready',
    status: 'False',
    observedGeneration: obj.metadata?.generation ?? 0,
    reason: failure.reason,
    message: failure.message,
  };
  ctx.log.warn('reconcile needs attention', { reason: failure.reason, message: failure.message });
  ctx.recorder.event(obj, 'Warning', failure.reason, failure.message);
  const conditions = obj.status?.conditions;
  if (conditionUnchanged(conditions, condition)) return;
  await ctx.client.status().update(kind, {
    ...obj,
    status: { ...obj.status, conditions: setCondition(conditions, condition) },
  });
}

/**
 * Why `owner` must not take over `existing` (undefined when it may): an object controlled by
 * someone else is never taken; one without a controller reference (not created by this owner, or
 * orphaned) only with `adoptOrphans`. Server-side apply with `force` would otherwise silently take
 * the fields of another manager and merge lists with its content (e.g. a second container).
 */
export function ownershipConflict(
  existing: ObjectLike | undefined,
  owner: ObjectLike,
  options: {
    readonly adoptOrphans?: boolean;
    /** How to name `existing` in the message (cached list items carry no kind). */
    readonly kind?: string;
  } = {},
): string | undefined {
  if (!existing) return undefined;
  const what = `${options.kind ?? existing.kind ?? 'object'} ${describeKey(existing)}`;
  const ref = controllerOf(existing);
  const ownerUid = owner.metadata?.uid;
  if (ref) {
    if (ref.uid === ownerUid) return undefined;
    return `${what} exists and is controlled by ${ref.kind} ${ref.name} (uid ${ref.uid}); it is left alone: delete it or rename this ${owner.kind ?? 'object'}`;
  }
  if (options.adoptOrphans) return undefined;
  return `${what} exists and was not created by this ${owner.kind ?? 'object'} (no controller reference); it is left alone: delete it, or let the controller adopt such objects`;
}

function describeKey(obj: ObjectLike): string {
  const ns = obj.metadata?.namespace;
  return ns ? `${ns}/${obj.metadata?.name ?? ''}` : (obj.metadata?.name ?? '');
}
