import type { JSONSchemaProps } from '../api-types/json-schema.ts';
import type { JsonValue } from '../markers/types.ts';

/** How a change affects existing objects and clients. */
export type Severity = 'breaking' | 'risky' | 'safe';

/**
 * The check that found a change. The names follow the checks of OLM's CRD upgrade safety preflight
 * and kubernetes-sigs/crdify where one exists.
 */
export const DIFF_RULES = [
  'crdRemoved',
  'crdAdded',
  'scope',
  'storedVersionRemoval',
  'servedVersionRemoval',
  'versionAdded',
  'existingFieldRemoval',
  'fieldAdded',
  'required',
  'type',
  'default',
  'enum',
  'minimum',
  'maximum',
  'minLength',
  'maxLength',
  'minItems',
  'maxItems',
  'minProperties',
  'maxProperties',
  'pattern',
  'format',
  'nullable',
  'preserveUnknownFields',
  'cel',
  'description',
  'multipleOf',
  'uniqueItems',
  'listType',
  'listMapKeys',
  'mapType',
  'embeddedResource',
  'oneOf',
  'anyOf',
  'allOf',
  'not',
  'names',
  'conversion',
  'subresources',
  'printerColumns',
  'served',
  'deprecated',
  'storage',
  'selectableFields',
  'servedVersionDifference',
  'unhandled',
] as const satisfies readonly string[];

export type DiffRule = (typeof DIFF_RULES)[number];

export type BoundRule =
  | 'minimum'
  | 'maximum'
  | 'minLength'
  | 'maxLength'
  | 'minItems'
  | 'maxItems'
  | 'minProperties'
  | 'maxProperties';

/** One change between the old and the new CRD. */
export interface Finding {
  readonly severity: Severity;
  readonly rule: DiffRule;
  /** The CRD's name (`<plural>.<group>`). */
  readonly crd: string;
  /** The version the change is in; absent for changes to the whole CRD (scope, removal). */
  readonly version?: string;
  /** JSON path of the field (`.spec.size`, `.spec.pods[*].name`); `.` is the root; absent for CRD-level changes. */
  readonly path?: string;
  /** What changed, in words (`maximum lowered`). */
  readonly message: string;
  /** The old and the new value, as shown to the user (absent: there was none). */
  readonly old?: JsonValue;
  readonly new?: JsonValue;
}

/** The part of a CustomResourceDefinition the diff reads. */
export interface CrdDocument {
  readonly metadata: { readonly name: string };
  readonly spec: {
    readonly group: string;
    readonly names: { readonly kind: string; readonly plural: string; readonly [key: string]: JsonValue };
    readonly scope: string;
    readonly versions: readonly CrdDocumentVersion[];
    /** `spec.conversion`: `{ strategy: None | Webhook, webhook?: {...} }`. */
    readonly conversion?: { readonly strategy?: string; readonly [key: string]: JsonValue | undefined };
    /** Any other field of the spec (compared as `unhandled` unless a rule knows it). */
    readonly [key: string]: unknown;
  };
  /** Present when the CRD was read from a cluster (`kubectl get crd -o yaml`). */
  readonly status?: { readonly storedVersions?: readonly string[] };
}

export interface CrdDocumentVersion {
  readonly name: string;
  readonly served: boolean;
  readonly storage: boolean;
  readonly schema?: { readonly openAPIV3Schema?: JSONSchemaProps };
  readonly deprecated?: boolean;
  readonly deprecationWarning?: string;
  readonly subresources?: {
    readonly status?: Record<string, never>;
    readonly scale?: { readonly [key: string]: JsonValue };
  };
  readonly additionalPrinterColumns?: readonly { readonly [key: string]: JsonValue }[];
  readonly selectableFields?: readonly { readonly jsonPath: string }[];
  /** Any other field of the version (compared as `unhandled` unless a rule knows it). */
  readonly [key: string]: unknown;
}
