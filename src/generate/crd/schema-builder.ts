import { crdMarkers, type CrdMarker } from './markers.ts';
import type { DocComment, JsonValue, RawTag, SourceLocation } from '../../markers/index.ts';
import { goFormProblems } from '../go-forms.ts';
import { markerError } from '../../markers/index.ts';
import { ProblemCollector } from '../../shared/problems.ts';
import type { ApiField } from '../../source/api-model.ts';
import type { Documented, ModelField, ModelObject, ModelType, TypeUse } from '../../source/type-model.ts';
import type { JSONSchemaProps } from '../../api-types/json-schema.ts';
import { sourceError } from './walk-error.ts';
import { applySchemaMarkers, formatSchema, type PendingCelRule, type Where } from './schema-markers.ts';
import { applyMarkedUnion, mergeObjectUnion, type MarkedUnionField } from './unions.ts';

/** The Kubernetes built-in types' schemas (builtin-schemas.ts, loaded when an API uses one). */
export interface BuiltinSchemas {
  builtinSchemaFor(typeName: string): JSONSchemaProps | undefined;
}

/** A doc comment found while walking, for the bundle generator and other readers. */
/** A field's doc comment, as the API model holds it (`spec.pods[].name`). */
export type FieldDoc = ApiField;

export { QUANTITY_PATTERN } from './schema-markers.ts';
export type { PendingCelRule } from './schema-markers.ts';

/** No markers, no names (shared: most fields and types have none). */
const NONE: readonly never[] = [];
const NO_NAMES: ReadonlySet<string> = new Set();

/** The doc comment of a field without a declaration. */
const NO_DOC: DocComment = { description: '', tags: [], inline: [], goForm: [] };

/** Where a schema node came from: the type path and the source line (for structural-check errors). */
export interface Origin {
  readonly path: string;
  readonly location: SourceLocation;
}

/**
 * What the walk of the API collects besides the kinds' schemas: the checks after the walk
 * (structural, CEL, size budget) read these, and nothing else of the builder.
 */
export interface WalkFindings {
  /** Where each schema node came from. */
  readonly origins: { get(node: JSONSchemaProps): Origin | undefined };
  /** The CEL rules of `@validation` markers, with the node each applies to. */
  readonly celRules: readonly PendingCelRule[];
  /** Stand-ins for fields that had a problem: later checks skip them (their problem is reported). */
  readonly failed: { has(node: JSONSchemaProps): boolean };
  /** Nodes of embedded Kubernetes types' schemas (`--max-description-length auto` trims these first). */
  readonly embeddedK8s: { has(node: JSONSchemaProps): boolean };
  /** Warnings of the markers (an unknown format), `file:line: ...` each. */
  readonly warnings: readonly string[];
}

/**
 * Turns the type model (source/type-model.ts, filled by either front end) into structural schemas:
 * every schema rule is here, once. Each object type is resolved once (cached by its identity);
 * markers on type aliases, fields and kinds are applied on copies.
 */
export class SchemaBuilder {
  readonly #builtins: BuiltinSchemas | undefined;
  readonly #recordOrigins: boolean;
  readonly #cache = new Map<object, JSONSchemaProps>();
  readonly #inProgress = new Set<object>();
  /** Where each schema node came from (for structural-check errors). */
  readonly origins = new WeakMap<JSONSchemaProps, Where>();
  readonly celRules: PendingCelRule[] = [];
  readonly warnings: string[] = [];
  /** Every problem of the walk: a field with a problem is left out and the walk goes on. */
  readonly problems = new ProblemCollector();
  /** Stand-ins for fields that had a problem: later checks skip them (their problem is reported). */
  readonly failed = new WeakSet<JSONSchemaProps>();
  /** Nodes of embedded Kubernetes types' schemas (`--max-description-length auto` trims these first). */
  readonly embeddedK8s = new WeakSet<JSONSchemaProps>();
  /** Doc comments of fields, collected only when `collectDocs` is set. */
  fieldDocs: FieldDoc[] | undefined;

  /**
   * `origins: false`: no node's origin is recorded. Origins only place the problems of the checks
   * after the walk; a front end whose every problem is reported by the other one (the syntax
   * reader's) saves their cost (a tenth of its walk).
   */
  constructor(builtins: BuiltinSchemas | undefined, options: { readonly origins?: boolean } = {}) {
    this.#builtins = builtins;
    this.#recordOrigins = options.origins ?? true;
  }

  /** Records where `schema` came from (for the structural checks' errors). */
  origin(schema: JSONSchemaProps, where: Where): void {
    if (this.#recordOrigins) this.origins.set(schema, where);
  }

  /** What the walk collected, for the checks after it (read-only views). */
  findings(): WalkFindings {
    return {
      origins: this.origins,
      celRules: this.celRules,
      failed: this.failed,
      embeddedK8s: this.embeddedK8s,
      warnings: this.warnings,
    };
  }

  /** The field docs collected since the last call (each kind's, as its walk ends). */
  takeFieldDocs(): FieldDoc[] {
    return this.fieldDocs ? this.fieldDocs.splice(0) : [];
  }

  /** Parses the markers of a declaration (type or field). Unknown tags are returned apart. */
  markers(
    documented: Documented | undefined,
    target: 'type' | 'field',
  ): { doc: DocComment; markers: readonly CrdMarker[]; unknown: readonly RawTag[] } {
    if (!documented) return { doc: NO_DOC, markers: NONE, unknown: NONE };
    const { doc, file } = documented;
    if (doc.tags.length === 0 && doc.inline.length === 0 && doc.goForm.length === 0)
      return { doc, markers: NONE, unknown: NONE };
    // Problems are recorded and the markers without one apply: the walk goes on to find the others.
    for (const problem of goFormProblems(doc, file)) this.problems.add(problem);
    const parsed = crdMarkers.parseAll(doc.tags, target, file, doc.inline, (p) => this.problems.add(p));
    return { doc, ...parsed };
  }

  /**
   * The schema of a field or element written as `use` (markers on type aliases along the way
   * apply). `where.path` is for errors (`Memcached.spec.pods[].name`).
   */
  schemaFor(use: TypeUse, where: Where, fieldMarkers: readonly CrdMarker[] = []): JSONSchemaProps {
    // Markers and descriptions of type aliases the field is written with (`port: Port`).
    const aliases = use.aliases;
    const aliasLayers = aliases.length === 0 ? NONE : aliases.map((a) => this.markers(a, 'type'));
    const type = use.type;
    // A scalar's schema is made for this use; any other may be shared (an object type's is cached):
    // markers apply to a copy.
    let schema: JSONSchemaProps =
      type.t === 'scalar' || type.t === 'format' || type.t === 'enum'
        ? this.#typeSchema(type, where)
        : { ...this.#baseSchema(type, where, fieldMarkers) };
    if (use.nullable) schema.nullable = true;
    // Innermost alias first, so outer aliases and the field override.
    for (let i = aliasLayers.length - 1; i >= 0; i--) {
      const layer = aliasLayers[i]!;
      if (layer.doc.description) schema.description = layer.doc.description;
      schema = this.applyMarkers(schema, layer.markers, where);
    }
    schema = this.applyMarkers(schema, fieldMarkers, where);
    this.origin(schema, where);
    return schema;
  }

  /** Applies schema markers (in order) to a copy of `schema`. */
  applyMarkers(schema: JSONSchemaProps, markers: readonly CrdMarker[], where: Where): JSONSchemaProps {
    return applySchemaMarkers(schema, markers, where, this.celRules, this.warnings);
  }

  #baseSchema(type: ModelType, where: Where, fieldMarkers: readonly CrdMarker[]): JSONSchemaProps {
    if (type.t !== 'unknown') return this.#typeSchema(type, where);
    const wantsAnything = fieldMarkers.some(
      (m) =>
        m.spec.name === 'preserveUnknownFields' ||
        m.spec.name === 'schemaless' ||
        m.spec.name === 'embeddedResource',
    );
    if (wantsAnything) return {};
    throw this.#unsupported(
      where,
      'has type `unknown`',
      'Write the real type, or `PreserveUnknownFields` (from op-gen) for free-form objects, or add @preserveUnknownFields',
    );
  }

  /** A type met again while walking itself. */
  #recursive(label: string, where: Where): Error {
    return this.#unsupported(
      where,
      `is recursive (\`${label}\` contains itself)`,
      'Structural schemas cannot be recursive: cut the cycle, e.g. with a `PreserveUnknownFields` field or a name reference',
    );
  }

  #unsupported(where: Where, problem: string, fix: string): Error {
    return sourceError(where.location, where.path, problem, fix);
  }

  /** Object unions merge into one object with the rules that enforce the union (unions.ts). */
  #objectUnion(members: Extract<ModelType, { t: 'objectUnion' }>['members'], where: Where): JSONSchemaProps {
    const merged = mergeObjectUnion(
      members.map((m) => ({ schema: this.#typeSchema(m.type(), where), label: m.label() })),
      where,
    );
    this.#queueRules(merged, 0, where);
    return merged;
  }

  /** Queues the CEL rules of `schema` from index `from` on for checking. */
  #queueRules(schema: JSONSchemaProps, from: number, where: Where): void {
    const rules = schema['x-kubernetes-validations'] ?? [];
    for (let i = from; i < rules.length; i++) {
      const rule = rules[i];
      if (rule)
        this.celRules.push({ rule: rule.rule, self: schema, location: where.location, path: where.path });
    }
  }

  #typeSchema(type: ModelType, where: Where): JSONSchemaProps {
    switch (type.t) {
      case 'format':
        return formatSchema(type.format);
      case 'scalar':
        return { type: type.type };
      case 'enum':
        return { type: enumType(type.values), enum: [...type.values] };
      case 'unsupported':
        throw this.#unsupported(where, type.problem, type.fix);
      case 'unknown':
        throw this.#unsupported(
          where,
          'has type `unknown` which op-gen cannot map to a schema',
          'Use a plain JSON type',
        );
      case 'objectUnion':
        return this.#objectUnion(type.members, where);
      case 'array': {
        const itemsWhere = { path: `${where.path}[]`, location: where.location };
        // `type Nested = Nested[]` is valid TypeScript: an array that contains itself.
        return this.#notRecursive(type.key, type.label, where, () => ({
          type: 'array',
          items: this.schemaFor(type.element(), itemsWhere),
        }));
      }
      default:
        return this.#cachedSchema(type, where);
    }
  }

  /** Object types are resolved once. */
  #cachedSchema(
    type: Extract<ModelType, { t: 'object' | 'builtin' | 'objectMeta' | 'preserve' }>,
    where: Where,
  ): JSONSchemaProps {
    const key = type.t === 'object' ? type : type.key;
    // While collecting docs (loadApiModel), every use is walked so every path gets its docs.
    const cached = this.fieldDocs ? undefined : this.#cache.get(key);
    if (cached) return cached;
    // #notRecursive written out (no closure: this runs once per object type and use).
    if (this.#inProgress.has(key)) throw this.#recursive(type.t === 'object' ? type.label() : type.t, where);
    this.#inProgress.add(key);
    try {
      const schema = this.#uncachedSchema(type, where);
      this.#cache.set(key, schema);
      this.origin(schema, where);
      return schema;
    } finally {
      this.#inProgress.delete(key);
    }
  }

  #uncachedSchema(
    type: Extract<ModelType, { t: 'object' | 'builtin' | 'objectMeta' | 'preserve' }>,
    where: Where,
  ): JSONSchemaProps {
    switch (type.t) {
      case 'builtin':
        return this.#builtin(type.name, where);
      case 'objectMeta':
        return { type: 'object' };
      case 'preserve':
        return { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };
      case 'object':
        return this.#objectSchema(type, where);
    }
  }

  /** Walks `key` with it marked in progress: meeting it again below is a recursive type. */
  #notRecursive<T>(key: object, label: () => string, where: Where, walk: () => T): T {
    if (this.#inProgress.has(key)) throw this.#recursive(label(), where);
    this.#inProgress.add(key);
    try {
      return walk();
    } finally {
      this.#inProgress.delete(key);
    }
  }

  #objectSchema(type: ModelObject, where: Where): JSONSchemaProps {
    const schema: JSONSchemaProps = { type: 'object' };
    const typeMarkers = type.decl ? this.#typeDoc(type.decl, schema) : NONE;
    // `x?: never` (TypeScript's way to forbid a field, e.g. in union members) has no JSON form: left out.
    const props = type.fields().filter((p) => !p.forbidden());
    const map = this.#mapValueSchema(type, props.length > 0, where);
    if (map) schema.additionalProperties = map;
    if (props.length === 0) return this.applyMarkers(schema, typeMarkers, where);

    const properties: Record<string, JSONSchemaProps> = {};
    const required: string[] = [];
    const unionFields: MarkedUnionField[] = [];
    for (let i = 0; i < props.length; i++) {
      const prop = props[i]!;
      const result = this.fieldSchema(prop, where);
      properties[prop.name] = result.schema;
      if (result.required) required.push(prop.name);
      if (result.union) unionFields.push(result.union);
    }
    schema.properties = properties;
    // Sorted, as controller-gen writes them.
    if (required.length > 0) schema.required = required.sort();
    if (unionFields.length === 0) return this.applyMarkers(schema, typeMarkers, where);
    const withUnion = this.problems.attempt(() => applyMarkedUnion(schema, unionFields, where), schema);
    this.#queueRules(withUnion, schema['x-kubernetes-validations']?.length ?? 0, where);
    return this.applyMarkers(withUnion, typeMarkers, where);
  }

  /**
   * An interface's or object type alias's doc comment: its description goes on `schema`, its
   * markers are returned (a kind marker on a type that is not a kind is an error).
   */
  #typeDoc(decl: Documented & { readonly name: string }, schema: JSONSchemaProps): readonly CrdMarker[] {
    const parsed = this.markers(decl, 'type');
    if (parsed.doc.description) schema.description = parsed.doc.description;
    const misplaced = parsed.markers.find((m) => m.spec.effect?.on === 'kind');
    if (misplaced && !parsed.markers.some((m) => m.spec.name === 'kind')) {
      throw markerError(
        misplaced.location,
        misplaced.tag,
        `is a kind marker, but ${decl.name} is not a kind`,
        'Put it on the root type marked @kind',
      );
    }
    return parsed.markers;
  }

  /** The schema of a string index signature's values (`Record<string, T>`), if the type has one. */
  #mapValueSchema(type: ModelObject, hasProperties: boolean, where: Where): JSONSchemaProps | undefined {
    const index = type.index();
    if (!index) return undefined;
    if (index.keys !== 'string') {
      throw this.#unsupported(
        where,
        'has a non-string index signature',
        'Map keys are strings in JSON: use `Record<string, T>`',
      );
    }
    if (hasProperties) {
      throw this.#unsupported(
        where,
        'has both fixed fields and an index signature',
        'A structural schema cannot have properties and additionalProperties together: move the map into its own field',
      );
    }
    return this.schemaFor(index.value, { path: `${where.path}.*`, location: where.location });
  }

  /**
   * The schema of one property of an object type, and whether it is required. A problem with the
   * field is recorded and the field gets a stand-in (in `failed`), so the walk finds the other problems.
   */
  fieldSchema(
    prop: ModelField,
    parent: Where,
  ): { schema: JSONSchemaProps; required: boolean; union?: MarkedUnionField } {
    try {
      return this.#fieldSchema(prop, parent);
    } catch (err) {
      this.problems.addError(err);
      const standIn: JSONSchemaProps = { 'x-kubernetes-preserve-unknown-fields': true };
      this.failed.add(standIn);
      return { schema: standIn, required: false };
    }
  }

  #fieldSchema(
    prop: ModelField,
    parent: Where,
  ): { schema: JSONSchemaProps; required: boolean; union?: MarkedUnionField } {
    const path = parent.path ? `${parent.path}.${prop.name}` : prop.name;
    const location = prop.location ?? parent.location;
    const where = { path, location };
    if (prop.method) {
      throw this.#unsupported(where, 'is a method', 'Functions are not data: remove it from the API type');
    }
    const { doc, markers } = this.markers(prop.doc, 'field');
    this.fieldDocs?.push({ path, description: doc.description, tags: doc.tags, location });
    const names = markers.length === 0 ? NO_NAMES : new Set(markers.map((m) => m.spec.name));
    if (names.has('optional') && names.has('required')) {
      throw sourceError(location, path, '@optional and @required contradict each other', 'Keep one');
    }
    const required = names.has('required') || (!names.has('optional') && !prop.optional);
    let schema = names.has('schemaless')
      ? this.applyMarkers({}, markers, where)
      : this.schemaFor(prop.type(), where, markers);
    if (doc.description) schema = { ...schema, description: doc.description };
    this.origin(schema, where);
    const unionMarker = markers.find(
      (m) => m.spec.name === 'unionMember' || m.spec.name === 'unionDiscriminator',
    );
    if (!unionMarker) return { schema, required };
    const union: MarkedUnionField = {
      name: prop.name,
      role: unionMarker.spec.name === 'unionMember' ? 'member' : 'discriminator',
      ...(typeof unionMarker.value === 'string' && unionMarker.value !== ''
        ? { value: unionMarker.value }
        : {}),
      required,
      location: unionMarker.location,
    };
    return { schema, required, union };
  }

  #builtin(name: string, where: Where): JSONSchemaProps {
    if (!this.#builtins) {
      throw this.#unsupported(
        where,
        `uses the Kubernetes type ${name}`,
        'Kubernetes built-in types as field types are not available in this op-gen build yet (builtin-schemas.ts is missing)',
      );
    }
    const schema = this.#builtins.builtinSchemaFor(name);
    if (!schema) {
      throw this.#unsupported(
        where,
        `uses ${name} from @kubernetes/client-node, which op-gen has no schema for`,
        'Use a Kubernetes API type listed in docs/generate-crd-builtin-types.md, or declare the fields yourself',
      );
    }
    markEmbedded(schema, this.embeddedK8s);
    return schema;
  }
}

/** An enum's schema type: `string`, or `integer` when every number is whole, else `number`. */
function enumType(values: readonly (string | number)[]): 'string' | 'integer' | 'number' {
  if (values.every((v) => typeof v === 'string')) return 'string';
  return values.every((v) => Number.isInteger(v)) ? 'integer' : 'number';
}

export type { JsonValue };

/** Marks a built-in type's schema and every node below it as embedded (size-budget.ts trims those first). */
export function markEmbedded(node: JSONSchemaProps, into: WeakSet<JSONSchemaProps>): void {
  into.add(node);
  for (const child of Object.values(node.properties ?? {})) markEmbedded(child, into);
  if (node.items) markEmbedded(node.items, into);
  if (typeof node.additionalProperties === 'object') markEmbedded(node.additionalProperties, into);
}
