import { isObject, type Json, type JsonObject } from '../json/json.ts';

/** One object of a kustomize build, with the names it had before this build renamed it. */
export interface Resource {
  object: JsonObject;
  /** The file it was read from, relative to the project root. */
  readonly file: string;
  /** Every name it had before the current one (kustomize's previous ids), oldest first. */
  readonly previousNames: string[];
  readonly previousNamespaces: string[];
}

export interface Gvk {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
}

export function gvkOf(object: JsonObject): Gvk {
  const apiVersion = typeof object.apiVersion === 'string' ? object.apiVersion : '';
  const slash = apiVersion.indexOf('/');
  return {
    group: slash < 0 ? '' : apiVersion.slice(0, slash),
    version: slash < 0 ? apiVersion : apiVersion.slice(slash + 1),
    kind: typeof object.kind === 'string' ? object.kind : '',
  };
}

export function metadataOf(object: JsonObject): JsonObject {
  if (!isObject(object.metadata)) object.metadata = {};
  return object.metadata as JsonObject;
}

export function nameOf(object: JsonObject): string {
  const name = isObject(object.metadata) ? object.metadata.name : undefined;
  return typeof name === 'string' ? name : '';
}

export function namespaceOf(object: JsonObject): string {
  const ns = isObject(object.metadata) ? object.metadata.namespace : undefined;
  return typeof ns === 'string' ? ns : '';
}

/** Renames the object, remembering the old name (as kustomize's previous ids). */
export function rename(resource: Resource, name: string): void {
  const old = nameOf(resource.object);
  if (old === name) return;
  resource.previousNames.push(old);
  resource.previousNamespaces.push(namespaceOf(resource.object));
  metadataOf(resource.object).name = name;
}

export function setNamespace(resource: Resource, namespace: string): void {
  const old = namespaceOf(resource.object);
  if (old === namespace) return;
  resource.previousNames.push(nameOf(resource.object));
  resource.previousNamespaces.push(old);
  metadataOf(resource.object).namespace = namespace;
}

/** The names kustomize's name-reference filter matches a reference against. */
export function priorNames(resource: Resource): string[] {
  return resource.previousNames.length > 0 ? resource.previousNames : [nameOf(resource.object)];
}

/** `group_version_kind|namespace|name`, the id kustomize reports and deduplicates on. */
export function idOf(object: JsonObject): string {
  const g = gvkOf(object);
  return `${g.group ? `${g.group}/` : ''}${g.version}, Kind=${g.kind}, ${namespaceOf(object) || '[noNs]'}/${nameOf(object)}`;
}

export function asJson(value: unknown): Json {
  return value as Json;
}
