/**
 * The JSON Schema subset `toJsonSchema` writes (what json-schema-to-typescript reads, with its
 * `tsType` extension), and what `writeInterface` writes types from.
 */
export interface TypeSchema {
  description?: string;
  deprecated?: boolean;
  type?: string;
  enum?: unknown[];
  $ref?: string;
  items?: TypeSchema | TypeSchema[];
  properties?: Record<string, TypeSchema>;
  required?: string[];
  additionalProperties?: boolean | TypeSchema;
  /** The TypeScript type to write as is (json-schema-to-typescript's extension). */
  tsType?: string;
  anyOf?: TypeSchema[];
  allOf?: TypeSchema[];
  oneOf?: TypeSchema[];
  not?: TypeSchema;
}

/** A CRD's openAPIV3Schema (or a node in it), as read from YAML. */
export type CrdSchema = Readonly<Record<string, unknown>>;

/** Where a schema node sits, for error messages: `Certificate.spec.secretTemplate`. */
export type SchemaPath = string;

/**
 * Rewrites a structural CRD schema into the JSON Schema json-schema-to-typescript understands, with the
 * Kubernetes extensions made explicit:
 * - `x-kubernetes-int-or-string` → `number | string`;
 * - `x-kubernetes-preserve-unknown-fields` → an index signature of `unknown` next to the known fields;
 * - `x-kubernetes-embedded-resource` → `apiVersion`, `kind`, `metadata: ObjectMeta` added;
 * - `nullable` → `| null`;
 * - objects without preserve-unknown-fields are closed (the API server prunes unknown fields);
 * - `x-kubernetes-list-type` / `-list-map-keys` / `-map-type` are recorded in the JSDoc.
 * Titles are dropped so every nested type is inlined and the output does not depend on titles.
 */
export function toJsonSchema(node: CrdSchema, path: SchemaPath): TypeSchema {
  const out: TypeSchema = {};
  const description = docOf(node);
  if (description) out.description = description;
  if (node['deprecated'] === true) out.deprecated = true;

  if (node['x-kubernetes-int-or-string'] === true) {
    out.tsType = 'number | string';
    return withNullable(out, node);
  }

  const type = node['type'];
  if (typeof type === 'string') out.type = type;
  if (Array.isArray(node['enum'])) out.enum = node['enum'] as unknown[];

  // allOf/anyOf/oneOf/not only carry value validation in a structural schema: no effect on the type.
  // A $ref is not allowed in a CRD; it is passed on so json-schema-to-typescript reports it.
  if (typeof node['$ref'] === 'string') out.$ref = node['$ref'];

  // The node's shape (items one schema, properties a map of schemas...) was checked when the CRD was
  // read (shared/crd-shape.ts).
  const items = node['items'];
  if (items !== undefined) out.items = toJsonSchema(items as CrdSchema, `${path}[]`);

  const isObject = type === 'object' || node['properties'] !== undefined;
  if (isObject) {
    const props = node['properties'] as Readonly<Record<string, CrdSchema>> | undefined;
    const properties: Record<string, TypeSchema> = {};
    if (props !== undefined) {
      for (const name of Object.keys(props).sort()) {
        properties[name] = toJsonSchema(props[name] ?? {}, `${path}.${name}`);
      }
    }
    if (node['x-kubernetes-embedded-resource'] === true) {
      properties['apiVersion'] ??= { type: 'string' };
      properties['kind'] ??= { type: 'string' };
      properties['metadata'] = { ...(properties['metadata'] ?? {}), tsType: 'ObjectMeta' };
    }
    out.type = 'object';
    if (Object.keys(properties).length > 0) out.properties = properties;
    if (Array.isArray(node['required'])) out.required = [...(node['required'] as string[])].sort();

    const additional = node['additionalProperties'];
    if (typeof additional === 'object' && additional !== null) {
      out.additionalProperties = toJsonSchema(additional as CrdSchema, `${path}[*]`);
    } else if (node['x-kubernetes-preserve-unknown-fields'] === true || additional === true) {
      out.additionalProperties = true; // rendered as [k: string]: unknown (unknownAny)
    } else {
      out.additionalProperties = false;
    }
  } else if (node['x-kubernetes-preserve-unknown-fields'] === true && type === undefined) {
    // Any JSON value.
    out.tsType = 'unknown';
  }
  return withNullable(out, node);
}

function withNullable(out: TypeSchema, node: CrdSchema): TypeSchema {
  if (node['nullable'] !== true) return out;
  if (out.tsType) return { ...out, tsType: `${out.tsType} | null` };
  const { description, deprecated, ...rest } = out;
  return {
    ...(description ? { description } : {}),
    ...(deprecated ? { deprecated } : {}),
    anyOf: [rest, { type: 'null' }],
  };
}

/** The description plus the list/map semantics, as the JSDoc of the field. */
function docOf(node: CrdSchema): string {
  const lines: string[] = [];
  if (typeof node['description'] === 'string' && node['description'].trim() !== '') {
    lines.push(node['description'].trim());
  }
  const listType = node['x-kubernetes-list-type'];
  if (typeof listType === 'string') {
    const keys = node['x-kubernetes-list-map-keys'];
    const keyText = Array.isArray(keys) && keys.length > 0 ? ` (keys: ${keys.join(', ')})` : '';
    lines.push(`@listType ${listType}${keyText}`);
  }
  const mapType = node['x-kubernetes-map-type'];
  if (typeof mapType === 'string') lines.push(`@mapType ${mapType}`);
  if (node['x-kubernetes-int-or-string'] === true && lines.length === 0) return '';
  return lines.join('\n\n');
}
