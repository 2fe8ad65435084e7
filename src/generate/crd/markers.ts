import type { JSONSchemaProps, ValidationRule } from '../../api-types/json-schema.ts';
import { MarkerRegistry } from '../../markers/registry.ts';
import type { ArgSpec, MarkerSpec, ParsedMarker } from '../../markers/types.ts';

/**
 * What a CRD marker does. `schema` markers change the schema of the type or field they stand on
 * (or of its elements, for `@items:<name>`); `field` markers change how the walker treats a field;
 * `kind` and `package` markers are read when the CRD is assembled.
 */
export type CrdEffect =
  | { readonly on: 'schema'; readonly apply: (schema: JSONSchemaProps, marker: CrdMarker) => void }
  | { readonly on: 'field' }
  | { readonly on: 'kind' }
  | { readonly on: 'package' };

export type CrdMarker = ParsedMarker<CrdEffect>;
type Spec = MarkerSpec<CrdEffect>;

const FIELD_OR_TYPE = ['type', 'field'] as const;
const num = (help: string): ArgSpec => ({ type: 'number', required: true, help });
const int = (help: string): ArgSpec => ({ type: 'int', required: true, help });
const str = (help: string, required = false): ArgSpec => ({ type: 'string', required, help });

function schemaEffect(apply: (schema: JSONSchemaProps, marker: CrdMarker) => void): CrdEffect {
  return { on: 'schema', apply };
}

/** A numeric/string/bool schema keyword set from the marker's value. */
function keyword<K extends keyof JSONSchemaProps>(
  name: string,
  key: K,
  value: ArgSpec,
  help: string,
  controllerGen: string,
  aliases?: readonly string[],
): Spec {
  return {
    name,
    ...(aliases ? { aliases } : {}),
    targets: FIELD_OR_TYPE,
    value,
    itemsVariant: true,
    help,
    controllerGen,
    effect: schemaEffect((s, m) => {
      (s as Record<string, unknown>)[key] = m.value;
    }),
  };
}

function addRule(schema: JSONSchemaProps, rule: ValidationRule): void {
  (schema['x-kubernetes-validations'] ??= []).push(rule);
}

function oneOfRule(kind: 'exactly' | 'atMost' | 'atLeast', fields: readonly string[]): ValidationRule {
  const has = fields.map((f) => `has(self.${f})`);
  const count = `[${has.join(',')}].filter(x,x==true).size()`;
  const rule = kind === 'exactly' ? `${count} == 1` : kind === 'atMost' ? `${count} <= 1` : `${count} >= 1`;
  const words =
    kind === 'exactly' ? 'exactly one of' : kind === 'atMost' ? 'at most one of' : 'at least one of';
  return { rule, message: `${words} the fields in [${fields.join(' ')}] must be set` };
}

const v = 'kubebuilder:validation:';

export const crdMarkerSpecs: readonly Spec[] = [
  // ---- numbers
  keyword(
    'minimum',
    'minimum',
    num('the smallest allowed value'),
    'Sets `minimum`.',
    `+${v}Minimum, +k8s:minimum`,
    ['k8s:minimum'],
  ),
  keyword(
    'maximum',
    'maximum',
    num('the largest allowed value'),
    'Sets `maximum`.',
    `+${v}Maximum, +k8s:maximum`,
    ['k8s:maximum'],
  ),
  {
    name: 'exclusiveMinimum',
    targets: FIELD_OR_TYPE,
    value: { type: 'json', help: 'true, or a number n (same as `@minimum n` with `exclusiveMinimum: true`)' },
    itemsVariant: true,
    help: 'Makes `minimum` exclusive (`exclusiveMinimum: true`). With a number, also sets `minimum`. `false` (the default) writes nothing, as controller-gen.',
    controllerGen: `+${v}ExclusiveMinimum`,
    effect: schemaEffect((s, m) => {
      if (typeof m.value === 'number') s.minimum = m.value;
      // `false` is the default: left out, as controller-gen leaves it out (omitempty).
      if (m.value === false) delete s.exclusiveMinimum;
      else s.exclusiveMinimum = true;
    }),
  },
  {
    name: 'exclusiveMaximum',
    targets: FIELD_OR_TYPE,
    value: { type: 'json', help: 'true, or a number n (same as `@maximum n` with `exclusiveMaximum: true`)' },
    itemsVariant: true,
    help: 'Makes `maximum` exclusive (`exclusiveMaximum: true`). With a number, also sets `maximum`. `false` (the default) writes nothing, as controller-gen.',
    controllerGen: `+${v}ExclusiveMaximum`,
    effect: schemaEffect((s, m) => {
      if (typeof m.value === 'number') s.maximum = m.value;
      // `false` is the default: left out, as controller-gen leaves it out (omitempty).
      if (m.value === false) delete s.exclusiveMaximum;
      else s.exclusiveMaximum = true;
    }),
  },
  keyword(
    'multipleOf',
    'multipleOf',
    num('the value must be a multiple of this'),
    'Sets `multipleOf`.',
    `+${v}MultipleOf`,
  ),
  // ---- strings
  keyword('minLength', 'minLength', int('minimum string length'), 'Sets `minLength`.', `+${v}MinLength`),
  keyword('maxLength', 'maxLength', int('maximum string length'), 'Sets `maxLength`.', `+${v}MaxLength`),
  keyword(
    'pattern',
    'pattern',
    {
      type: 'raw',
      required: true,
      help: "a regular expression in Go's RE2 syntax (the API server's); the rest of the line, verbatim",
    },
    'Sets `pattern`.',
    `+${v}Pattern`,
  ),
  keyword(
    'format',
    'format',
    str('an OpenAPI format, e.g. date-time, email, uri, uuid, hostname', true),
    'Sets `format`.',
    `+${v}Format`,
  ),
  // ---- enums, values
  {
    name: 'enum',
    targets: FIELD_OR_TYPE,
    value: {
      type: 'json[]',
      required: true,
      help: 'values separated by `;` (JSON values; bare words are strings)',
    },
    itemsVariant: true,
    help: 'Sets `enum`. Not needed for string-literal unions and TypeScript enums, which become enums by themselves.',
    controllerGen: `+${v}Enum`,
    effect: schemaEffect((s, m) => {
      s.enum = m.value as JSONSchemaProps['enum'];
    }),
  },
  {
    name: 'default',
    targets: FIELD_OR_TYPE,
    value: {
      type: 'json',
      required: true,
      help: 'a JSON value (`3`, `"a"`, `{"a":1}`, `[1,2]`); a bare word is a string',
    },
    help: 'Sets `default`: the API server fills it in when the field is absent.',
    controllerGen: '+default:value=, +kubebuilder:default',
    effect: schemaEffect((s, m) => {
      if (m.value !== undefined) s.default = m.value;
    }),
  },
  {
    name: 'example',
    targets: FIELD_OR_TYPE,
    value: { type: 'json', required: true, help: 'a JSON value' },
    help: 'Sets `example`.',
    controllerGen: '+kubebuilder:example',
    effect: schemaEffect((s, m) => {
      if (m.value !== undefined) s.example = m.value;
    }),
  },
  {
    name: 'title',
    targets: FIELD_OR_TYPE,
    value: { type: 'string', required: true, help: 'the title text' },
    help: 'Sets `title`.',
    controllerGen: '+kubebuilder:title',
    effect: schemaEffect((s, m) => {
      s.title = String(m.value);
    }),
  },
  {
    name: 'type',
    targets: FIELD_OR_TYPE,
    value: {
      type: 'string',
      required: true,
      oneOf: ['object', 'array', 'string', 'integer', 'number', 'boolean'],
      help: 'the schema type',
    },
    itemsVariant: true,
    help: 'Overrides the schema `type` inferred from the TypeScript type (e.g. `integer` for a plain `number`).',
    controllerGen: `+${v}Type`,
    effect: schemaEffect((s, m) => {
      s.type = m.value as JSONSchemaProps['type'];
      if (s.type !== 'integer' && s.type !== 'number') delete s.format;
    }),
  },
  {
    name: 'nullable',
    targets: FIELD_OR_TYPE,
    help: 'Sets `nullable: true`. A `T | null` type does this by itself.',
    controllerGen: '+nullable',
    effect: schemaEffect((s) => {
      s.nullable = true;
    }),
  },
  // ---- arrays
  keyword('minItems', 'minItems', int('minimum number of items'), 'Sets `minItems`.', `+${v}MinItems`),
  keyword(
    'maxItems',
    'maxItems',
    int('maximum number of items'),
    'Sets `maxItems`.',
    `+${v}MaxItems, +k8s:maxItems`,
    ['k8s:maxItems'],
  ),
  {
    name: 'uniqueItems',
    targets: FIELD_OR_TYPE,
    value: { type: 'bool', help: 'true (default) or false' },
    itemsVariant: true,
    help: 'Sets `uniqueItems`. Kubernetes rejects `uniqueItems: true` in CRDs; prefer `@listType set`.',
    controllerGen: `+${v}UniqueItems`,
    effect: schemaEffect((s, m) => {
      s.uniqueItems = m.value !== false;
    }),
  },
  {
    name: 'listType',
    targets: FIELD_OR_TYPE,
    value: { type: 'string', required: true, oneOf: ['atomic', 'set', 'map'], help: 'atomic, set or map' },
    aliases: ['k8s:listType'],
    help: 'Sets `x-kubernetes-list-type`. `map` needs `@listMapKey` (the key fields must be required or defaulted).',
    controllerGen: '+listType, +k8s:listType',
    effect: schemaEffect((s, m) => {
      s['x-kubernetes-list-type'] = m.value as 'atomic' | 'set' | 'map';
    }),
  },
  {
    name: 'listMapKey',
    targets: FIELD_OR_TYPE,
    value: str('a field of the element type', true),
    repeatable: true,
    aliases: ['k8s:listMapKey'],
    help: 'Adds to `x-kubernetes-list-map-keys` (repeat for a composite key).',
    controllerGen: '+listMapKey, +k8s:listMapKey',
    effect: schemaEffect((s, m) => {
      (s['x-kubernetes-list-map-keys'] ??= []).push(String(m.value));
    }),
  },
  // ---- objects
  keyword(
    'minProperties',
    'minProperties',
    int('minimum number of properties'),
    'Sets `minProperties`.',
    `+${v}MinProperties`,
  ),
  keyword(
    'maxProperties',
    'maxProperties',
    int('maximum number of properties'),
    'Sets `maxProperties`.',
    `+${v}MaxProperties`,
  ),
  {
    name: 'mapType',
    targets: FIELD_OR_TYPE,
    value: { type: 'string', required: true, oneOf: ['granular', 'atomic'], help: 'granular or atomic' },
    help: 'Sets `x-kubernetes-map-type` on a map (`Record<string, T>`).',
    controllerGen: '+mapType',
    effect: schemaEffect((s, m) => {
      s['x-kubernetes-map-type'] = m.value as 'granular' | 'atomic';
    }),
  },
  {
    name: 'structType',
    targets: FIELD_OR_TYPE,
    value: { type: 'string', required: true, oneOf: ['granular', 'atomic'], help: 'granular or atomic' },
    help: 'Sets `x-kubernetes-map-type` on an object with fixed fields (controller-gen writes structType as map-type too).',
    controllerGen: '+structType',
    effect: schemaEffect((s, m) => {
      s['x-kubernetes-map-type'] = m.value as 'granular' | 'atomic';
    }),
  },
  {
    name: 'preserveUnknownFields',
    targets: FIELD_OR_TYPE,
    aliases: ['XPreserveUnknownFields', 'pruning:PreserveUnknownFields'],
    itemsVariant: true,
    help: 'Sets `x-kubernetes-preserve-unknown-fields: true`: the API server keeps fields the schema does not list. The `PreserveUnknownFields` helper type does this too.',
    controllerGen: `+${v}XPreserveUnknownFields, +kubebuilder:pruning:PreserveUnknownFields`,
    effect: schemaEffect((s) => {
      s['x-kubernetes-preserve-unknown-fields'] = true;
    }),
  },
  {
    name: 'embeddedResource',
    targets: FIELD_OR_TYPE,
    aliases: ['XEmbeddedResource'],
    itemsVariant: true,
    help: 'Sets `x-kubernetes-embedded-resource: true`: the object is a Kubernetes object (apiVersion, kind, metadata are allowed and validated).',
    controllerGen: `+${v}XEmbeddedResource, +${v}EmbeddedResource`,
    effect: schemaEffect((s) => {
      s['x-kubernetes-embedded-resource'] = true;
      s.type = 'object';
    }),
  },
  {
    name: 'intOrString',
    targets: FIELD_OR_TYPE,
    aliases: ['XIntOrString'],
    itemsVariant: true,
    help: 'Makes the value int-or-string (`x-kubernetes-int-or-string: true` with `anyOf: [integer, string]`). The `IntOrString` helper type does this too.',
    controllerGen: `+${v}XIntOrString`,
    effect: schemaEffect((s) => {
      delete s.type;
      delete s.format;
      s.anyOf = [{ type: 'integer' }, { type: 'string' }];
      s['x-kubernetes-int-or-string'] = true;
    }),
  },
  {
    name: 'schemaless',
    targets: ['field'],
    help: 'The field gets no schema at all (only its description). Usually with `@preserveUnknownFields` or `@embeddedResource`.',
    controllerGen: `+${v}Schemaless`,
    effect: { on: 'field' },
  },
  {
    name: 'optional',
    targets: ['field'],
    aliases: ['k8s:optional'],
    help: 'The field is optional even though its TypeScript type has no `?`.',
    controllerGen: `+optional, +${v}Optional, +k8s:optional`,
    effect: { on: 'field' },
  },
  {
    name: 'required',
    targets: ['field'],
    aliases: ['k8s:required'],
    help: 'The field is required even though its TypeScript type has `?` (the TypeScript type decides otherwise).',
    controllerGen: `+required, +${v}Required, +k8s:required`,
    effect: { on: 'field' },
  },
  // ---- CEL
  {
    name: 'validation',
    targets: FIELD_OR_TYPE,
    aliases: ['XValidation'],
    repeatable: true,
    itemsVariant: true,
    args: {
      rule: str('the CEL expression; `self` is the value', true),
      message: str('the error message'),
      messageExpression: str('a CEL expression producing the message'),
      reason: {
        type: 'string',
        oneOf: ['FieldValueInvalid', 'FieldValueForbidden', 'FieldValueRequired', 'FieldValueDuplicate'],
        help: 'the error reason',
      },
      fieldPath: str('the path reported with the error, e.g. `.replicas`'),
      optionalOldSelf: {
        type: 'bool',
        help: 'evaluate transition rules also on create (oldSelf is optional)',
      },
    },
    help: "Adds a CEL rule to `x-kubernetes-validations`; repeat for several. op-gen checks the rule (syntax and field references, `has()` included, as the API server does) when generating. An embedded ObjectMeta (a template's `metadata`) has fields for a rule only with `crd.generateEmbeddedObjectMeta: true` in op-gen.yaml (or `generate crd --generate-embedded-object-meta`); at the root, `self.metadata` has `name` and `generateName` only.",
    controllerGen: `+${v}XValidation`,
    effect: schemaEffect((s, m) => {
      const a = m.args;
      const rule: ValidationRule = { rule: String(a.rule) };
      for (const key of ['message', 'messageExpression', 'reason', 'fieldPath'] as const) {
        if (a[key] !== undefined) rule[key] = String(a[key]);
      }
      if (a.optionalOldSelf !== undefined) rule.optionalOldSelf = a.optionalOldSelf === true;
      addRule(s, rule);
    }),
  },
  ...(['exactly', 'atMost', 'atLeast'] as const).map((kind): Spec => ({
    name: `${kind}OneOf`,
    targets: ['type'],
    value: { type: 'string[]', required: true, help: 'field names separated by `;`' },
    repeatable: true,
    help: `Adds a CEL rule: ${kind === 'exactly' ? 'exactly one' : kind === 'atMost' ? 'at most one' : 'at least one'} of the named fields is set.`,
    controllerGen: `+${v}${kind[0]?.toUpperCase()}${kind.slice(1)}OneOf`,
    effect: schemaEffect((s, m) => addRule(s, oneOfRule(kind, m.value as string[]))),
  })),
  // ---- unions (Kubernetes API conventions; a TypeScript union of objects needs no marker)
  {
    name: 'unionDiscriminator',
    targets: ['field'],
    help: 'The string field that says which `@unionMember` field is set (its values: its enum, else the members\' values). op-gen adds the CEL rules; see "Unions" in generate-crd.md.',
    controllerGen: '+unionDiscriminator (API conventions; not in controller-gen)',
    effect: { on: 'field' },
  },
  {
    name: 'unionMember',
    targets: ['field'],
    value: {
      type: 'string',
      help: 'the discriminator value selecting this field (default: the field name, first letter upper-cased)',
    },
    help: "An optional field that is one member of its type's union: with a `@unionDiscriminator`, set exactly when the discriminator names it; without one, exactly one member is set. op-gen adds the CEL rules.",
    controllerGen: '+unionMember (API conventions; not in controller-gen)',
    effect: { on: 'field' },
  },
  {
    name: 'immutable',
    targets: ['field'],
    aliases: ['k8s:immutable'],
    help: 'Adds the CEL rule `self == oldSelf` (message "field is immutable"): the value cannot change once set. Works on fields of any type, objects, lists and maps included.',
    controllerGen: '+k8s:immutable',
    effect: schemaEffect((s) => addRule(s, { rule: 'self == oldSelf', message: 'field is immutable' })),
  },
  {
    name: 'externalDocs',
    targets: FIELD_OR_TYPE,
    args: { url: str('the documentation URL', true), description: str('what the link is') },
    help: 'Sets `externalDocs`.',
    controllerGen: '+kubebuilder:externalDocs',
    effect: schemaEffect((s, m) => {
      s.externalDocs = {
        url: String(m.args.url),
        ...(m.args.description === undefined ? {} : { description: String(m.args.description) }),
      };
    }),
  },
  // ---- kind level
  {
    name: 'kind',
    targets: ['type'],
    value: { type: 'string', help: 'the kind name (default: the interface name)' },
    help: 'Marks the root type of a kind (controller-gen: `+kubebuilder:object:root=true`). One CRD per group and kind.',
    controllerGen: '+kubebuilder:object:root',
    effect: { on: 'kind' },
  },
  {
    name: 'resource',
    targets: ['type'],
    args: {
      path: str('the plural (resource) name'),
      singular: str('the singular name'),
      scope: { type: 'string', oneOf: ['Namespaced', 'Cluster'], help: 'Namespaced (default) or Cluster' },
      shortName: { type: 'string[]', help: 'short names, `;`-separated' },
      categories: { type: 'string[]', help: 'categories, `;`-separated (e.g. all)' },
    },
    help: 'All resource names at once, as controller-gen writes them. The single markers below do the same.',
    controllerGen: '+kubebuilder:resource',
    effect: { on: 'kind' },
  },
  {
    name: 'plural',
    targets: ['type'],
    value: str('the plural, lower case', true),
    help: "The resource (plural) name; default: the lower-cased kind made plural by English rules (kubebuilder's, from the flect library).",
    controllerGen: '+kubebuilder:resource:path',
    effect: { on: 'kind' },
  },
  {
    name: 'singular',
    targets: ['type'],
    value: str('the singular, lower case', true),
    help: 'The singular name; default: the lower-cased kind.',
    controllerGen: '+kubebuilder:resource:singular',
    effect: { on: 'kind' },
  },
  {
    name: 'shortName',
    aliases: ['shortNames'],
    targets: ['type'],
    value: { type: 'string[]', required: true, help: 'short names, `;`-separated' },
    repeatable: true,
    help: 'Short names for kubectl (`kubectl get mc`).',
    controllerGen: '+kubebuilder:resource:shortName',
    effect: { on: 'kind' },
  },
  {
    name: 'categories',
    aliases: ['category'],
    targets: ['type'],
    value: { type: 'string[]', required: true, help: 'categories, `;`-separated' },
    repeatable: true,
    help: 'Categories (`kubectl get all`).',
    controllerGen: '+kubebuilder:resource:categories',
    effect: { on: 'kind' },
  },
  {
    name: 'scope',
    targets: ['type'],
    value: {
      type: 'string',
      required: true,
      oneOf: ['Namespaced', 'Cluster'],
      help: 'Namespaced or Cluster',
    },
    help: 'Namespaced (default) or Cluster scoped.',
    controllerGen: '+kubebuilder:resource:scope',
    effect: { on: 'kind' },
  },
  {
    name: 'subresource status',
    targets: ['type'],
    help: 'Enables the status subresource.',
    controllerGen: '+kubebuilder:subresource:status',
    effect: { on: 'kind' },
  },
  {
    name: 'subresource scale',
    targets: ['type'],
    args: {
      specpath: str('JSON path of the desired replicas, e.g. .spec.replicas', true),
      statuspath: str('JSON path of the observed replicas, e.g. .status.replicas', true),
      selectorpath: str('JSON path of the label selector (string form), e.g. .status.selector'),
    },
    help: 'Enables the scale subresource.',
    controllerGen: '+kubebuilder:subresource:scale',
    effect: { on: 'kind' },
  },
  {
    name: 'printcolumn',
    targets: ['type'],
    repeatable: true,
    args: {
      name: str('column header', true),
      type: {
        type: 'string',
        required: true,
        oneOf: ['integer', 'number', 'string', 'boolean', 'date'],
        help: 'integer, number, string, boolean or date',
      },
      jsonPath: str('JSON path of the value, e.g. .status.replicas', true),
      description: str('column description (an empty one is left out, as controller-gen does)'),
      format: str('OpenAPI format of the value, e.g. int32, date-time'),
      priority: {
        type: 'int',
        help: '0 (the default, left out of the CRD as controller-gen does) shows in the default view, higher only with -o wide',
      },
    },
    help: 'Adds an `additionalPrinterColumns` entry (`kubectl get` columns). Order is kept.',
    controllerGen: '+kubebuilder:printcolumn',
    effect: { on: 'kind' },
  },
  {
    name: 'storageversion',
    targets: ['type'],
    help: 'This version is the storage version (required on exactly one version when a kind has several).',
    controllerGen: '+kubebuilder:storageversion',
    effect: { on: 'kind' },
  },
  {
    name: 'unservedversion',
    targets: ['type'],
    help: 'This version is not served (`served: false`).',
    controllerGen: '+kubebuilder:unservedversion',
    effect: { on: 'kind' },
  },
  {
    name: 'deprecatedversion',
    targets: ['type'],
    args: { warning: str('the warning returned to clients') },
    help: 'This version is deprecated (`deprecated: true`, optional `deprecationWarning`).',
    controllerGen: '+kubebuilder:deprecatedversion',
    effect: { on: 'kind' },
  },
  {
    name: 'skipversion',
    targets: ['type'],
    help: 'Leaves this version of the kind out of the CRD.',
    controllerGen: '+kubebuilder:skipversion',
    effect: { on: 'kind' },
  },
  {
    name: 'selectableField',
    targets: ['type'],
    repeatable: true,
    args: { jsonPath: str('JSON path of a string, integer or boolean field, e.g. .spec.color', true) },
    help: 'Adds a `selectableFields` entry (field selectors for the kind).',
    controllerGen: '+kubebuilder:selectablefield',
    effect: { on: 'kind' },
  },
  {
    name: 'metadata',
    targets: ['type'],
    args: {
      annotations: { type: 'string[]', help: '`key=value` pairs, `;`-separated' },
      labels: { type: 'string[]', help: '`key=value` pairs, `;`-separated' },
    },
    help: 'Labels and annotations on the CRD object itself.',
    controllerGen: '+kubebuilder:metadata',
    effect: { on: 'kind' },
  },
  // ---- package level
  {
    name: 'skip',
    targets: ['package'],
    help: 'On `groupversion.ts`: generate no CRDs for this version folder.',
    controllerGen: '+kubebuilder:skip',
    effect: { on: 'package' },
  },
  // ---- left out
  {
    name: 'groupName',
    targets: ['package'],
    help: '',
    controllerGen: '+groupName',
    unsupported:
      'the group is declared once in groupversion.ts (`export const groupVersion = { group, version }`)',
  },
  {
    name: 'versionName',
    targets: ['package'],
    help: '',
    controllerGen: '+versionName',
    unsupported: 'the version is declared once in groupversion.ts',
  },
  {
    name: 'k8s:enum',
    targets: ['type'],
    help: '',
    controllerGen: '+k8s:enum',
    unsupported: 'not needed: string-literal unions and TypeScript enums become enums by themselves',
  },
  {
    name: 'validation:Optional',
    targets: ['package'],
    help: '',
    controllerGen: `+${v}Optional (package), +${v}Required (package)`,
    unsupported: "TypeScript's `?` decides per field; a package-wide default would contradict the types",
  },
];

export const crdMarkers = new MarkerRegistry<CrdEffect>(crdMarkerSpecs);
