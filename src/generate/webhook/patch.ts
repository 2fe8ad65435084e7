import { OpGenError } from '../../errors.ts';
import type { JsonValue } from '../../markers/types.ts';

/** admissionregistration.k8s.io/v1 MutatingWebhook / ValidatingWebhook, as plain JSON. */
export type AdmissionWebhook = { name: string; [field: string]: JsonValue };

type JsonObject = { [key: string]: JsonValue };

/**
 * The fields of admissionregistration.k8s.io/v1 MutatingWebhook (ValidatingWebhook has all but
 * reinvocationPolicy), with the fields below them that a patch may set. `true` is a leaf; a nested
 * table describes an object (or the items of a list of objects).
 */
type Shape = true | { readonly [field: string]: Shape };
const LABEL_SELECTOR: Shape = {
  matchLabels: true,
  matchExpressions: { key: true, operator: true, values: true },
};
const WEBHOOK_SHAPE: { readonly [field: string]: Shape } = {
  name: true,
  clientConfig: {
    url: true,
    caBundle: true,
    service: { name: true, namespace: true, path: true, port: true },
  },
  rules: { apiGroups: true, apiVersions: true, resources: true, scope: true, operations: true },
  failurePolicy: true,
  matchPolicy: true,
  namespaceSelector: LABEL_SELECTOR,
  objectSelector: LABEL_SELECTOR,
  sideEffects: true,
  timeoutSeconds: true,
  admissionReviewVersions: true,
  reinvocationPolicy: true,
  matchConditions: { name: true, expression: true },
};
/** Lists merged item by item on this key (patchStrategy merge); every other list is replaced. */
const MERGE_KEYS: Readonly<Record<string, string>> = { matchConditions: 'name' };

const isObject = (v: JsonValue | undefined): v is JsonObject =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

function checkShape(value: JsonValue, shape: Shape, path: string, where: string): void {
  if (shape === true || value === null) return;
  const items = Array.isArray(value) ? value : [value];
  for (const item of items) {
    if (!isObject(item)) continue;
    for (const [key, sub] of Object.entries(item)) {
      if (key.startsWith('$')) {
        throw new OpGenError(
          `${where}: @webhook: patch: the directive ${key} is not supported. Write the fields' values; null removes a field`,
        );
      }
      const next = shape[key];
      if (next === undefined) {
        throw new OpGenError(
          `${where}: @webhook: patch: unknown field ${path}${key}. Known here: ${Object.keys(shape).join(', ')}`,
        );
      }
      checkShape(sub, next, `${path}${key}.`, where);
    }
  }
}

function merge(base: JsonValue | undefined, patch: JsonValue, field: string): JsonValue | undefined {
  if (patch === null) return undefined;
  if (isObject(patch)) {
    const out: JsonObject = isObject(base) ? { ...base } : {};
    for (const [key, value] of Object.entries(patch)) {
      const merged = merge(out[key], value, key);
      if (merged === undefined) delete out[key];
      else out[key] = merged;
    }
    return out;
  }
  const mergeKey = MERGE_KEYS[field];
  if (Array.isArray(patch) && mergeKey && Array.isArray(base)) {
    const out = [...base];
    for (const item of patch) {
      const key = isObject(item) ? item[mergeKey] : undefined;
      const at = out.findIndex((o) => isObject(o) && key !== undefined && o[mergeKey] === key);
      if (at < 0) out.push(item);
      else out[at] = merge(out[at], item, '') ?? item;
    }
    return out;
  }
  return patch;
}

/**
 * controller-gen's `patch=` argument: a strategic merge patch on the generated webhook. Objects
 * merge field by field, `null` removes a field, lists are replaced (matchConditions merge by name).
 * Unknown fields are errors, as they are in controller-gen v0.23.0.
 */
export function applyWebhookPatch(
  webhook: AdmissionWebhook,
  patch: JsonValue,
  mutating: boolean,
  where: string,
): AdmissionWebhook {
  if (!isObject(patch)) {
    throw new OpGenError(`${where}: @webhook: patch must be a JSON object, e.g. patch={"timeoutSeconds":5}`);
  }
  const shape = mutating
    ? WEBHOOK_SHAPE
    : Object.fromEntries(Object.entries(WEBHOOK_SHAPE).filter(([k]) => k !== 'reinvocationPolicy'));
  checkShape(patch, shape, '', where);
  const merged = merge(webhook as JsonObject, patch, '');
  if (!isObject(merged) || typeof merged.name !== 'string' || merged.name === '') {
    throw new OpGenError(`${where}: @webhook: patch removed the webhook's name. Keep name`);
  }
  return merged as AdmissionWebhook;
}
