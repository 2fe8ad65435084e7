import { isObject, type Json, type JsonObject } from '../json/json.ts';

/**
 * Visits the values at a kustomize field path (`spec/template/spec/containers[]/image`; `[]` and
 * lists met on the way are walked item by item, as kustomize's field specs do). With `create`,
 * missing maps on the way and the last field are created (the last as `{}` unless `leaf` is given).
 * `visit` returns the new value, or undefined to leave it.
 */
export function visitPath(
  object: JsonObject,
  path: string,
  visit: (value: Json | undefined, parent: JsonObject, key: string) => Json | undefined,
  options: { create?: boolean } = {},
): void {
  const segments = path
    .split(/(?<!\\)\//)
    .map((s) => s.replaceAll('\\/', '/').replace(/\[\]$/, ''))
    .filter((s) => s !== '');
  walk(object, segments, 0, visit, options.create === true);
}

function walk(
  node: Json | undefined,
  segments: readonly string[],
  at: number,
  visit: (value: Json | undefined, parent: JsonObject, key: string) => Json | undefined,
  create: boolean,
): void {
  if (Array.isArray(node)) {
    for (const item of node) walk(item, segments, at, visit, create);
    return;
  }
  if (!isObject(node)) return;
  const key = segments[at] as string;
  if (at === segments.length - 1) {
    if (!(key in node) && !create) return;
    const next = visit(node[key], node, key);
    if (next !== undefined) node[key] = next;
    return;
  }
  if (!(key in node) || node[key] === null) {
    if (!create) return;
    node[key] = {};
  }
  walk(node[key], segments, at + 1, visit, create);
}
