import type { JSONSchema4 } from 'json-schema';
import type { JSONSchemaProps } from '../crd/schema-types.ts';

/** A record of unknown-valued fields: what preserve-unknown-fields objects are in TypeScript. */
const UNKNOWN_RECORD = '{ [key: string]: unknown }';

/**
 * An apiextensions v1 structural schema as a JSON Schema for json-schema-to-typescript, with the
 * Kubernetes extensions made explicit: int-or-string → `number | string`, preserve-unknown-fields →
 * unknown-valued records, embedded resources → apiVersion/kind/metadata, and objects closed
 * (`additionalProperties: false`) where the API server prunes unknown fields.
 */
export function toJsonSchema(schema: JSONSchemaProps): JSONSchema4 {
  const out: JSONSchema4 = {};
  if (schema.description) out.description = schema.description;
  if (schema['x-kubernetes-int-or-string']) {
    out.tsType = 'number | string';
    return out;
  }
  const preserve = schema['x-kubernetes-preserve-unknown-fields'] === true;
  if (schema.enum) out.enum = schema.enum as JSONSchema4['enum'];
  if (schema.default !== undefined) out.default = schema.default as JSONSchema4['default'];
  if (schema.format === 'date-time' || schema.format === 'date') out.format = schema.format;
  switch (schema.type) {
    case 'string':
    case 'integer':
    case 'number':
    case 'boolean':
      out.type = schema.type;
      break;
    case 'array':
      out.type = 'array';
      out.items = schema.items ? toJsonSchema(schema.items) : { tsType: 'unknown' };
      break;
    case 'object':
    case undefined: {
      if (schema.type === undefined && !schema.properties && !preserve) {
        out.tsType = 'unknown';
        break;
      }
      out.type = 'object';
      const properties: Record<string, JSONSchema4> = {};
      // Sorted: the same CRD read from a file or from the cluster (where Go sorted the keys) gives the same types.
      for (const name of Object.keys(schema.properties ?? {}).sort()) {
        properties[name] = toJsonSchema(schema.properties![name]!);
      }
      if (schema['x-kubernetes-embedded-resource']) {
        properties.apiVersion ??= { type: 'string' };
        properties.kind ??= { type: 'string' };
        properties.metadata ??= { tsType: 'ObjectMeta' };
      }
      if (Object.keys(properties).length > 0) out.properties = properties;
      if (schema.required?.length) out.required = [...schema.required];
      if (typeof schema.additionalProperties === 'object') {
        out.additionalProperties = toJsonSchema(schema.additionalProperties);
      } else if (preserve || schema.additionalProperties === true) {
        if (Object.keys(properties).length === 0) {
          delete out.type;
          out.tsType = UNKNOWN_RECORD;
        } else out.additionalProperties = { tsType: 'unknown' };
      } else {
        out.additionalProperties = false;
      }
      break;
    }
  }
  return out;
}
