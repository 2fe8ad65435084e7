/**
 * RFC 6902 JSON Patch, the one implementation: kustomize/ applies the `patches` of a kustomization
 * with applyJsonPatch; the runtime's defaulting webhooks answer with createPatch's operations
 * (and tests check them with applyPatch). RFC 6901 pointers, `~0`/`~1` escapes.
 */
import { deepEqual, isObject, type Json, type JsonObject, type JsonValue } from './json.ts';

export type { JsonValue } from './json.ts';

/** One RFC 6902 operation. */
export interface JsonPatchOperation {
  readonly op: string;
  readonly path: string;
  readonly from?: string;
  readonly value?: Json;
}

export class JsonPatchError extends Error {}

function tokens(pointer: string): string[] {
  if (pointer === '') return [];
  if (!pointer.startsWith('/')) throw new JsonPatchError(`path ${pointer} must start with /`);
  return pointer
    .slice(1)
    .split('/')
    .map((t) => t.replaceAll('~1', '/').replaceAll('~0', '~'));
}

function index(list: Json[], token: string, forAdd: boolean, path: string): number {
  if (forAdd && token === '-') return list.length;
  if (!/^(0|[1-9][0-9]*)$/.test(token)) throw new JsonPatchError(`${path}: ${token} is not a list index`);
  const i = Number(token);
  if (i > list.length || (!forAdd && i === list.length))
    throw new JsonPatchError(`${path}: index ${i} is out of range (the list has ${list.length} items)`);
  return i;
}

function parentOf(doc: Json, path: string): { parent: Json; last: string } {
  const ts = tokens(path);
  if (ts.length === 0) throw new JsonPatchError('the whole document cannot be the target');
  let node = doc;
  for (const t of ts.slice(0, -1)) {
    if (Array.isArray(node)) node = node[index(node, t, false, path)] as Json;
    else if (isObject(node) && t in node) node = node[t] as Json;
    else throw new JsonPatchError(`${path}: ${t} does not exist`);
  }
  return { parent: node, last: ts.at(-1) as string };
}

function get(doc: Json, path: string): Json {
  let node = doc;
  for (const t of tokens(path)) {
    if (Array.isArray(node)) node = node[index(node, t, false, path)] as Json;
    else if (isObject(node) && t in node) node = node[t] as Json;
    else throw new JsonPatchError(`${path} does not exist`);
  }
  return node;
}

function add(doc: Json, path: string, value: Json): void {
  const { parent, last } = parentOf(doc, path);
  if (Array.isArray(parent)) parent.splice(index(parent, last, true, path), 0, value);
  else if (isObject(parent)) parent[last] = value;
  else throw new JsonPatchError(`${path}: the parent is not an object or list`);
}

function remove(doc: Json, path: string): Json {
  const { parent, last } = parentOf(doc, path);
  if (Array.isArray(parent)) return parent.splice(index(parent, last, false, path), 1)[0] as Json;
  if (isObject(parent) && last in parent) {
    const old = parent[last] as Json;
    delete parent[last];
    return old;
  }
  throw new JsonPatchError(`${path} does not exist`);
}

/** Applies the operations in place (the document must be an object); throws JsonPatchError. */
export function applyJsonPatch(doc: Json, operations: readonly JsonPatchOperation[]): void {
  for (const o of operations) {
    switch (o.op) {
      case 'add':
        add(doc, o.path, structuredClone(o.value ?? null));
        break;
      case 'remove':
        remove(doc, o.path);
        break;
      case 'replace':
        remove(doc, o.path);
        add(doc, o.path, structuredClone(o.value ?? null));
        break;
      case 'move': {
        const value = remove(doc, o.from ?? '');
        add(doc, o.path, value);
        break;
      }
      case 'copy':
        add(doc, o.path, structuredClone(get(doc, o.from ?? '')));
        break;
      case 'test':
        if (!deepEqual(get(doc, o.path), o.value ?? null))
          throw new JsonPatchError(`test failed at ${o.path}`);
        break;
      default:
        throw new JsonPatchError(`unknown op ${o.op}`);
    }
  }
}

/**
 * Making a patch from one JSON value to another: what a defaulting webhook answers with. Objects
 * are compared key by key (add, remove, replace, recursing into values present in both); arrays of
 * the same length element by element; arrays whose length changed are replaced whole (a patch the
 * API server applies exactly, if not the shortest).
 */
export type PatchOperation =
  | { readonly op: 'add'; readonly path: string; readonly value: JsonValue }
  | { readonly op: 'remove'; readonly path: string }
  | { readonly op: 'replace'; readonly path: string; readonly value: JsonValue };

/** RFC 6901: `~` → `~0`, `/` → `~1`. */
export function escapePointerToken(token: string): string {
  return token.replaceAll('~', '~0').replaceAll('/', '~1');
}

/** A plain object (not an array, not a Date or other class instance with toJSON). */
function isPlain(v: unknown): v is JsonObject {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return false;
  const proto = Object.getPrototypeOf(v) as unknown;
  return proto === Object.prototype || proto === null;
}

/** What JSON.stringify would make of a value the handler set (Dates, undefined in arrays, ...). */
function asJson(v: unknown): JsonValue {
  if (v === null || typeof v === 'string' || typeof v === 'boolean') return v;
  if (typeof v === 'number') return Number.isFinite(v) ? v : null;
  return JSON.parse(JSON.stringify(v) ?? 'null') as JsonValue;
}

/** A key whose value is undefined (or a function) is absent, as in JSON. */
const present = (v: unknown): boolean => v !== undefined && typeof v !== 'function' && typeof v !== 'symbol';

function diff(from: JsonValue, to: unknown, path: string, out: PatchOperation[]): void {
  if (from === to) return;
  if (isObject(from) && isPlain(to)) {
    for (const key of Object.keys(from)) {
      if (!Object.hasOwn(to, key) || !present(to[key]))
        out.push({ op: 'remove', path: `${path}/${escapePointerToken(key)}` });
    }
    for (const key of Object.keys(to)) {
      const value = to[key];
      if (!present(value)) continue;
      const p = `${path}/${escapePointerToken(key)}`;
      if (!Object.hasOwn(from, key)) out.push({ op: 'add', path: p, value: asJson(value) });
      else diff(from[key]!, value, p, out);
    }
    return;
  }
  if (Array.isArray(from) && Array.isArray(to) && from.length === to.length && to.every(present)) {
    for (let i = 0; i < from.length; i++) diff(from[i]!, to[i] as unknown, `${path}/${i}`, out);
    return;
  }
  const value = asJson(to);
  if (
    typeof value !== 'object' || value === null
      ? value === from
      : JSON.stringify(value) === JSON.stringify(from)
  )
    return;
  out.push({ op: 'replace', path, value });
}

/**
 * The operations that turn `from` (plain JSON) into `to` as JSON.stringify would write it: keys set
 * to undefined are absent, a Date becomes its ISO string.
 */
export function createPatch(from: JsonValue, to: unknown): PatchOperation[] {
  const out: PatchOperation[] = [];
  diff(from, to, '', out);
  return out;
}

/**
 * Applies a patch made by createPatch (for tests and round-trip checks) to a copy of `doc` and
 * returns it; unlike applyJsonPatch, an operation on the whole document (path '') replaces it.
 */
export function applyPatch(doc: JsonValue, ops: readonly PatchOperation[]): JsonValue {
  let root = structuredClone(doc);
  for (const op of ops) {
    if (op.path === '') {
      if (op.op === 'remove') throw new JsonPatchError('cannot remove the root');
      root = structuredClone(op.value);
    } else applyJsonPatch(root, [op]);
  }
  return root;
}
