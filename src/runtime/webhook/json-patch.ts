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

function diff(from: JsonValue, to: JsonValue, path: string, out: PatchOperation[]): void {
  if (from === to) return;
  if (isObject(from) && isObject(to)) {
    for (const key of Object.keys(from)) {
      if (!Object.hasOwn(to, key)) out.push({ op: 'remove', path: `${path}/${escapePointerToken(key)}` });
    }
    for (const key of Object.keys(to)) {
      const p = `${path}/${escapePointerToken(key)}`;
      if (!Object.hasOwn(from, key)) out.push({ op: 'add', path: p, value: to[key]! });
      else diff(from[key]!, to[key]!, p, out);
    }
    return;
  }
  if (Array.isArray(from) && Array.isArray(to) && from.length === to.length) {
    for (let i = 0; i < from.length; i++) diff(from[i]!, to[i]!, `${path}/${i}`, out);
    return;
  }
  if (typeof from === 'number' && typeof to === 'number' && Object.is(from, to)) return;
  out.push({ op: 'replace', path, value: to });
}

/** The operations that turn `from` into `to` (both plain JSON). */
export function createPatch(from: JsonValue, to: JsonValue): PatchOperation[] {
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
