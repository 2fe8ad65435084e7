/**
 * The JSON field operations of the fake API server: leaf paths (what a field manager owns), merge
 * patch (RFC 7386), JSON patch (RFC 6902) and server-side apply's
 * merge of an applied configuration.
 */
import {
  applyJsonPatch,
  JsonPatchError,
  type JsonPatchOperation,
  type JsonValue,
} from '../json/json-patch.ts';
import { statusError } from './fake-api-errors.ts';

/** A path of object keys to a leaf: a scalar, a list (owned whole) or an empty object. */
export type FieldPath = readonly string[];

type Json = Record<string, unknown>;

function isObject(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Every leaf path of `value`: nested object keys down to scalars, lists and empty objects. */
export function leafPaths(value: unknown, prefix: FieldPath = []): FieldPath[] {
  if (!isObject(value) || (Object.keys(value).length === 0 && prefix.length > 0)) return [prefix];
  return Object.entries(value).flatMap(([k, v]) => leafPaths(v, [...prefix, k]));
}

/** RFC 7386: objects merge key by key, `null` removes, everything else replaces. */
export function mergePatch(target: unknown, patch: unknown): unknown {
  if (!isObject(patch)) return structuredClone(patch);
  const out: Json = isObject(target) ? structuredClone(target) : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else out[k] = mergePatch(out[k], v);
  }
  return out;
}

/** RFC 6902 (json/json-patch.ts, op-gen's one implementation); a failed test or a missing path is a 422. */
export function jsonPatch(target: unknown, ops: unknown): unknown {
  if (!Array.isArray(ops)) throw statusError(400, 'BadRequest', 'a JSON patch is a list of operations');
  const doc = structuredClone(target) as JsonValue;
  for (const op of ops as JsonPatchOperation[]) {
    if (!JSON_PATCH_OPS.has(op.op))
      throw statusError(400, 'BadRequest', `unsupported JSON patch operation ${op.op}`);
    try {
      applyJsonPatch(doc, [op]);
    } catch (err) {
      if (!(err instanceof JsonPatchError)) throw err;
      throw op.op === 'test'
        ? statusError(422, 'Invalid', `the test at ${op.path} failed`)
        : statusError(422, 'Invalid', `the path ${op.path} does not exist: ${err.message}`);
    }
  }
  return doc;
}

const JSON_PATCH_OPS = new Set(['add', 'remove', 'replace', 'move', 'copy', 'test']);

function deepMerge(target: unknown, applied: unknown): unknown {
  if (!isObject(applied) || !isObject(target)) return structuredClone(applied);
  const out: Json = structuredClone(target);
  for (const [k, v] of Object.entries(applied)) out[k] = deepMerge(out[k], v);
  return out;
}

function removeAt(obj: Json, path: FieldPath): void {
  const [head, ...rest] = path;
  if (head === undefined) return;
  if (rest.length === 0) {
    delete obj[head];
    return;
  }
  const child = obj[head];
  if (!isObject(child)) return;
  removeAt(child, rest);
  if (Object.keys(child).length === 0) delete obj[head];
}

/**
 * Server-side apply's result: `current` without the `dropped` fields (set by this manager before,
 * not applied now, owned by no one else), with the applied configuration merged in (lists replaced
 * whole). `statusOnly`: only the applied status counts (an apply to the status subresource).
 */
export function applyFields(
  current: unknown,
  applied: unknown,
  dropped: readonly FieldPath[],
  statusOnly: boolean,
): Json {
  const out = structuredClone(current) as Json;
  for (const p of dropped) removeAt(out, p);
  const a = applied as Json;
  const { metadata, apiVersion: _v, kind: _k, status, ...rest } = a;
  if (statusOnly) return status === undefined ? out : (deepMerge(out, { status }) as Json);
  const meta = isObject(metadata) ? metadata : {};
  const { name: _n, namespace: _ns, resourceVersion: _rv, ...ownedMeta } = meta;
  return deepMerge(out, { ...rest, metadata: ownedMeta }) as Json;
}
