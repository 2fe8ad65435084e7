import type { JSONSchemaProps } from '../../src/api-types/json-schema.ts';

/** A CRD object (the wire form) as the tests that probe the API server's verdicts install it. */
export type CrdObject = Record<string, unknown> & {
  metadata: { name: string };
  spec: Record<string, unknown> & {
    versions: ({ schema: { openAPIV3Schema: JSONSchemaProps } } & Record<string, unknown>)[];
  };
};

/**
 * The smallest CRD around one `spec` schema: one served and stored version `v1`, namespaced, the
 * plural as singular; used to ask the API server what it makes of a schema.
 */
export function crdAroundSpec(options: {
  readonly group: string;
  readonly kind: string;
  readonly plural: string;
  readonly spec: JSONSchemaProps;
}): CrdObject {
  const { group, kind, plural, spec } = options;
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.${group}` },
    spec: {
      group,
      names: { kind, plural, singular: plural, listKind: `${kind}List` },
      scope: 'Namespaced',
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          schema: { openAPIV3Schema: { type: 'object', properties: { spec } } },
        },
      ],
    },
  };
}
