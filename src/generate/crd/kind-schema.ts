/**
 * A kind from the type model: its names and scope, its root schema and its versions' flags. The rules
 * of a kind's own fields (`apiVersion`, `kind`, `metadata`) are here, once, for both front ends.
 */
import type { JSONSchemaProps } from '../../api-types/json-schema.ts';
import { dns1035LabelErrors } from '../../k8s-names/dns.ts';
import { pluralize } from '../../k8s-names/pluralize.ts';
import type { RawTag, SourceLocation } from '../../markers/index.ts';
import type { ModelField, ModelKind } from '../../source/type-model.ts';
import type { CrdMarker } from './markers.ts';
import type { ApiModelKind } from '../../source/api-model.ts';
import type { SchemaBuilder } from './schema-builder.ts';
import { sourceError } from './walk-error.ts';

/** A kind with everything `generate crd` needs to write its version of the CRD. */
export interface KindVersion extends ApiModelKind {
  readonly markers: readonly CrdMarker[];
  readonly schema: JSONSchemaProps;
  readonly shortNames: readonly string[];
  readonly categories: readonly string[];
}

export interface KindSeed {
  readonly group: string;
  readonly version: string;
  readonly location: SourceLocation;
  readonly description: string;
  readonly tags: readonly RawTag[];
}

/** The resource names and scope of a kind: from its markers, checked as the API server would. */
export interface KindNames {
  readonly kind: string;
  readonly plural: string;
  readonly singular: string;
  readonly namespaced: boolean;
  readonly shortNames: readonly string[];
  readonly categories: readonly string[];
}

const API_VERSION_DESC =
  'APIVersion defines the versioned schema of this representation of an object.\nServers should convert recognized schemas to the latest internal value, and\nmay reject unrecognized values.\nMore info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#resources';
const KIND_DESC =
  'Kind is a string value representing the REST resource this object represents.\nServers may infer this from the endpoint the client submits requests to.\nCannot be updated.\nIn CamelCase.\nMore info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds';

/** The description of a kind's `apiVersion` or `kind` field when its doc comment gives none. */
export function rootFieldDescription(name: 'apiVersion' | 'kind'): string {
  return name === 'kind' ? KIND_DESC : API_VERSION_DESC;
}

/** Every kind of the model that has no problem (each problem is in `builder.problems`). */
export function buildKinds(builder: SchemaBuilder, kinds: Iterable<ModelKind>): KindVersion[] {
  const built: KindVersion[] = [];
  for (const k of kinds) {
    const kind = builder.problems.attempt(() => buildKind(builder, k), undefined);
    if (kind) built.push(kind);
  }
  return built;
}

/** One kind's version (undefined with `@skipversion`). */
export function buildKind(builder: SchemaBuilder, model: ModelKind): KindVersion | undefined {
  const { location, name } = model;
  if (!model.exported) {
    throw sourceError(
      location,
      name,
      'is marked @kind but not exported',
      `Write \`export interface ${name}\``,
    );
  }
  if (model.generic) {
    throw sourceError(
      location,
      name,
      'is a generic kind',
      'A kind must be a concrete type: instantiate the generic in a type alias',
    );
  }
  const { doc } = model.doc;
  const seed = {
    group: model.group,
    version: model.version,
    location,
    description: doc.description,
    tags: doc.tags,
  };
  const { markers } = builder.markers(model.doc, 'type');
  if (markers.some((m) => m.spec.name === 'skipversion')) return undefined;
  const names = kindNames(markers, name, location);
  const where = { path: names.kind, location };
  const schema = builder.applyMarkers(rootSchema(builder, model, names.kind, seed), markers, where);
  builder.origin(schema, where);
  const prefix = `${names.kind}.`;
  const fields = builder
    .takeFieldDocs()
    .map((f) => ({ ...f, path: f.path.startsWith(prefix) ? f.path.slice(prefix.length) : f.path }));
  return kindVersionOf(seed, names, markers, schema, fields);
}

/** A walked kind (both walks assemble it here): names, versions' flags from its markers, schema, docs. */
export function kindVersionOf(
  seed: KindSeed,
  names: KindNames,
  markers: readonly CrdMarker[],
  schema: JSONSchemaProps,
  fields: KindVersion['fields'],
): KindVersion {
  return {
    group: seed.group,
    version: seed.version,
    ...names,
    storage: markers.some((m) => m.spec.name === 'storageversion'),
    served: !markers.some((m) => m.spec.name === 'unservedversion'),
    description: seed.description,
    tags: seed.tags,
    fields,
    location: seed.location,
    markers,
    schema,
  };
}

/** Kind name, plural, singular, scope, short names and categories from `@kind`, `@resource`, `@plural`, .... */
export function kindNames(
  markers: readonly CrdMarker[],
  declName: string,
  location: SourceLocation,
): KindNames {
  const one = (name: string): CrdMarker | undefined => markers.find((m) => m.spec.name === name);
  const all = (name: string): CrdMarker[] => markers.filter((m) => m.spec.name === name);
  const resource = one('resource')?.args ?? {};
  const kind = (one('kind')?.value as string | undefined) || declName;
  if (!/^[A-Z][A-Za-z0-9]*$/.test(kind)) {
    throw sourceError(
      location,
      kind,
      'is not a valid kind name',
      'Kinds are CamelCase, starting with an upper-case letter',
    );
  }
  const singular =
    (one('singular')?.value as string | undefined) ??
    (resource.singular as string | undefined) ??
    kind.toLowerCase();
  const plural =
    (one('plural')?.value as string | undefined) ?? (resource.path as string | undefined) ?? pluralize(kind);
  for (const [what, value] of [
    ['plural', plural],
    ['singular', singular],
  ] as const) {
    const errors = dns1035LabelErrors(value);
    if (errors.length > 0) {
      throw sourceError(
        location,
        kind,
        `${what} "${value}" is not a DNS-1035 label: ${errors.join('; ')}`,
        `Fix @${what}`,
      );
    }
  }
  const scope =
    (one('scope')?.value as string | undefined) ?? (resource.scope as string | undefined) ?? 'Namespaced';
  return {
    kind,
    plural,
    singular,
    namespaced: scope === 'Namespaced',
    shortNames: [
      ...((resource.shortName as string[] | undefined) ?? []),
      ...all('shortName').flatMap((m) => m.value as string[]),
    ],
    categories: [
      ...((resource.categories as string[] | undefined) ?? []),
      ...all('categories').flatMap((m) => m.value as string[]),
    ],
  };
}

/** The kind's schema before its own markers: apiVersion, kind, metadata and every other field. */
function rootSchema(
  builder: SchemaBuilder,
  model: ModelKind,
  kindName: string,
  seed: KindSeed,
): JSONSchemaProps {
  const props = model.fields();
  if (!props.some((p) => p.name === 'spec' || p.name === 'status')) {
    throw sourceError(
      seed.location,
      kindName,
      'has neither `spec` nor `status`',
      'A kind has `apiVersion`, `kind`, `metadata: ObjectMeta`, `spec` and usually `status?`',
    );
  }
  const properties: Record<string, JSONSchemaProps> = {};
  const required: string[] = [];
  for (const prop of props) {
    if (prop.name === 'apiVersion' || prop.name === 'kind') {
      properties[prop.name] = {
        type: 'string',
        description: prop.doc?.doc.description || rootFieldDescription(prop.name),
      };
      continue;
    }
    if (prop.name === 'metadata') {
      checkObjectMeta(prop, prop.location ?? seed.location, kindName);
      properties.metadata = { type: 'object' };
      continue;
    }
    const field = builder.fieldSchema(prop, { path: kindName, location: seed.location });
    properties[prop.name] = field.schema;
    if (field.required) required.push(prop.name);
  }
  const schema: JSONSchemaProps = { type: 'object', properties };
  if (seed.description) schema.description = seed.description;
  if (required.length > 0) schema.required = required.sort();
  return schema;
}

/** A kind's `metadata` must be `ObjectMeta`: the API server owns its schema. */
function checkObjectMeta(prop: ModelField, location: SourceLocation, kindName: string): void {
  const { name, text } = prop.typeName();
  if (name !== 'ObjectMeta') {
    throw sourceError(
      location,
      `${kindName}.metadata`,
      `has type \`${text}\``,
      "A kind's metadata is `ObjectMeta` (import type { ObjectMeta } from 'op-gen'); the API server owns its schema",
    );
  }
}
