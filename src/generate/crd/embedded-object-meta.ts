import type { JSONSchemaProps } from '../../api-types/json-schema.ts';
import type { KindVersion } from './model.ts';
import type { WalkFindings } from './schema-builder.ts';

/**
 * controller-gen's `crd:generateEmbeddedObjectMeta=true`: an ObjectMeta embedded below a kind's root
 * (a PodTemplateSpec's, a JobTemplateSpec's or a PVC template's `metadata`) gets these five
 * properties instead of a bare `type: object` (controller-tools pkg/crd/known_types.go). The API
 * server then keeps them in stored objects, and CEL rules may read them (`has(t.metadata.namespace)`);
 * without the option the server prunes them and refuses such a rule (`undefined field 'namespace'`).
 */
export function embeddedObjectMetaSchema(): JSONSchemaProps {
  return {
    type: 'object',
    properties: {
      annotations: { type: 'object', additionalProperties: { type: 'string' } },
      finalizers: { type: 'array', items: { type: 'string' } },
      labels: { type: 'object', additionalProperties: { type: 'string' } },
      name: { type: 'string' },
      namespace: { type: 'string' },
    },
  };
}

/** A bare embedded ObjectMeta as both front ends and the built-in type data write it. */
function isBareObjectMeta(schema: JSONSchemaProps): boolean {
  return schema.type === 'object' && Object.keys(schema).every((k) => k === 'type' || k === 'description');
}

/**
 * The kinds with every embedded `metadata: {type: object}` (not the root's) given the embedded
 * ObjectMeta properties. The schemas are copied, never changed in place (the built-in type data is
 * shared); the walk's findings are remapped to the copies, so CEL rules are checked against them.
 */
export function withEmbeddedObjectMeta(
  kinds: readonly KindVersion[],
  findings: WalkFindings,
): { kinds: KindVersion[]; findings: WalkFindings } {
  const copies = new Map<JSONSchemaProps, JSONSchemaProps>();
  const originals = new Map<JSONSchemaProps, JSONSchemaProps>();
  const copy = (schema: JSONSchemaProps, root: boolean): JSONSchemaProps => {
    const out: JSONSchemaProps = { ...schema };
    if (schema.properties) {
      const properties: Record<string, JSONSchemaProps> = {};
      for (const [name, child] of Object.entries(schema.properties)) {
        properties[name] =
          name === 'metadata' && !root && isBareObjectMeta(child)
            ? {
                ...(child.description === undefined ? {} : { description: child.description }),
                ...embeddedObjectMetaSchema(),
              }
            : copy(child, false);
      }
      out.properties = properties;
    }
    if (schema.items) out.items = copy(schema.items, false);
    if (typeof schema.additionalProperties === 'object')
      out.additionalProperties = copy(schema.additionalProperties, false);
    copies.set(schema, out);
    originals.set(out, schema);
    return out;
  };
  const out = kinds.map((k) => ({ ...k, schema: copy(k.schema, true) }));
  const original = (s: JSONSchemaProps): JSONSchemaProps => originals.get(s) ?? s;
  return {
    kinds: out,
    findings: {
      ...findings,
      origins: { get: (n) => findings.origins.get(original(n)) },
      // A rule's node may be a copy the walk made for its markers, outside the kind's tree: copied
      // the same way (a resource root's own metadata stays as it is).
      celRules: findings.celRules.map((r) => ({
        ...r,
        self: copies.get(r.self) ?? copy(r.self, !/[.[]/.test(r.path)),
      })),
      failed: { has: (n) => findings.failed.has(original(n)) },
      embeddedK8s: { has: (n) => findings.embeddedK8s.has(original(n)) },
    },
  };
}
