/**
 * RFC 6902 JSON patch from one JSON value to another: what a defaulting webhook answers with. Objects
 * are compared key by key (add, remove, replace, recursing into values present in both); arrays of
 * the same length element by element; arrays whose length changed are replaced whole (a patch the
 * API server applies exactly, if not the shortest).
 */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

export type PatchOperation =
  | { readonly op: 'add'; readonly path: string; readonly value: JsonValue }
  | { readonly op: 'remove'; readonly path: string }
  | { readonly op: 'replace'; readonly path: string; readonly value: JsonValue };

/** RFC 6901: `~` → `~0`, `/` → `~1`. */
export function escapePointerToken(token: string): string {
  return token.replaceAll('~', '~0').replaceAll('/', '~1');
}

function isObject(v: JsonValue): v is { [key: string]: JsonValue } {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** A plain object (not an array, not a Date or other class instance with toJSON). */
function isPlain(v: unknown): v is { [key: string]: JsonValue } {
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

/** Applies a patch made by createPatch (for tests and round-trip checks); returns a new value. */
export function applyPatch(doc: JsonValue, ops: readonly PatchOperation[]): JsonValue {
  let root = structuredClone(doc);
  for (const op of ops) {
    if (op.path === '') {
      if (op.op === 'remove') throw new Error('cannot remove the root');
      root = structuredClone(op.value);
      continue;
    }
    const tokens = op.path
      .slice(1)
      .split('/')
      .map((t) => t.replaceAll('~1', '/').replaceAll('~0', '~'));
    const last = tokens.pop()!;
    let parent: JsonValue = root;
    for (const t of tokens) {
      const next: JsonValue | undefined = Array.isArray(parent)
        ? parent[Number(t)]
        : isObject(parent)
          ? parent[t]
          : undefined;
      if (next === undefined) throw new Error(`path ${op.path} does not exist`);
      parent = next;
    }
    if (Array.isArray(parent)) {
      const i = Number(last);
      if (op.op === 'remove') parent.splice(i, 1);
      else if (op.op === 'add') parent.splice(i, 0, structuredClone(op.value));
      else parent[i] = structuredClone(op.value);
    } else if (isObject(parent)) {
      if (op.op === 'remove') delete parent[last];
      else parent[last] = structuredClone(op.value);
    } else throw new Error(`path ${op.path} does not exist`);
  }
  return root;
}
