/**
 * The JSON field operations of the fake API server: leaf paths (what a field manager owns), merge
 * patch (RFC 7386), JSON patch (RFC 6902, the operations controllers use) and server-side apply's
 * merge of an applied configuration.
 */
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

function pointer(path: string): string[] {
  if (path === '') return [];
  return path
    .slice(1)
    .split('/')
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
}

/** RFC 6902 add, remove, replace and test (what controllers send); a failed test is a 422. */
export function jsonPatch(target: unknown, ops: unknown): unknown {
  if (!Array.isArray(ops)) throw statusError(400, 'BadRequest', 'a JSON patch is a list of operations');
  const doc = structuredClone(target) as Json;
  for (const op of ops as { op: string; path: string; value?: unknown }[]) {
    const keys = pointer(op.path);
    const last = keys.pop();
    let parent: unknown = doc;
    for (const k of keys) parent = Array.isArray(parent) ? parent[Number(k)] : (parent as Json)?.[k];
    if (last === undefined || typeof parent !== 'object' || parent === null)
      throw statusError(422, 'Invalid', `the path ${op.path} does not exist`);
    const container = parent as Json | unknown[];
    const index = Array.isArray(container) ? (last === '-' ? container.length : Number(last)) : -1;
    switch (op.op) {
      case 'add':
        if (Array.isArray(container)) container.splice(index, 0, structuredClone(op.value));
        else (container as Json)[last] = structuredClone(op.value);
        break;
      case 'replace':
      case 'remove': {
        const exists = Array.isArray(container) ? index < container.length : Object.hasOwn(container, last);
        if (!exists) throw statusError(422, 'Invalid', `the path ${op.path} does not exist`);
        if (op.op === 'remove') {
          if (Array.isArray(container)) container.splice(index, 1);
          else delete (container as Json)[last];
        } else if (Array.isArray(container)) container[index] = structuredClone(op.value);
        else (container as Json)[last] = structuredClone(op.value);
        break;
      }
      case 'test': {
        const actual = Array.isArray(container) ? container[index] : (container as Json)[last];
        if (JSON.stringify(actual) !== JSON.stringify(op.value))
          throw statusError(422, 'Invalid', `the test at ${op.path} failed`);
        break;
      }
      default:
        throw statusError(400, 'BadRequest', `unsupported JSON patch operation ${op.op}`);
    }
  }
  return doc;
}

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
