import { OpGenError } from '../../errors.ts';
import { ProblemCollector } from '../../shared/problems.ts';
import type { CrdMarker } from './markers.ts';
import { opGenVersion } from '../../version.ts';
import type { KindVersion } from './model.ts';
import type { JSONSchemaProps } from '../../api-types/json-schema.ts';
import { truncateDescriptions } from './structural.ts';
import { compareNames } from '../../shared/compare-names.ts';

/** The annotation carrying the op-gen version that wrote a CRD. */
export const VERSION_ANNOTATION = 'op-gen.io/version';

export interface CustomResourceDefinition {
  apiVersion: 'apiextensions.k8s.io/v1';
  kind: 'CustomResourceDefinition';
  metadata: { name: string; annotations: Record<string, string>; labels?: Record<string, string> };
  spec: {
    group: string;
    names: {
      kind: string;
      listKind: string;
      plural: string;
      singular: string;
      shortNames?: string[];
      categories?: string[];
    };
    scope: 'Namespaced' | 'Cluster';
    versions: CrdVersion[];
  };
}

interface CrdVersion {
  name: string;
  served: boolean;
  storage: boolean;
  deprecated?: boolean;
  deprecationWarning?: string;
  schema: { openAPIV3Schema: JSONSchemaProps };
  subresources?: {
    status?: Record<string, never>;
    scale?: { specReplicasPath: string; statusReplicasPath: string; labelSelectorPath?: string };
  };
  additionalPrinterColumns?: {
    name: string;
    type: string;
    jsonPath: string;
    description?: string;
    format?: string;
    priority?: number;
  }[];
  selectableFields?: { jsonPath: string }[];
}

const where = (k: KindVersion): string => `${k.location.file}:${k.location.line}: ${k.kind} (${k.version})`;

function pairs(markers: readonly CrdMarker[], key: 'annotations' | 'labels'): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of markers) {
    for (const item of (m.args[key] as string[] | undefined) ?? []) {
      const eq = item.indexOf('=');
      if (eq <= 0)
        throw new OpGenError(
          `${m.location.file}:${m.location.line}: @metadata ${key}: "${item}" is not key=value`,
        );
      out[item.slice(0, eq)] = item.slice(eq + 1);
    }
  }
  return out;
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

/** Groups kind versions into one CRD per group+kind and checks the versions agree. */
export function assembleCrds(
  kinds: readonly KindVersion[],
  options: { maxDescLen?: number },
): CustomResourceDefinition[] {
  // Every problem of every kind is reported in one run; the CRDs are returned only without any.
  const problems = new ProblemCollector();
  const byKind = new Map<string, KindVersion[]>();
  for (const k of kinds) {
    const key = `${k.group}/${k.kind}`;
    const list = byKind.get(key) ?? [];
    const dup = list.find((x) => x.version === k.version);
    if (dup) {
      problems.add(
        `${where(k)}: kind ${k.kind} is declared twice in ${k.group}/${k.version} (also at ${dup.location.file}:${dup.location.line}). Keep one.`,
      );
      continue;
    }
    list.push(k);
    byKind.set(key, list);
  }
  const crds: CustomResourceDefinition[] = [];
  const names = new Map<string, KindVersion>();
  for (const versions of byKind.values()) {
    const crd = problems.attempt(() => assembleCrd(versions, names, options), undefined);
    if (crd) crds.push(crd);
  }
  problems.throwIfAny();
  return crds.sort((a, b) => compareNames(a.metadata.name, b.metadata.name));
}

/** One CRD from the versions of one kind, after checking they agree. */
function assembleCrd(
  versions: KindVersion[],
  names: Map<string, KindVersion>,
  options: { maxDescLen?: number },
): CustomResourceDefinition | undefined {
  versions.sort((a, b) => compareNames(a.version, b.version));
  const first = versions[0];
  if (!first) return undefined;
  for (const v of versions.slice(1)) {
    for (const [what, a, b] of [
      ['plural', first.plural, v.plural],
      ['singular', first.singular, v.singular],
      ['scope', first.namespaced ? 'Namespaced' : 'Cluster', v.namespaced ? 'Namespaced' : 'Cluster'],
    ] as const) {
      if (a !== b)
        throw new OpGenError(
          `${where(v)}: ${what} "${b}" differs from ${first.version}'s "${a}". All versions of a kind share one ${what}.`,
        );
    }
    if (!sameList(first.shortNames, v.shortNames) || !sameList(first.categories, v.categories)) {
      throw new OpGenError(
        `${where(v)}: short names or categories differ from ${first.version}'s. Put the same @shortName/@categories on every version.`,
      );
    }
  }
  const storage = versions.filter((v) => v.storage);
  if (versions.length > 1 && storage.length !== 1) {
    const list = versions.map((v) => `${v.version} (${v.location.file}:${v.location.line})`).join(', ');
    // The line to point at: the first version (none marked) or the second one marked.
    const at = (storage[1] ?? first).location;
    throw new OpGenError(
      `${at.file}:${at.line}: ${first.kind}.${first.group}: ${storage.length === 0 ? 'no version is' : `${storage.length} versions are`} marked @storageversion among ${list}. Mark exactly one version's kind with @storageversion.`,
    );
  }
  const name = `${first.plural}.${first.group}`;
  const clash = names.get(name);
  if (clash)
    throw new OpGenError(
      `${where(first)}: plural "${first.plural}" is also used by kind ${clash.kind} in ${first.group}. Set a different @plural.`,
    );
  names.set(name, first);

  const allMarkers = versions.flatMap((v) => v.markers.filter((m) => m.spec.name === 'metadata'));
  const labels = pairs(allMarkers, 'labels');
  const annotations = { ...pairs(allMarkers, 'annotations'), [VERSION_ANNOTATION]: opGenVersion() };
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name, annotations, ...(Object.keys(labels).length > 0 ? { labels } : {}) },
    spec: {
      group: first.group,
      names: {
        kind: first.kind,
        listKind: `${first.kind}List`,
        plural: first.plural,
        singular: first.singular,
        ...(first.shortNames.length > 0 ? { shortNames: [...first.shortNames] } : {}),
        ...(first.categories.length > 0 ? { categories: [...first.categories] } : {}),
      },
      scope: first.namespaced ? 'Namespaced' : 'Cluster',
      versions: versions.map((v) => crdVersion(v, versions.length === 1 || v.storage, options.maxDescLen)),
    },
  };
}

function crdVersion(k: KindVersion, storage: boolean, maxDescLen: number | undefined): CrdVersion {
  const one = (name: string): CrdMarker | undefined => k.markers.find((m) => m.spec.name === name);
  const all = (name: string): CrdMarker[] => k.markers.filter((m) => m.spec.name === name);
  const schema = maxDescLen === undefined ? k.schema : truncateDescriptions(k.schema, maxDescLen);
  const out: CrdVersion = { name: k.version, served: k.served, storage, schema: { openAPIV3Schema: schema } };
  const deprecated = one('deprecatedversion');
  if (deprecated) {
    out.deprecated = true;
    if (deprecated.args.warning !== undefined) out.deprecationWarning = String(deprecated.args.warning);
  }
  const status = one('subresource status');
  const scale = one('subresource scale');
  if (status && !k.schema.properties?.status) {
    throw new OpGenError(
      `${status.location.file}:${status.location.line}: @subresource status: ${k.kind} has no status field. Add \`status?: ${k.kind}Status\`.`,
    );
  }
  const columns = all('printcolumn');
  // As controller-gen: `subresources` exists when a status, scale or printcolumn marker made it
  // (`subresources: {}` for printer columns alone), and is left out otherwise.
  if (status || scale || columns.length > 0) out.subresources = {};
  if (status && out.subresources) out.subresources.status = {};
  if (scale && out.subresources) {
    out.subresources.scale = {
      specReplicasPath: String(scale.args.specpath),
      statusReplicasPath: String(scale.args.statuspath),
      ...(scale.args.selectorpath === undefined
        ? {}
        : { labelSelectorPath: String(scale.args.selectorpath) }),
    };
  }
  if (columns.length > 0) {
    out.additionalPrinterColumns = columns.map((m) => {
      const a = m.args;
      return {
        name: String(a.name),
        type: String(a.type),
        jsonPath: String(a.jsonPath),
        // controller-gen leaves an empty description out (omitempty), as the API server reads it.
        ...(a.description === undefined || String(a.description) === ''
          ? {}
          : { description: String(a.description) }),
        ...(a.format === undefined ? {} : { format: String(a.format) }),
        // controller-gen leaves a priority of 0 (the default view) out.
        ...(a.priority === undefined || Number(a.priority) === 0 ? {} : { priority: Number(a.priority) }),
      };
    });
  }
  const selectable = all('selectableField');
  if (selectable.length > 0)
    out.selectableFields = selectable.map((m) => ({ jsonPath: String(m.args.jsonPath) }));
  return out;
}
