import { isClusterScoped } from './cluster-scoped.ts';
import {
  appliesTo,
  COMMON_ANNOTATIONS,
  COMMON_LABELS,
  IMAGES,
  REPLICA_KINDS,
  TEMPLATE_LABELS,
  type FieldSpec,
} from './field-specs.ts';
import { visitPath } from './field-path.ts';
import { isObject, type Json, type JsonObject } from '../json/json.ts';
import { gvkOf, nameOf, priorNames, rename, setNamespace, type Resource } from './resource.ts';

/** Adds `pairs` to the map at every field spec that applies to the object. */
function addPairs(
  object: JsonObject,
  specs: readonly FieldSpec[],
  pairs: Readonly<Record<string, string>>,
): void {
  const { kind, group } = gvkOf(object);
  for (const spec of specs) {
    if (!appliesTo(spec, kind, group)) continue;
    visitPath(
      object,
      spec.path,
      (value) => {
        const map = isObject(value) ? value : {};
        for (const [k, v] of Object.entries(pairs)) map[k] = v;
        return map;
      },
      { create: spec.create },
    );
  }
}

/** `labels:` entry (pairs, includeSelectors, includeTemplates). */
export interface LabelEntry {
  readonly pairs: Readonly<Record<string, string>>;
  readonly includeSelectors: boolean;
  readonly includeTemplates: boolean;
}

export function applyLabels(resources: readonly Resource[], entry: LabelEntry): void {
  const specs = entry.includeSelectors
    ? COMMON_LABELS
    : entry.includeTemplates
      ? TEMPLATE_LABELS
      : [{ path: 'metadata/labels', create: true }];
  for (const r of resources) addPairs(r.object, specs, entry.pairs);
}

export function applyCommonLabels(
  resources: readonly Resource[],
  pairs: Readonly<Record<string, string>>,
): void {
  for (const r of resources) addPairs(r.object, COMMON_LABELS, pairs);
}

export function applyCommonAnnotations(
  resources: readonly Resource[],
  pairs: Readonly<Record<string, string>>,
): void {
  for (const r of resources) addPairs(r.object, COMMON_ANNOTATIONS, pairs);
}

/**
 * kustomize's namespace transformer: metadata.namespace of every namespaced object; a v1 Namespace
 * is renamed; a CRD's conversion webhook Service and an APIService's Service get the namespace;
 * binding subjects named `default` too.
 */
export function applyNamespace(resources: readonly Resource[], namespace: string): void {
  for (const r of resources) {
    const { kind, group } = gvkOf(r.object);
    if (!isClusterScoped(kind)) setNamespace(r, namespace);
    if (kind === 'Namespace' && r.object.apiVersion === 'v1') rename(r, namespace);
    if (kind === 'CustomResourceDefinition' && group === 'apiextensions.k8s.io') {
      visitPath(r.object, 'spec/conversion/webhook/clientConfig/service/namespace', () => namespace);
    }
    if (kind === 'APIService' && group === 'apiregistration.k8s.io') {
      visitPath(r.object, 'spec/service/namespace', () => namespace, { create: true });
    }
    if (kind === 'RoleBinding' || kind === 'ClusterRoleBinding') {
      const subjects = r.object.subjects;
      if (Array.isArray(subjects)) {
        for (const s of subjects) if (isObject(s) && s.name === 'default') s.namespace = namespace;
      }
    }
  }
}

const PREFIX_SKIPPED = new Set(['CustomResourceDefinition', 'APIService', 'Namespace']);

/** namePrefix / nameSuffix: metadata.name of every object but CRDs, APIServices and Namespaces. */
export function applyPrefixSuffix(resources: readonly Resource[], prefix: string, suffix: string): void {
  for (const r of resources) {
    const { kind } = gvkOf(r.object);
    // kustomize skips by the original kind, which a build never changes.
    if (PREFIX_SKIPPED.has(kind)) continue;
    rename(r, `${prefix}${nameOf(r.object)}${suffix}`);
  }
}

/** kustomize's `images:` entry. */
export interface ImageEntry {
  readonly name: string;
  readonly newName?: string;
  readonly newTag?: string;
  readonly digest?: string;
  readonly tagSuffix?: string;
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** kustomize's image.Split: name, tag and digest of a reference (the host's port is not a tag). */
export function splitImage(image: string): { name: string; tag: string; digest: string } {
  const slash = image.indexOf('/');
  const offset = slash > 0 ? slash : 0;
  const search = image.slice(offset);
  let at = search.indexOf('@');
  let colon = search.indexOf(':');
  if (colon < 0 && at < 0) return { name: image, tag: '', digest: '' };
  if (at >= 0 && (at < colon || colon < 0)) {
    at += offset;
    return { name: image.slice(0, at), tag: '', digest: image.slice(at + 1) };
  }
  if (at >= 0 && colon >= 0) {
    at += offset;
    colon += offset;
    return { name: image.slice(0, colon), tag: image.slice(colon + 1, at), digest: image.slice(at + 1) };
  }
  colon += offset;
  return { name: image.slice(0, colon), tag: image.slice(colon + 1), digest: '' };
}

/** The image reference after `entry`, or undefined when the entry does not name this image. */
export function updatedImage(image: string, entry: ImageEntry): string | undefined {
  // kustomize interpolates the name into a regular expression; names are plain references here.
  const pattern = new RegExp(
    `^${escapeRegExp(entry.name)}(:[a-zA-Z0-9_.{}-]*)?(@[a-zA-Z0-9]+([.+_-][a-zA-Z0-9]+)*:[a-zA-Z0-9_.{}-]*)?$`,
  );
  if (!pattern.test(image)) return undefined;
  let { name, tag, digest } = splitImage(image);
  if (entry.newName) name = entry.newName;
  if (entry.newTag && entry.digest) {
    tag = entry.newTag;
    digest = entry.digest;
  } else if (entry.newTag) {
    tag = entry.newTag;
    digest = '';
  } else if (entry.digest) {
    tag = '';
    digest = entry.digest;
  } else if (entry.tagSuffix) {
    tag += entry.tagSuffix;
    digest = '';
  }
  return `${name}${tag ? `:${tag}` : ''}${digest ? `@${digest}` : ''}`;
}

/** Every `containers`/`initContainers` list anywhere in the object (kustomize's legacy image filter). */
function visitContainerImages(node: Json, update: (image: string) => string | undefined): void {
  if (Array.isArray(node)) {
    for (const item of node) visitContainerImages(item, update);
    return;
  }
  if (!isObject(node)) return;
  for (const [key, value] of Object.entries(node)) {
    if ((key === 'containers' || key === 'initContainers') && Array.isArray(value)) {
      for (const c of value) {
        if (isObject(c) && typeof c.image === 'string') {
          const next = update(c.image);
          if (next !== undefined) c.image = next;
        }
      }
    }
    visitContainerImages(value, update);
  }
}

export function applyImages(resources: readonly Resource[], entries: readonly ImageEntry[]): void {
  for (const entry of entries) {
    for (const r of resources) {
      visitContainerImages(r.object, (image) => updatedImage(image, entry));
      for (const path of IMAGES) {
        visitPath(r.object, path, (value) =>
          typeof value === 'string' ? updatedImage(value, entry) : undefined,
        );
      }
    }
  }
}

/** `replicas:` — spec.replicas of the workloads with that name (current or earlier). */
export function applyReplicas(
  resources: readonly Resource[],
  entries: readonly { name: string; count: number }[],
): void {
  for (const entry of entries) {
    for (const r of resources) {
      const { kind } = gvkOf(r.object);
      if (!REPLICA_KINDS.includes(kind)) continue;
      if (nameOf(r.object) !== entry.name && !priorNames(r).includes(entry.name)) continue;
      const spec = isObject(r.object.spec) ? r.object.spec : (r.object.spec = {});
      spec.replicas = entry.count;
    }
  }
}
