import type { Condition } from '../api-types/meta.ts';

export type ConditionInput = Omit<Condition, 'lastTransitionTime'> & { lastTransitionTime?: string };

/**
 * Sets a condition with metav1.Condition semantics (apimachinery's meta.SetStatusCondition):
 * lastTransitionTime moves only when `status` changes; reason, message and observedGeneration
 * are updated in place. Returns a new array; the input is not mutated.
 */
export function setCondition(
  conditions: readonly Condition[] | undefined,
  input: ConditionInput,
  now: () => Date = () => new Date(),
): Condition[] {
  const list = [...(conditions ?? [])];
  const i = list.findIndex((c) => c.type === input.type);
  const existing = i >= 0 ? list[i] : undefined;
  const transition =
    existing && existing.status === input.status
      ? existing.lastTransitionTime
      : (input.lastTransitionTime ??
        now()
          .toISOString()
          .replace(/\.\d{3}Z$/, 'Z'));
  const next: Condition = {
    type: input.type,
    status: input.status,
    ...(input.observedGeneration !== undefined ? { observedGeneration: input.observedGeneration } : {}),
    lastTransitionTime: transition,
    reason: input.reason,
    message: input.message,
  };
  if (i >= 0) list[i] = next;
  else list.push(next);
  return list;
}

export function findCondition(
  conditions: readonly Condition[] | undefined,
  type: string,
): Condition | undefined {
  return conditions?.find((c) => c.type === type);
}

export function isConditionTrue(conditions: readonly Condition[] | undefined, type: string): boolean {
  return findCondition(conditions, type)?.status === 'True';
}

export function removeCondition(conditions: readonly Condition[] | undefined, type: string): Condition[] {
  return (conditions ?? []).filter((c) => c.type !== type);
}

/** True when setting `input` would change nothing (so a status write can be skipped). */
export function conditionUnchanged(
  conditions: readonly Condition[] | undefined,
  input: ConditionInput,
): boolean {
  const c = findCondition(conditions, input.type);
  return (
    c !== undefined &&
    c.status === input.status &&
    c.reason === input.reason &&
    c.message === input.message &&
    c.observedGeneration === input.observedGeneration
  );
}
