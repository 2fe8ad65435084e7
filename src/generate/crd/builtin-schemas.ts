import { readFileSync } from 'node:fs';
import type { JsonValue } from '../../markers/index.ts';
import type { JSONSchemaProps } from '../../api-types/json-schema.ts';

/**
 * Structural schemas of Kubernetes' built-in types (fields typed with client-node's V1PodTemplateSpec,
 * V1ResourceRequirements, ...), as controller-gen emits them for the Go types. The source is the
 * OpenAPI v3 served by the real kube-apiserver, extracted by scripts/extract-k8s-schemas.ts into
 * data/k8s-schemas/v1.37.json; $refs are inlined here. Differences from controller-gen, by design of
 * the source: descriptions are the served text (Go comments with line breaks joined by spaces; the
 * "Possible enum values" appendix is cut), see docs/generate-crd-builtin-types.md.
 */
export const K8S_SCHEMAS_VERSION = 'v1.37';

interface SourceSchema {
  type?: string;
  format?: string;
  description?: string;
  properties?: Record<string, SourceSchema>;
  additionalProperties?: SourceSchema | boolean;
  items?: SourceSchema;
  required?: string[];
  default?: JsonValue;
  allOf?: SourceSchema[];
  $ref?: string;
  [key: string]: unknown;
}

interface SchemaData {
  readonly kubernetes: string;
  readonly definitions: Record<string, SourceSchema>;
}

let data: SchemaData | undefined;
let names: Map<string, string> | undefined;

function load(): SchemaData {
  data ??= JSON.parse(
    readFileSync(new URL(`../../../data/k8s-schemas/${K8S_SCHEMAS_VERSION}.json`, import.meta.url), 'utf8'),
  ) as SchemaData;
  return data;
}

const cap = (s: string): string => s.charAt(0).toUpperCase() + s.slice(1);

/**
 * client-node's model name for each definition: `V1PodTemplateSpec` for io.k8s.api.core.v1.PodTemplateSpec;
 * where two groups share a kind name at one version, the group comes first (`CoreV1Event`, `EventsV1Event`).
 */
export function clientNodeNames(): Map<string, string> {
  if (names) return names;
  const byBase = new Map<string, { def: string; group: string }[]>();
  for (const def of Object.keys(load().definitions)) {
    const m =
      /^io\.k8s\.(?:api\.([^.]+)|apimachinery\.pkg\.apis\.(meta))\.(v\d+(?:(?:alpha|beta)\d+)?)\.([A-Za-z0-9]+)$/.exec(
        def,
      );
    if (!m) continue;
    const group = m[1] ?? m[2] ?? '';
    const base = `${cap(m[3] ?? '')}${m[4] ?? ''}`;
    byBase.set(base, [...(byBase.get(base) ?? []), { def, group }]);
  }
  names = new Map();
  for (const [base, defs] of byBase) {
    if (defs.length === 1) names.set(base, defs[0]!.def);
    else for (const d of defs) names.set(`${cap(d.group)}${base}`, d.def);
  }
  return names;
}

const QUANTITY_PATTERN =
  '^(\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))))?$';

/** Types controller-gen maps specially, as it does for the Go types. */
const SPECIAL: Readonly<Record<string, () => JSONSchemaProps>> = {
  'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta': () => ({ type: 'object' }),
  'io.k8s.apimachinery.pkg.api.resource.Quantity': () => ({
    anyOf: [{ type: 'integer' }, { type: 'string' }],
    pattern: QUANTITY_PATTERN,
    'x-kubernetes-int-or-string': true,
  }),
  'io.k8s.apimachinery.pkg.util.intstr.IntOrString': () => ({
    anyOf: [{ type: 'integer' }, { type: 'string' }],
    'x-kubernetes-int-or-string': true,
  }),
  'io.k8s.apimachinery.pkg.apis.meta.v1.Time': () => ({ type: 'string', format: 'date-time' }),
  'io.k8s.apimachinery.pkg.apis.meta.v1.MicroTime': () => ({ type: 'string', format: 'date-time' }),
  'io.k8s.apimachinery.pkg.apis.meta.v1.Duration': () => ({ type: 'string' }),
  'io.k8s.apimachinery.pkg.runtime.RawExtension': () => ({
    type: 'object',
    'x-kubernetes-preserve-unknown-fields': true,
  }),
};

/** Validations controller-gen v0.23 reads from Kubernetes' declarative-validation markers (`+k8s:...`). */
type K8sValidation = Pick<JSONSchemaProps, 'minLength' | 'minimum' | 'maximum' | 'maxItems'>;

/** `+k8s:required` on a string field: controller-gen adds `minLength: 1`. */
const REQUIRED_STRING: K8sValidation = { minLength: 1 };

/**
 * Where the served OpenAPI (v1.34 to v1.37) lost a Go marker that controller-gen reads: `+structType=atomic`
 * on these types, `+default=ref(...)` values controller-gen cannot resolve (so it emits none), and (since
 * v1.37) the declarative-validation markers `+k8s:required` (on strings), `+k8s:minimum`, `+k8s:maximum`
 * and `+k8s:maxItems` of k8s.io/api v0.37 (those not gated by `+k8s:alpha`/`+k8s:beta`, which
 * controller-gen skips too). Every entry must name an existing definition and property
 * (test/unit/crd/builtin-schemas.test.ts checks).
 */
export const GO_MARKER_FIXES: Readonly<
  Record<
    string,
    {
      mapType?: 'atomic';
      dropDefaults?: readonly string[];
      itemDescriptions?: Readonly<Record<string, string>>;
      validations?: Readonly<Record<string, K8sValidation>>;
    }
  >
> = {
  // Lists of a named string type: controller-gen describes the items with the type's Go comment.
  'io.k8s.api.core.v1.Capabilities': {
    itemDescriptions: {
      add: 'Capability represent POSIX capabilities type',
      drop: 'Capability represent POSIX capabilities type',
    },
  },
  'io.k8s.api.core.v1.ConfigMapEnvSource': { mapType: 'atomic' },
  'io.k8s.api.core.v1.SecretEnvSource': { mapType: 'atomic' },
  'io.k8s.api.core.v1.ConfigMapVolumeSource': { mapType: 'atomic' },
  'io.k8s.api.core.v1.ConfigMapProjection': { mapType: 'atomic' },
  'io.k8s.api.core.v1.SecretProjection': { mapType: 'atomic' },
  'io.k8s.api.core.v1.AzureDiskVolumeSource': { dropDefaults: ['cachingMode', 'kind'] },
  // Declarative validation (k8s.io/api v0.37.2).
  'io.k8s.api.core.v1.PodSpec': { validations: { evictionResponders: { maxItems: 10 } } },
  'io.k8s.api.core.v1.EvictionResponder': {
    validations: { name: REQUIRED_STRING, priority: { minimum: 0, maximum: 100000 } },
  },
  'io.k8s.api.core.v1.VolumeHealthCondition': {
    validations: { status: REQUIRED_STRING, reason: REQUIRED_STRING },
  },
  'io.k8s.api.core.v1.VolumeHealthStatus': { validations: { healthConditions: { maxItems: 16 } } },
  'io.k8s.api.core.v1.PodVolumeHealth': {
    validations: { name: REQUIRED_STRING, healthConditions: { maxItems: 16 } },
  },
  'io.k8s.api.core.v1.NodePodPreemptionPolicy': {
    validations: { disableResizePreemption: { maxItems: 20 } },
  },
  'io.k8s.api.core.v1.NodeAllocatableResourceClaimStatus': {
    validations: { resourceClaimName: REQUIRED_STRING },
  },
  'io.k8s.api.core.v1.NodeAllocatableMappedResources': { validations: { name: REQUIRED_STRING } },
  'io.k8s.api.core.v1.NodeAllocatableOverheadResources': { validations: { name: REQUIRED_STRING } },
  'io.k8s.api.batch.v1.JobSchedulingConfiguration': { validations: { resourceClaims: { maxItems: 4 } } },
  'io.k8s.api.resource.v1.DeviceCounterConsumption': {
    validations: { compatibilityGroups: { maxItems: 2 } },
  },
  'io.k8s.api.resource.v1.ExactDeviceRequest': { validations: { derivedAttributes: { maxItems: 32 } } },
  'io.k8s.api.resource.v1.DeviceSubRequest': { validations: { derivedAttributes: { maxItems: 32 } } },
  'io.k8s.api.resource.v1.DeviceDerivedAttribute': {
    validations: { name: REQUIRED_STRING, expression: REQUIRED_STRING },
  },
};

function cleanDescription(text: string): string {
  return text.replace(/\n\nPossible enum values:[\s\S]*$/, '').trim();
}

/**
 * controller-gen emits defaults from +default markers only. The served OpenAPI adds zero values for
 * required fields and `{}` for struct fields; those are dropped, scalar defaults of optional fields kept.
 */
function keptDefault(value: JsonValue | undefined, required: boolean): boolean {
  if (value === undefined || value === null || required) return false;
  if (Array.isArray(value)) return value.length > 0;
  if (typeof value === 'object') return Object.keys(value).length > 0;
  return true;
}

const PASSTHROUGH = [
  'format',
  'minimum',
  'maximum',
  'pattern',
  'minLength',
  'maxLength',
  'minItems',
  'maxItems',
  'nullable',
  'x-kubernetes-list-type',
  'x-kubernetes-list-map-keys',
  'x-kubernetes-map-type',
  'x-kubernetes-int-or-string',
  'x-kubernetes-preserve-unknown-fields',
  'x-kubernetes-embedded-resource',
] as const;

function convert(schema: SourceSchema, stack: readonly string[], required = false): JSONSchemaProps {
  const ref = schema.$ref ?? (schema.allOf?.length === 1 ? schema.allOf[0]?.$ref : undefined);
  let out: JSONSchemaProps;
  if (ref) {
    out = convertDefinition(ref.replace(/^#\/components\/schemas\//, ''), stack);
  } else {
    out = {};
    if (schema.type) out.type = schema.type as JSONSchemaProps['type'];
    for (const key of PASSTHROUGH)
      if (schema[key] !== undefined) (out as Record<string, unknown>)[key] = schema[key];
    if (schema.properties) {
      out.properties = {};
      const req = new Set(schema.required ?? []);
      for (const [name, prop] of Object.entries(schema.properties))
        out.properties[name] = convert(prop, stack, req.has(name));
    }
    // List elements and map values carry openapi-gen's zero defaults too: never kept.
    if (typeof schema.additionalProperties === 'object')
      out.additionalProperties = convert(schema.additionalProperties, stack, true);
    if (schema.items) out.items = convert(schema.items, stack, true);
    if (schema.required?.length) out.required = [...schema.required].sort();
  }
  // The referencing property's own description and default win over the referenced type's.
  if (schema.description) out.description = cleanDescription(schema.description);
  if (keptDefault(schema.default, required)) out.default = schema.default as JsonValue;
  return out;
}

function convertDefinition(name: string, stack: readonly string[]): JSONSchemaProps {
  const special = SPECIAL[name];
  if (special) return special();
  const def = load().definitions[name];
  if (!def) throw new Error(`the Kubernetes schema data has no definition ${name}`);
  if (stack.includes(name)) return { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };
  const out = convert(def, [...stack, name]);
  const fix = GO_MARKER_FIXES[name];
  if (fix?.mapType) out['x-kubernetes-map-type'] = fix.mapType;
  for (const prop of fix?.dropDefaults ?? []) if (out.properties?.[prop]) delete out.properties[prop].default;
  for (const [prop, text] of Object.entries(fix?.itemDescriptions ?? {})) {
    const items = out.properties?.[prop]?.items;
    if (items) items.description = text;
  }
  for (const [prop, validation] of Object.entries(fix?.validations ?? {})) {
    const target = out.properties?.[prop];
    if (target) Object.assign(target, validation);
  }
  return out;
}

const cache = new Map<string, JSONSchemaProps | undefined>();

/** The inlined structural schema of a client-node model (e.g. `V1PodTemplateSpec`), or undefined. */
export function builtinSchemaFor(typeName: string): JSONSchemaProps | undefined {
  if (!cache.has(typeName)) {
    const def = clientNodeNames().get(typeName);
    cache.set(typeName, def ? convertDefinition(def, []) : undefined);
  }
  const schema = cache.get(typeName);
  return schema === undefined ? undefined : structuredClone(schema);
}
