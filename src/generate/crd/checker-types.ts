import { relative, sep } from 'node:path';
import type { ts as TS } from 'ts-morph';
import type { DocComment, SourceLocation } from '../../markers/index.ts';
import { K8S_STUB_DIR } from '../../source/api-program.ts';
import { docOf, lineOf } from '../../source/doc.ts';
import { LIB_STUB_PATH } from '../../source/lib-stub.ts';
import type {
  Documented,
  ModelField,
  ModelKind,
  ModelObject,
  ModelType,
  TypeUse,
} from '../../source/type-model.ts';
import { goFormLines } from '../go-forms.ts';

/**
 * The type checker's front end: reads the checker's types into the type model
 * (source/type-model.ts). Parts below a type are read when the schema builder asks for them, so the
 * checker resolves types in the order the builder walks them (an enum's values come in the order the
 * checker first created each literal).
 */

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

function unsupported(problem: string, fix: string): ModelType {
  return { t: 'unsupported', problem, fix };
}

/** A value computed on first use. */
function once<T>(compute: () => T): () => T {
  let value: { v: T } | undefined;
  return () => (value ??= { v: compute() }).v;
}

export class CheckerTypes {
  readonly #ts: typeof TS;
  readonly #checker: TS.TypeChecker;
  readonly #cwd: string;
  readonly #opGenTypesDir: string;
  readonly #docCache = new Map<TS.Node, DocComment>();
  readonly #displayCache = new Map<string, string>();
  /** One model object per checker type (its identity is the builder's cache key). */
  readonly #objects = new Map<number, ModelType>();
  readonly #keys = new Map<number, object>();

  constructor(ts: typeof TS, checker: TS.TypeChecker, cwd: string, opGenTypesDir: string) {
    this.#ts = ts;
    this.#checker = checker;
    this.#cwd = cwd;
    this.#opGenTypesDir = opGenTypesDir;
  }

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

  documented(node: TS.Node): Documented {
    return { doc: this.doc(node), file: this.display(node.getSourceFile().fileName) };
  }

  /** A declaration marked `@kind`. */
  kind(
    decl: TS.InterfaceDeclaration | TS.TypeAliasDeclaration,
    seed: { group: string; version: string; location: SourceLocation },
  ): ModelKind {
    const ts = this.#ts;
    return {
      ...seed,
      name: decl.name.text,
      exported: !!decl.modifiers?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword),
      generic: !!decl.typeParameters,
      doc: this.documented(decl),
      fields: () =>
        this.#checker
          .getPropertiesOfType(this.#checker.getTypeAtLocation(decl.name))
          .filter((p) => !p.name.startsWith('__@'))
          .map((p) => this.#field(p)),
    };
  }

  #field(prop: TS.Symbol): ModelField {
    const ts = this.#ts;
    const decl = prop.valueDeclaration ?? prop.declarations?.[0];
    const optional = !!(prop.flags & ts.SymbolFlags.Optional);
    const type = once(() => this.#checker.getTypeOfSymbol(prop));
    const typeNode =
      decl && (ts.isPropertySignature(decl) || ts.isPropertyDeclaration(decl)) ? decl.type : undefined;
    return {
      name: prop.name,
      optional,
      forbidden: () => optional && !!(type().flags & (ts.TypeFlags.Never | ts.TypeFlags.Undefined)),
      method: !!decl && (ts.isMethodSignature(decl) || ts.isMethodDeclaration(decl)),
      location: decl ? this.locationOf(decl) : undefined,
      doc: decl ? this.documented(decl) : undefined,
      type: () => this.use(type(), typeNode),
      typeName: () => this.#typeName(type()),
    };
  }

  /** The name of a type without `undefined`, and the type as written (kind metadata's check). */
  #typeName(type: TS.Type): { name: string | undefined; text: string } {
    const ts = this.#ts;
    const name = (type.aliasSymbol ?? type.getSymbol())?.name;
    const nonNull =
      type.flags & ts.TypeFlags.Union
        ? (type as TS.UnionType).types.find((t) => !(t.flags & ts.TypeFlags.Undefined))
        : type;
    return {
      name: nonNull?.getSymbol()?.name ?? name,
      text: this.#checker.typeToString(nonNull ?? type),
    };
  }

  /** A field or element typed `type`, written as `typeNode` (when known: its aliases apply). */
  use(type: TS.Type, typeNode: TS.TypeNode | undefined): TypeUse {
    const { aliases, elementNode } = this.#aliases(typeNode);
    return { aliases, ...this.#base(type, elementNode) };
  }

  /** The type aliases along a written type, and the element type node of an array it reaches. */
  #aliases(typeNode: TS.TypeNode | undefined): {
    aliases: Documented[];
    elementNode: TS.TypeNode | undefined;
  } {
    const ts = this.#ts;
    const aliases: Documented[] = [];
    let node = typeNode;
    for (let hops = 0; node && hops < 20; hops++) {
      node = this.#stripNullable(node);
      if (!node) break;
      if (ts.isArrayTypeNode(node)) return { aliases, elementNode: node.elementType };
      if (!ts.isTypeReferenceNode(node)) break;
      if (
        ts.isIdentifier(node.typeName) &&
        (node.typeName.text === 'Array' || node.typeName.text === 'ReadonlyArray')
      ) {
        return { aliases, elementNode: node.typeArguments?.[0] };
      }
      let symbol = this.#checker.getSymbolAtLocation(node.typeName);
      if (symbol && symbol.flags & ts.SymbolFlags.Alias) symbol = this.#checker.getAliasedSymbol(symbol);
      const decl = symbol?.declarations?.[0];
      if (!decl || !ts.isTypeAliasDeclaration(decl) || decl.typeParameters) break;
      if (this.#isOpGenFile(decl.getSourceFile().fileName)) break;
      aliases.push(this.documented(decl));
      node = decl.type;
    }
    return { aliases, elementNode: undefined };
  }

  #stripNullable(node: TS.TypeNode): TS.TypeNode | undefined {
    const ts = this.#ts;
    while (
      ts.isParenthesizedTypeNode(node) ||
      (ts.isTypeOperatorNode(node) && node.operator === ts.SyntaxKind.ReadonlyKeyword)
    ) {
      node = node.type;
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

  /** `null` and `undefined` taken out of a field's type; `any` and `unknown`. */
  #base(type: TS.Type, elementNode: TS.TypeNode | undefined): { nullable: boolean; type: ModelType } {
    const F = this.#ts.TypeFlags;
    let nullable = false;
    let t = type;
    if (t.flags & F.Union) {
      const members = (t as TS.UnionType).types.filter((m) => {
        if (m.flags & F.Null) nullable = true;
        return !(m.flags & (F.Null | F.Undefined | F.Void));
      });
      if (members.length === 0)
        return { nullable, type: unsupported('is only null/undefined', 'Give the field a real type') };
      if (members.length === 1 && members[0]) t = members[0];
      else if (members.length !== (t as TS.UnionType).types.length) {
        return { nullable, type: this.#union(members) };
      }
    }
    if (t.flags & F.Any) {
      return {
        nullable,
        type: unsupported(
          'has type `any`',
          'Write the real type, or `PreserveUnknownFields` (from op-gen) for free-form objects',
        ),
      };
    }
    if (t.flags & F.Unknown) return { nullable, type: { t: 'unknown' } };
    return { nullable, type: this.#shape(t, elementNode) };
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

  /** A union (null/undefined already removed): literal enums, booleans, tagged scalars, object unions. */
  #union(members: readonly TS.Type[]): ModelType {
    const F = this.#ts.TypeFlags;
    const checker = this.#checker;
    // (string | number) & Tag is normalised to (string & Tag) | (number & Tag).
    const tags = members.map((m) => this.#formatTag(m));
    if (tags[0] && tags.every((x) => x === tags[0])) return { t: 'format', format: tags[0] };
    if (members.every((m) => m.flags & F.BooleanLiteral)) return { t: 'scalar', type: 'boolean' };
    if (members.every((m) => m.flags & F.StringLiteral))
      return { t: 'enum', values: members.map((m) => (m as TS.StringLiteralType).value) };
    if (members.every((m) => m.flags & F.NumberLiteral))
      return { t: 'enum', values: members.map((m) => (m as TS.NumberLiteralType).value) };
    if (members.every((m) => m.flags & F.Object) && !members.some((m) => checker.isArrayType(m))) {
      return {
        t: 'objectUnion',
        members: members.map((m) => ({
          type: () => this.#shape(m, undefined),
          label: () => checker.typeToString(m),
        })),
      };
    }
    return unsupported(
      `is a union of different kinds of values (${members.map((m) => checker.typeToString(m)).join(' | ')})`,
      'A structural schema needs one type per field: use one type, a string-literal union, `IntOrString`, or separate optional fields',
    );
  }

  #shape(type: TS.Type, elementNode: TS.TypeNode | undefined): ModelType {
    const F = this.#ts.TypeFlags;
    const checker = this.#checker;
    const tag = this.#formatTag(type);
    if (tag) return { t: 'format', format: tag };
    if (type.flags & F.Union) return this.#union((type as TS.UnionType).types);
    if (type.flags & F.StringLike) {
      if (type.flags & F.StringLiteral) return { t: 'enum', values: [(type as TS.StringLiteralType).value] };
      return { t: 'scalar', type: 'string' };
    }
    if (type.flags & F.NumberLike) {
      if (type.flags & F.NumberLiteral) return { t: 'enum', values: [(type as TS.NumberLiteralType).value] };
      return { t: 'scalar', type: 'number' };
    }
    if (type.flags & F.BooleanLike) return { t: 'scalar', type: 'boolean' };
    const notData = this.#notData(type);
    if (notData) return notData;
    if (checker.isArrayType(type)) {
      const element = checker.getTypeArguments(type as TS.TypeReference)[0];
      if (!element) return unsupported('is an array of unknown element type', 'Write the element type');
      return {
        t: 'array',
        key: this.#key(type),
        element: () => this.use(element, elementNode),
        label: () => checker.typeToString(type),
      };
    }
    const id = (type as { id?: number }).id ?? -1;
    let object = this.#objects.get(id);
    if (!object) this.#objects.set(id, (object = this.#object(type)));
    return object;
  }

  /** The types with no JSON form that are not objects: bigint, symbol, never, a type parameter, a tuple. */
  #notData(type: TS.Type): ModelType | undefined {
    const F = this.#ts.TypeFlags;
    const checker = this.#checker;
    if (type.flags & F.BigIntLike)
      return unsupported('is a bigint', 'JSON has no bigint: use `int64` (from op-gen) or a string');
    if (type.flags & (F.ESSymbolLike | F.Never | F.Void | F.Undefined | F.Null)) {
      return unsupported(
        `has type \`${checker.typeToString(type)}\` which has no JSON form`,
        'Use a JSON type',
      );
    }
    if (type.flags & F.TypeParameter) {
      return unsupported(
        'is an unresolved type parameter',
        'Instantiate the generic type with a concrete type argument',
      );
    }
    if (!(type.flags & (F.Object | F.Intersection))) {
      return unsupported(
        `has type \`${checker.typeToString(type)}\` which op-gen cannot map to a schema`,
        'Use a plain JSON type',
      );
    }
    if (checker.isTupleType(type)) {
      return unsupported(
        'is a tuple',
        'Structural schemas cannot say "item 0 is X, item 1 is Y": use an array of one type or an object with named fields',
      );
    }
    return undefined;
  }

  #key(type: TS.Type): object {
    const id = (type as { id?: number }).id ?? -1;
    let key = this.#keys.get(id);
    if (!key) this.#keys.set(id, (key = {}));
    return key;
  }

  /** An object type: a built-in, op-gen's ObjectMeta or PreserveUnknownFields, a non-data type, or data. */
  #object(type: TS.Type): ModelType {
    const ts = this.#ts;
    const symbol = type.aliasSymbol ?? type.getSymbol();
    const decl = symbol?.declarations?.[0];
    const declFile = decl?.getSourceFile().fileName ?? '';
    const name = symbol?.name ?? '';
    if (declFile.startsWith(K8S_STUB_DIR)) return { t: 'builtin', name, key: this.#key(type) };
    if (this.#isOpGenFile(declFile)) {
      if (name === 'ObjectMeta') return { t: 'objectMeta', key: this.#key(type) };
      if (name === 'PreserveUnknownFields') return { t: 'preserve', key: this.#key(type) };
    }
    const nonData = this.#nonDataObject(type, symbol);
    if (nonData) return nonData;
    const checker = this.#checker;
    const object: ModelObject = {
      t: 'object',
      decl:
        decl && (ts.isInterfaceDeclaration(decl) || ts.isTypeAliasDeclaration(decl))
          ? { ...this.documented(decl), name }
          : undefined,
      label: () => checker.typeToString(type),
      fields: () =>
        checker
          .getPropertiesOfType(type)
          .filter((p) => !p.name.startsWith('__@'))
          .map((p) => this.#field(p)),
      index: once(() => {
        const infos = checker.getIndexInfosOfType(type);
        const info = infos[0];
        if (!info) return undefined;
        if (infos.length > 1 || !(info.keyType.flags & ts.TypeFlags.String)) return { keys: 'other' };
        return { keys: 'string', value: this.use(info.type, info.declaration?.type) };
      }),
    };
    return object;
  }

  /** Dates, Maps, Sets, functions and classes have no JSON form: an error naming what to use. */
  #nonDataObject(type: TS.Type, symbol: TS.Symbol | undefined): ModelType | undefined {
    const ownSymbol = type.getSymbol();
    const ownName = ownSymbol?.name ?? '';
    if (
      ownSymbol?.declarations?.[0]?.getSourceFile().fileName === LIB_STUB_PATH &&
      NON_JSON_LIB_TYPES.has(ownName)
    ) {
      if (ownName === 'Date')
        return unsupported('is a Date', 'A Date is not JSON: use `Time` (from op-gen), an RFC 3339 string');
      return unsupported(
        `has type \`${ownName}\` which has no JSON form`,
        'Use an array, a Record<string, T> or an interface',
      );
    }
    if (type.getCallSignatures().length > 0 || type.getConstructSignatures().length > 0)
      return unsupported('is a function', 'Functions are not data: remove the field from the API type');
    if (symbol && symbol.flags & this.#ts.SymbolFlags.Class) {
      return unsupported(`is the class \`${symbol.name}\``, 'Use an interface or a type alias for API types');
    }
    return undefined;
  }
}
