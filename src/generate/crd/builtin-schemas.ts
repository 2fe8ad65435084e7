import { readFileSync } from 'node:fs';
import { OpGenError } from '../../errors.ts';
import type { JSONSchemaProps } from '../../api-types/json-schema.ts';

/**
 * Structural schemas of Kubernetes' built-in types (fields typed with client-node's V1PodTemplateSpec,
 * V1ResourceRequirements, ...) exactly as controller-gen emits them for the Go types of k8s.io/api:
 * scripts/generate-k8s-schemas.ts runs controller-gen over every type of each supported release and
 * stores each type's schema once in data/k8s-schemas/v<minor>.json, a nested type as
 * `{$ref: <definition>, description: <the field's>}`; the $refs are inlined here.
 * See docs/generate-crd-builtin-types.md.
 */
interface Manifest {
  readonly default: string;
  readonly releases: Readonly<Record<string, { readonly kubernetes: string }>>;
}

/** A stored schema: controller-gen's, where a nested type may be a `$ref` with the field's overrides. */
type SourceSchema = JSONSchemaProps & { $ref?: string };

interface SchemaData {
  readonly kubernetes: string;
  readonly definitions: Readonly<Record<string, SourceSchema>>;
}

interface Release {
  readonly data: SchemaData;
  names?: Map<string, string>;
  readonly cache: Map<string, JSONSchemaProps | undefined>;
}

const dataDir = new URL('../../../data/k8s-schemas/', import.meta.url);
let manifest: Manifest | undefined;
const releases = new Map<string, Release>();

function loadManifest(): Manifest {
  manifest ??= JSON.parse(readFileSync(new URL('manifest.json', dataDir), 'utf8')) as Manifest;
  return manifest;
}

/** The supported Kubernetes minors (the releases of tools/envtest/versions.json), oldest first. */
export function k8sSchemaReleases(): readonly string[] {
  return Object.keys(loadManifest().releases);
}

/**
 * The release whose types op-gen embeds: OP_GEN_K8S_VERSION (a minor such as `1.35`, as for the test
 * control plane), else the newest supported release.
 */
export function selectedK8sRelease(): string {
  const m = loadManifest();
  const wanted = (process.env.OP_GEN_K8S_VERSION || m.default).replace(/^v/, '');
  const minor = wanted.split('.').slice(0, 2).join('.');
  if (!m.releases[minor]) {
    throw new OpGenError(
      `OP_GEN_K8S_VERSION=${wanted} is not a supported Kubernetes release; supported: ${k8sSchemaReleases().join(', ')}`,
    );
  }
  return minor;
}

function release(minor: string): Release {
  let r = releases.get(minor);
  if (!r) {
    const data = JSON.parse(readFileSync(new URL(`v${minor}.json`, dataDir), 'utf8')) as SchemaData;
    r = { data, cache: new Map() };
    releases.set(minor, r);
  }
  return r;
}

const cap = (s: string): string => s.charAt(0).toUpperCase() + s.slice(1);

/** Kubernetes' named string types (`type PullPolicy string`): a string schema without a format. */
const isNamedString = (s: SourceSchema): boolean =>
  s.type === 'string' && s.format === undefined && !s.pattern;

/**
 * client-node's model name for each definition: `V1PodTemplateSpec` for io.k8s.api.core.v1.PodTemplateSpec;
 * where two groups share a kind name at one version, the group comes first (`CoreV1Event`, `EventsV1Event`).
 * Named string types (`V1PullPolicy`, `V2MetricTargetType`) are named the same way after the object
 * types, so that they never rename one (`MetaV1ConditionStatus` and `CoreV1ConditionStatus`).
 */
export function clientNodeNames(minor: string = selectedK8sRelease()): Map<string, string> {
  const r = release(minor);
  if (r.names) return r.names;
  const names = new Map<string, string>();
  const defs = Object.entries(r.data.definitions);
  for (const strings of [false, true]) {
    const byBase = new Map<string, { def: string; group: string }[]>();
    for (const [def, schema] of defs) {
      if (isNamedString(schema) !== strings) continue;
      const m =
        /^io\.k8s\.(?:api\.([^.]+)|apimachinery\.pkg\.apis\.(meta))\.(v\d+(?:(?:alpha|beta)\d+)?)\.([A-Za-z0-9]+)$/.exec(
          def,
        );
      if (!m) continue;
      const group = m[1] ?? m[2] ?? '';
      const base = `${cap(m[3] ?? '')}${m[4] ?? ''}`;
      byBase.set(base, [...(byBase.get(base) ?? []), { def, group }]);
    }
    for (const [base, list] of byBase) {
      if (list.length === 1 && !names.has(base)) names.set(base, list[0]!.def);
      else for (const d of list) names.set(`${cap(d.group)}${base}`, d.def);
    }
  }
  r.names = names;
  return names;
}

/** Schema positions: the $refs below them are inlined too. */
function inline(
  schema: SourceSchema,
  definitions: SchemaData['definitions'],
  stack: readonly string[],
): JSONSchemaProps {
  const { $ref, ...own } = schema;
  if ($ref !== undefined) {
    const def = definitions[$ref];
    if (!def) throw new Error(`the Kubernetes schema data has no definition ${$ref}`);
    if (stack.includes($ref)) throw new Error(`the Kubernetes schema data has a cycle through ${$ref}`);
    // The field's own keys (its description) win over the type's.
    return { ...inline(def, definitions, [...stack, $ref]), ...own };
  }
  const out: JSONSchemaProps = { ...own };
  if (own.properties)
    out.properties = Object.fromEntries(
      Object.entries(own.properties).map(([k, v]) => [k, inline(v, definitions, stack)]),
    );
  if (own.items) out.items = inline(own.items, definitions, stack);
  if (typeof own.additionalProperties === 'object')
    out.additionalProperties = inline(own.additionalProperties, definitions, stack);
  for (const k of ['anyOf', 'allOf', 'oneOf'] as const) {
    const list = own[k];
    if (list) out[k] = list.map((s) => inline(s, definitions, stack));
  }
  return out;
}

/**
 * The inlined structural schema of a client-node model (e.g. `V1PodTemplateSpec`, or a named string type
 * such as `V1PullPolicy`) at the selected release, or undefined.
 */
export function builtinSchemaFor(
  typeName: string,
  minor: string = selectedK8sRelease(),
): JSONSchemaProps | undefined {
  const r = release(minor);
  if (!r.cache.has(typeName)) {
    const def = clientNodeNames(minor).get(typeName);
    r.cache.set(typeName, def ? inline({ $ref: def }, r.data.definitions, []) : undefined);
  }
  const schema = r.cache.get(typeName);
  return schema === undefined ? undefined : structuredClone(schema);
}
