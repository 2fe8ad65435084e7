import { deepEqual, isObject, type Json } from './json.ts';

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
