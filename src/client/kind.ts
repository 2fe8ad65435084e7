/**
 * A kind descriptor: everything needed to address a resource over REST, plus the TypeScript type of
 * its objects (phantom). Written as object literals (`defineKind`, `builtinKinds`) so generators can
 * read group/plural statically.
 */
export interface Kind<T = unknown> {
  /** API group; '' for the core group. */
  readonly group: string;
  readonly version: string;
  readonly kind: string;
  readonly plural: string;
  readonly namespaced: boolean;
  /** Phantom: never set at run time. */
  readonly __type?: T;
}

export interface KindSpec {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
  readonly plural: string;
  readonly namespaced: boolean;
}

/** Declares the kind of a custom resource; `T` is its TypeScript type. */
export function defineKind<T>(spec: KindSpec): Kind<T> {
  return Object.freeze({ ...spec });
}

/** `apps/v1`, `v1`, `cache.example.com/v1alpha1`. */
export function apiVersionOf(kind: KindSpec): string {
  return kind.group === '' ? kind.version : `${kind.group}/${kind.version}`;
}

/** A stable identity for maps keyed by kind. */
export function kindKey(kind: KindSpec): string {
  return `${kind.group}/${kind.version}/${kind.kind}`;
}

/** The REST collection path, e.g. /apis/apps/v1/namespaces/ns/deployments. */
export function collectionPath(kind: KindSpec, namespace?: string): string {
  const base = kind.group === '' ? `/api/${kind.version}` : `/apis/${kind.group}/${kind.version}`;
  if (kind.namespaced && namespace)
    return `${base}/namespaces/${encodeURIComponent(namespace)}/${kind.plural}`;
  return `${base}/${kind.plural}`;
}

export function objectPath(
  kind: KindSpec,
  namespace: string | undefined,
  name: string,
  subresource?: string,
): string {
  if (kind.namespaced && !namespace) {
    throw new Error(`${kind.kind} is namespaced: a namespace is needed to address ${name}`);
  }
  const path = `${collectionPath(kind, namespace)}/${encodeURIComponent(name)}`;
  return subresource ? `${path}/${subresource}` : path;
}
