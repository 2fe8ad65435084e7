import type { Condition } from '../../api-types/meta.ts';
import { conditionUnchanged, removeCondition, setCondition, type ConditionInput } from '../conditions.ts';

/** Where a dependent stands after a pass of the workflow. */
export type Phase =
  /** Exists as desired and is ready. */
  | 'Ready'
  /** Exists as desired, not ready yet. */
  | 'NotReady'
  /** Not reconciled: a dependency is not ready. */
  | 'Waiting'
  /**
   * Not reconciled: its `reconcileWhen` is false, or a dependency is Skipped or Inactive. Its
   * objects are deleted, in reverse order.
   */
  | 'Skipped'
  /** `activationWhen` is false: left out entirely. */
  | 'Inactive'
  /** Could not be reconciled (a conflict, a refusal, an error). */
  | 'Failed';

export interface Outcome {
  readonly phase: Phase;
  /** CamelCase, for the condition and events. */
  readonly reason: string;
  readonly message: string;
  /** A failure retrying may fix (not one a user must act on): rethrown after status is written. */
  readonly error?: unknown;
  /** Ask again after this long (external dependents that are not ready). */
  readonly pollMs?: number;
}

/** Dependents after this one may proceed. */
export function lets(outcome: Outcome): boolean {
  return outcome.phase === 'Ready';
}

/** `config-map` -> `ConfigMap`: the condition type of a dependent is `<Name>Ready`. */
export function conditionType(dependentName: string): string {
  return `${dependentName
    .split(/[-_.]/)
    .filter((w) => w !== '')
    .map((w) => w[0]!.toUpperCase() + w.slice(1))
    .join('')}Ready`;
}

/**
 * The parent's conditions after a pass: `<Name>Ready` per dependent (removed while inactive) and
 * an aggregate `Ready` (true when every active dependent that should exist is ready). Undefined
 * when nothing would change, so an unchanged pass writes nothing.
 */
export function nextConditions(
  current: readonly Condition[] | undefined,
  outcomes: ReadonlyMap<string, Outcome>,
  generation: number,
  now?: () => Date,
): Condition[] | undefined {
  let next = [...(current ?? [])];
  let changed = false;
  const set = (input: ConditionInput): void => {
    if (conditionUnchanged(next, input)) return;
    next = setCondition(next, input, now);
    changed = true;
  };
  const blocking: string[] = [];
  let failed = false;
  for (const [name, o] of outcomes) {
    const type = conditionType(name);
    if (o.phase === 'Inactive') {
      if (next.some((c) => c.type === type)) {
        next = removeCondition(next, type);
        changed = true;
      }
      continue;
    }
    set({
      type,
      status: o.phase === 'Ready' ? 'True' : 'False',
      reason: o.reason,
      message: o.message,
      observedGeneration: generation,
    });
    if (o.phase === 'Failed') failed = true;
    if (o.phase !== 'Ready' && o.phase !== 'Skipped') blocking.push(`${name}: ${o.message}`);
  }
  set(
    blocking.length === 0
      ? {
          type: 'Ready',
          status: 'True',
          reason: 'DependentsReady',
          message: 'every dependent is ready',
          observedGeneration: generation,
        }
      : {
          type: 'Ready',
          status: 'False',
          reason: failed ? 'DependentFailed' : 'DependentsNotReady',
          message: blocking.join('; '),
          observedGeneration: generation,
        },
  );
  return changed ? next : undefined;
}
