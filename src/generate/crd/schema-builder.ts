import { relative, sep } from 'node:path';
import type { ts as TS } from 'ts-morph';
import { crdMarkers, type CrdMarker } from './markers.ts';
import type { DocComment, JsonValue, RawTag, SourceLocation } from '../../markers/index.ts';
import { goFormLines, goFormProblems } from '../go-forms.ts';
import { markerError } from '../../markers/index.ts';
import { docOf, lineOf } from '../../source/doc.ts';
import { LIB_STUB_PATH } from '../../source/lib-stub.ts';
import { ProblemCollector } from '../../shared/problems.ts';
import { K8S_STUB_DIR } from '../../source/api-program.ts';
import type { ApiField } from '../../source/api-model.ts';
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

const NON_JSON_LIB_TYPES = new Set([
  'Date',
  'Promise',
  'Map',
  'Set',
  'RegExp',
  'Function',
  'Symbol',
  'BigInt',
]);

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
 * Turns checker types into structural schemas. Each object type is resolved once (cached by type id);
 * markers on type aliases, fields and kinds are applied on copies.
 */
export class SchemaBuilder {
  readonly #ts: typeof TS;
  readonly #checker: TS.TypeChecker;
  readonly #cwd: string;
  readonly #opGenTypesDir: string;
  readonly #builtins: BuiltinSchemas | undefined;
  readonly #cache = new Map<number, JSONSchemaProps>();
  readonly #inProgress = new Set<number>();
  readonly #docCache = new Map<TS.Node, DocComment>();
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

  constructor(
    ts: typeof TS,
    checker: TS.TypeChecker,
    cwd: string,
    opGenTypesDir: string,
    builtins: BuiltinSchemas | undefined,
  ) {
    this.#ts = ts;
    this.#checker = checker;
    this.#cwd = cwd;
    this.#opGenTypesDir = opGenTypesDir;
    this.#builtins = builtins;
  }

  readonly #displayCache = new Map<string, string>();

  display(fileName: string): string {
    let shown = this.#displayCache.get(fileName);
    if (shown === undefined) {
      shown = relative(this.#cwd, fileName) || fileName;
      this.#displayCache.set(fileName, shown);
    }
    return shown;
  }

  locationOf(node: TS.Node): SourceLocation {
    const file = node.getSourceFile();
    return { file: this.display(file.fileName), line: lineOf(node, file) };
  }

  doc(node: TS.Node): DocComment {
    let doc = this.#docCache.get(node);
    if (!doc) {
      doc = docOf(this.#ts, node, node.getSourceFile(), goFormLines);
      this.#docCache.set(node, doc);
    }
    return doc;
  }

  /** Parses the markers of a declaration (type or field). Unknown tags are returned apart. */
  markers(
    node: TS.Node,
    target: 'type' | 'field',
  ): { doc: DocComment; markers: CrdMarker[]; unknown: RawTag[] } {
    const doc = this.doc(node);
    if (doc.tags.length === 0 && doc.inline.length === 0 && doc.goForm.length === 0)
      return { doc, markers: [], unknown: [] };
    const file = this.display(node.getSourceFile().fileName);
    // Problems are recorded and the markers without one apply: the walk goes on to find the others.
    for (const problem of goFormProblems(doc, file)) this.problems.add(problem);
    const parsed = crdMarkers.parseAll(doc.tags, target, file, doc.inline, (p) => this.problems.add(p));
    return { doc, ...parsed };
  }

  /**
   * The schema of a field or element typed `type`, written as `typeNode` (when known: markers on
   * type aliases along the way apply). `path` is for errors (`Memcached.spec.pods[].name`).
   */
  schemaFor(
    type: TS.Type,
    typeNode: TS.TypeNode | undefined,
    where: Where,
    fieldMarkers: readonly CrdMarker[] = [],
  ): JSONSchemaProps {
    const ts = this.#ts;
    // Markers and descriptions of type aliases the field is written with (`port: Port`).
    const aliasLayers: { doc: DocComment; markers: CrdMarker[] }[] = [];
    let node = typeNode;
    let elementNode: TS.TypeNode | undefined;
    for (let hops = 0; node && hops < 20; hops++) {
      node = this.#stripNullable(node);
      if (!node) break;
      if (ts.isArrayTypeNode(node)) {
        elementNode = node.elementType;
        break;
      }
      if (!ts.isTypeReferenceNode(node)) break;
      if (
        ts.isIdentifier(node.typeName) &&
        (node.typeName.text === 'Array' || node.typeName.text === 'ReadonlyArray')
      ) {
        elementNode = node.typeArguments?.[0];
        break;
      }
      let symbol = this.#checker.getSymbolAtLocation(node.typeName);
      if (symbol && symbol.flags & ts.SymbolFlags.Alias) symbol = this.#checker.getAliasedSymbol(symbol);
      const decl = symbol?.declarations?.[0];
      if (!decl || !ts.isTypeAliasDeclaration(decl) || decl.typeParameters) break;
      if (this.#isOpGenFile(decl.getSourceFile().fileName)) break;
      const layer = this.markers(decl, 'type');
      aliasLayers.push(layer);
      node = decl.type;
    }

    const { base, nullable } = this.#baseSchema(type, where, elementNode, fieldMarkers);
    let schema: JSONSchemaProps = { ...base };
    if (nullable) schema.nullable = true;
    // Innermost alias first, so outer aliases and the field override.
    for (const layer of aliasLayers.reverse()) {
      if (layer.doc.description) schema.description = layer.doc.description;
      schema = this.applyMarkers(schema, layer.markers, where);
    }
    schema = this.applyMarkers(schema, fieldMarkers, where);
    this.origins.set(schema, where);
    return schema;
  }

  #stripNullable(node: TS.TypeNode): TS.TypeNode | undefined {
    const ts = this.#ts;
    while (
      ts.isParenthesizedTypeNode(node) ||
      (ts.isTypeOperatorNode(node) && node.operator === ts.SyntaxKind.ReadonlyKeyword)
    ) {
      node = ts.isParenthesizedTypeNode(node) ? node.type : node.type;
    }
    if (ts.isUnionTypeNode(node)) {
      const rest = node.types.filter(
        (t) =>
          !(ts.isLiteralTypeNode(t) && t.literal.kind === ts.SyntaxKind.NullKeyword) &&
          t.kind !== ts.SyntaxKind.UndefinedKeyword,
      );
      return rest.length === 1 ? rest[0] : undefined;
    }
    return node;
  }

  #isOpGenFile(fileName: string): boolean {
    return (
      fileName.startsWith(this.#opGenTypesDir) ||
      fileName.split(sep).join('/').includes('/node_modules/op-gen/')
    );
  }

  /** Applies schema markers (in order) to a copy of `schema`. */
  applyMarkers(schema: JSONSchemaProps, markers: readonly CrdMarker[], where: Where): JSONSchemaProps {
    return applySchemaMarkers(schema, markers, where, this.celRules, this.warnings);
  }

  #baseSchema(
    type: TS.Type,
    where: Where,
    elementNode: TS.TypeNode | undefined,
    fieldMarkers: readonly CrdMarker[],
  ): { base: JSONSchemaProps; nullable: boolean } {
    const ts = this.#ts;
    const F = ts.TypeFlags;
    let nullable = false;
    let t = type;
    if (t.flags & F.Union) {
      const members = (t as TS.UnionType).types.filter((m) => {
        if (m.flags & F.Null) nullable = true;
        return !(m.flags & (F.Null | F.Undefined | F.Void));
      });
      if (members.length === 0)
        throw this.#unsupported(where, 'is only null/undefined', 'Give the field a real type');
      if (members.length === 1 && members[0]) t = members[0];
      else if (members.length !== (t as TS.UnionType).types.length) {
        return { base: this.#unionSchema(members, where), nullable };
      }
    }
    const wantsAnything = fieldMarkers.some(
      (m) =>
        m.spec.name === 'preserveUnknownFields' ||
        m.spec.name === 'schemaless' ||
        m.spec.name === 'embeddedResource',
    );
    if (t.flags & F.Any) {
      throw this.#unsupported(
        where,
        'has type `any`',
        'Write the real type, or `PreserveUnknownFields` (from op-gen) for free-form objects',
      );
    }
    if (t.flags & F.Unknown) {
      if (wantsAnything) return { base: {}, nullable };
      throw this.#unsupported(
        where,
        'has type `unknown`',
        'Write the real type, or `PreserveUnknownFields` (from op-gen) for free-form objects, or add @preserveUnknownFields',
      );
    }
    return { base: this.#typeSchema(t, where, elementNode), nullable };
  }

  #unsupported(where: Where, problem: string, fix: string): Error {
    return sourceError(where.location, where.path, problem, fix);
  }

  #formatTag(type: TS.Type): string | undefined {
    const ts = this.#ts;
    if (!(type.flags & ts.TypeFlags.Intersection)) return undefined;
    for (const part of (type as TS.IntersectionType).types) {
      if (part.symbol?.name !== 'SchemaFormatTag') continue;
      const arg = this.#checker.getTypeArguments(part as TS.TypeReference)[0];
      if (arg && arg.flags & ts.TypeFlags.StringLiteral) return (arg as TS.StringLiteralType).value;
    }
    return undefined;
  }

  /** A union (null/undefined already removed): literal enums, booleans, tagged scalars, or an error. */
  #unionSchema(members: readonly TS.Type[], where: Where): JSONSchemaProps {
    const ts = this.#ts;
    const F = ts.TypeFlags;
    // (string | number) & Tag is normalised to (string & Tag) | (number & Tag).
    const tags = members.map((m) => this.#formatTag(m));
    if (tags[0] && tags.every((x) => x === tags[0])) return formatSchema(tags[0]);
    if (members.every((m) => m.flags & F.BooleanLiteral)) return { type: 'boolean' };
    if (members.every((m) => m.flags & F.StringLiteral)) {
      return { type: 'string', enum: members.map((m) => (m as TS.StringLiteralType).value) };
    }
    if (members.every((m) => m.flags & F.NumberLiteral)) {
      const values = members.map((m) => (m as TS.NumberLiteralType).value);
      return { type: values.every(Number.isInteger) ? 'integer' : 'number', enum: values };
    }
    if (members.every((m) => m.flags & F.Object) && !members.some((m) => this.#checker.isArrayType(m))) {
      return this.#discriminatedUnion(members, where);
    }
    throw this.#unsupported(
      where,
      `is a union of different kinds of values (${members.map((m) => this.#checker.typeToString(m)).join(' | ')})`,
      'A structural schema needs one type per field: use one type, a string-literal union, `IntOrString`, or separate optional fields',
    );
  }

  /** Object unions merge into one object with the rules that enforce the union (unions.ts). */
  #discriminatedUnion(members: readonly TS.Type[], where: Where): JSONSchemaProps {
    const merged = mergeObjectUnion(
      members.map((m) => ({
        schema: this.#typeSchema(m, where, undefined),
        label: this.#checker.typeToString(m),
      })),
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

  #typeSchema(type: TS.Type, where: Where, elementNode: TS.TypeNode | undefined): JSONSchemaProps {
    const ts = this.#ts;
    const F = ts.TypeFlags;
    const checker = this.#checker;
    const tag = this.#formatTag(type);
    if (tag) return formatSchema(tag);
    if (type.flags & F.Union) return this.#unionSchema((type as TS.UnionType).types, where);
    if (type.flags & F.StringLike) {
      if (type.flags & F.StringLiteral)
        return { type: 'string', enum: [(type as TS.StringLiteralType).value] };
      if (type.flags & F.TemplateLiteral) return { type: 'string' };
      return { type: 'string' };
    }
    if (type.flags & F.NumberLike) {
      if (type.flags & F.NumberLiteral) {
        const v = (type as TS.NumberLiteralType).value;
        return { type: Number.isInteger(v) ? 'integer' : 'number', enum: [v] };
      }
      return { type: 'number' };
    }
    if (type.flags & F.BooleanLike) return { type: 'boolean' };
    if (type.flags & F.BigIntLike) {
      throw this.#unsupported(
        where,
        'is a bigint',
        'JSON has no bigint: use `int64` (from op-gen) or a string',
      );
    }
    if (type.flags & (F.ESSymbolLike | F.Never | F.Void | F.Undefined | F.Null)) {
      throw this.#unsupported(
        where,
        `has type \`${checker.typeToString(type)}\` which has no JSON form`,
        'Use a JSON type',
      );
    }
    if (type.flags & F.TypeParameter) {
      throw this.#unsupported(
        where,
        'is an unresolved type parameter',
        'Instantiate the generic type with a concrete type argument',
      );
    }
    if (!(type.flags & (F.Object | F.Intersection))) {
      throw this.#unsupported(
        where,
        `has type \`${checker.typeToString(type)}\` which op-gen cannot map to a schema`,
        'Use a plain JSON type',
      );
    }
    if (checker.isTupleType(type)) {
      throw this.#unsupported(
        where,
        'is a tuple',
        'Structural schemas cannot say "item 0 is X, item 1 is Y": use an array of one type or an object with named fields',
      );
    }
    if (checker.isArrayType(type)) {
      const element = checker.getTypeArguments(type as TS.TypeReference)[0];
      if (!element)
        throw this.#unsupported(where, 'is an array of unknown element type', 'Write the element type');
      const itemsWhere = { path: `${where.path}[]`, location: where.location };
      // `type Nested = Nested[]` is valid TypeScript: an array that contains itself.
      return this.#notRecursive(type, where, () => ({
        type: 'array',
        items: this.schemaFor(element, elementNode, itemsWhere),
      }));
    }
    // Object types are resolved once.
    const id = (type as { id?: number }).id ?? -1;
    // While collecting docs (loadApiModel), every use is walked so every path gets its docs.
    const cached = this.fieldDocs ? undefined : this.#cache.get(id);
    if (cached) return cached;
    return this.#notRecursive(type, where, () => {
      const schema = this.#objectSchema(type, where);
      this.#cache.set(id, schema);
      this.origins.set(schema, where);
      return schema;
    });
  }

  /** Walks `type` with it marked in progress: meeting it again below is a recursive type. */
  #notRecursive<T>(type: TS.Type, where: Where, walk: () => T): T {
    const id = (type as { id?: number }).id ?? -1;
    if (this.#inProgress.has(id)) {
      throw this.#unsupported(
        where,
        `is recursive (\`${this.#checker.typeToString(type)}\` contains itself)`,
        'Structural schemas cannot be recursive: cut the cycle, e.g. with a `PreserveUnknownFields` field or a name reference',
      );
    }
    this.#inProgress.add(id);
    try {
      return walk();
    } finally {
      this.#inProgress.delete(id);
    }
  }

  #objectSchema(type: TS.Type, where: Where): JSONSchemaProps {
    const symbol = type.aliasSymbol ?? type.getSymbol();
    const decl = symbol?.declarations?.[0];
    const declFile = decl?.getSourceFile().fileName ?? '';
    const name = symbol?.name ?? '';
    if (declFile.startsWith(K8S_STUB_DIR)) return this.#builtin(name, where);
    if (this.#isOpGenFile(declFile)) {
      if (name === 'ObjectMeta') return { type: 'object' };
      if (name === 'PreserveUnknownFields')
        return { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };
    }
    this.#rejectNonData(type, symbol, where);

    const schema: JSONSchemaProps = { type: 'object' };
    const typeMarkers = decl ? this.#typeDoc(decl, name, schema) : [];
    // `x?: never` (TypeScript's way to forbid a field, e.g. in union members) has no JSON form: left out.
    const props = this.#checker
      .getPropertiesOfType(type)
      .filter((p) => !p.name.startsWith('__@') && !this.#isForbiddenField(p));
    const map = this.#mapValueSchema(type, props.length > 0, where);
    if (map) schema.additionalProperties = map;
    if (props.length === 0) return this.applyMarkers(schema, typeMarkers, where);

    const properties: Record<string, JSONSchemaProps> = {};
    const required: string[] = [];
    const unionFields: MarkedUnionField[] = [];
    for (const prop of props) {
      const result = this.fieldSchema(prop, where);
      if (!result) continue;
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

  /** Dates, Maps, Sets, functions and classes have no JSON form: an error naming what to use. */
  #rejectNonData(type: TS.Type, symbol: TS.Symbol | undefined, where: Where): void {
    const ownSymbol = type.getSymbol();
    const ownName = ownSymbol?.name ?? '';
    if (
      ownSymbol?.declarations?.[0]?.getSourceFile().fileName === LIB_STUB_PATH &&
      NON_JSON_LIB_TYPES.has(ownName)
    ) {
      if (ownName === 'Date')
        throw this.#unsupported(
          where,
          'is a Date',
          'A Date is not JSON: use `Time` (from op-gen), an RFC 3339 string',
        );
      throw this.#unsupported(
        where,
        `has type \`${ownName}\` which has no JSON form`,
        'Use an array, a Record<string, T> or an interface',
      );
    }
    if (type.getCallSignatures().length > 0 || type.getConstructSignatures().length > 0) {
      throw this.#unsupported(
        where,
        'is a function',
        'Functions are not data: remove the field from the API type',
      );
    }
    if (symbol && symbol.flags & this.#ts.SymbolFlags.Class) {
      throw this.#unsupported(
        where,
        `is the class \`${symbol.name}\``,
        'Use an interface or a type alias for API types',
      );
    }
  }

  /**
   * An interface's or object type alias's doc comment: its description goes on `schema`, its
   * markers are returned (a kind marker on a type that is not a kind is an error).
   */
  #typeDoc(decl: TS.Declaration, name: string, schema: JSONSchemaProps): CrdMarker[] {
    const ts = this.#ts;
    if (!ts.isInterfaceDeclaration(decl) && !ts.isTypeAliasDeclaration(decl)) return [];
    const parsed = this.markers(decl, 'type');
    if (parsed.doc.description) schema.description = parsed.doc.description;
    const misplaced = parsed.markers.find((m) => m.spec.effect?.on === 'kind');
    if (misplaced && !parsed.markers.some((m) => m.spec.name === 'kind')) {
      throw markerError(
        misplaced.location,
        misplaced.tag,
        `is a kind marker, but ${name} is not a kind`,
        'Put it on the root type marked @kind',
      );
    }
    return parsed.markers;
  }

  /** The schema of a string index signature's values (`Record<string, T>`), if the type has one. */
  #mapValueSchema(type: TS.Type, hasProperties: boolean, where: Where): JSONSchemaProps | undefined {
    const indexInfos = this.#checker.getIndexInfosOfType(type);
    if (indexInfos.length === 0) return undefined;
    const info = indexInfos[0];
    if (!info || indexInfos.length > 1 || !(info.keyType.flags & this.#ts.TypeFlags.String)) {
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
    return this.schemaFor(info.type, info.declaration?.type, {
      path: `${where.path}.*`,
      location: where.location,
    });
  }

  /**
   * The schema of one property of an object type, and whether it is required. A problem with the
   * field is recorded and the field gets a stand-in (in `failed`), so the walk finds the other problems.
   */
  fieldSchema(
    prop: TS.Symbol,
    parent: Where,
  ): { schema: JSONSchemaProps; required: boolean; union?: MarkedUnionField } | undefined {
    try {
      return this.#fieldSchema(prop, parent);
    } catch (err) {
      this.problems.addError(err);
      const standIn: JSONSchemaProps = { 'x-kubernetes-preserve-unknown-fields': true };
      this.failed.add(standIn);
      return { schema: standIn, required: false };
    }
  }

  /** An optional field typed `never` (or `undefined`): TypeScript's "must not be set". */
  #isForbiddenField(prop: TS.Symbol): boolean {
    const F = this.#ts.TypeFlags;
    if (!(prop.flags & this.#ts.SymbolFlags.Optional)) return false;
    const type = this.#checker.getTypeOfSymbol(prop);
    return !!(type.flags & (F.Never | F.Undefined));
  }

  #fieldSchema(
    prop: TS.Symbol,
    parent: Where,
  ): { schema: JSONSchemaProps; required: boolean; union?: MarkedUnionField } | undefined {
    const ts = this.#ts;
    const decl = prop.valueDeclaration ?? prop.declarations?.[0];
    const path = parent.path ? `${parent.path}.${prop.name}` : prop.name;
    const location = decl ? this.locationOf(decl) : parent.location;
    const where = { path, location };
    if (decl && (ts.isMethodSignature(decl) || ts.isMethodDeclaration(decl))) {
      throw this.#unsupported(where, 'is a method', 'Functions are not data: remove it from the API type');
    }
    const { doc, markers, unknown } = decl
      ? this.markers(decl, 'field')
      : { doc: { description: '', tags: [] }, markers: [], unknown: [] };
    this.fieldDocs?.push({ path, description: doc.description, tags: doc.tags, location });
    void unknown;
    const names = new Set(markers.map((m) => m.spec.name));
    let required = !(prop.flags & ts.SymbolFlags.Optional);
    if (names.has('optional') && names.has('required')) {
      throw sourceError(location, path, '@optional and @required contradict each other', 'Keep one');
    }
    if (names.has('optional')) required = false;
    if (names.has('required')) required = true;
    let schema: JSONSchemaProps;
    if (names.has('schemaless')) {
      schema = this.applyMarkers({}, markers, where);
    } else {
      const type = this.#checker.getTypeOfSymbol(prop);
      const typeNode =
        decl && (ts.isPropertySignature(decl) || ts.isPropertyDeclaration(decl)) ? decl.type : undefined;
      schema = this.schemaFor(type, typeNode, where, markers);
    }
    if (doc.description) schema = { ...schema, description: doc.description };
    this.origins.set(schema, where);
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
    if (schema) markEmbedded(schema, this.embeddedK8s);
    if (!schema) {
      throw this.#unsupported(
        where,
        `uses ${name} from @kubernetes/client-node, which op-gen has no schema for`,
        'Use a Kubernetes API type listed in docs/generate-crd-builtin-types.md, or declare the fields yourself',
      );
    }
    return schema;
  }
}

export type { JsonValue };

/** Marks a built-in type's schema and every node below it as embedded (size-budget.ts trims those first). */
export function markEmbedded(node: JSONSchemaProps, into: WeakSet<JSONSchemaProps>): void {
  into.add(node);
  for (const child of Object.values(node.properties ?? {})) markEmbedded(child, into);
  if (node.items) markEmbedded(node.items, into);
  if (typeof node.additionalProperties === 'object') markEmbedded(node.additionalProperties, into);
}
