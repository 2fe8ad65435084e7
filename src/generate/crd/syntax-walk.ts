import { relative } from 'node:path';
import { orphanDocComments, type DocComment, type SourceLocation } from '../../markers/index.ts';
import { isDns1123Subdomain } from '../../k8s-names/dns.ts';
import type {
  DeclFile,
  Expression,
  InterfaceDecl,
  Member,
  PropertyMember,
  TypeAliasDecl,
  TypeNode,
} from '../../source/decl-syntax/ast.ts';
import { Declined } from '../../source/decl-syntax/declined.ts';
import { declDoc } from '../../source/decl-syntax/doc.ts';
import { typeNodes, type DeclProgram } from '../../source/decl-syntax/program.ts';
import { sourcesFor } from '../../source/source-set.ts';
import { K8S_MODULE, opGenTypesDir } from '../../source/api-program.ts';
import type {
  Documented,
  ModelField,
  ModelKind,
  ModelObject,
  ModelType,
  TypeUse,
} from '../../source/type-model.ts';
import { goFormLines, goFormProblems } from '../go-forms.ts';
import { crdMarkers } from './markers.ts';
import type { ApiModelOptions, ApiTypes } from './model.ts';
import { SchemaBuilder } from './schema-builder.ts';

/**
 * The syntax front end of the CRD walk: reads the API sources with decl-syntax/parser.ts into the
 * type model (source/type-model.ts), without loading TypeScript; the schema builder the type
 * checker's front end uses turns it into schemas. It reads a subset (decl-syntax/parser.ts) and
 * declines (Declined) anything else: the caller then runs the type checker's front end, which reads
 * everything. Where the checker's answer depends on more than the syntax (the order of an enum's
 * values, which declaration of a name comes first), the reader declines unless it can tell it.
 */

/** What a type is, resolved (the checker's `Type` for the subset). */
type Shape =
  | { readonly s: 'string' | 'number' | 'boolean' }
  | { readonly s: 'format'; readonly format: string }
  | { readonly s: 'enum'; readonly values: readonly string[] }
  | { readonly s: 'array'; readonly element: TypeNode; readonly file: DeclFile }
  | { readonly s: 'record'; readonly value: TypeNode; readonly file: DeclFile }
  | { readonly s: 'objectMeta' | 'preserve' }
  | { readonly s: 'builtin'; readonly name: string; readonly key: object }
  | {
      readonly s: 'object';
      readonly key: object;
      /**
       * Its properties with the file declaring each (an interface's own, then those it inherits),
       * read once per object when the builder asks for its fields (a type used by many fields is
       * resolved as often, its members are not listed as often).
       */
      readonly members: () => readonly Owned[];
      readonly file: DeclFile;
      /** The interface or type alias declaring it (none for an inline `{ ... }`). */
      readonly decl: InterfaceDecl | TypeAliasDecl | undefined;
    };

/** A member and the file that declares it (an inherited member's is its base's). */
interface Owned {
  readonly file: DeclFile;
  readonly member: Member;
}

interface Typed {
  readonly shape: Shape;
  readonly nullable: boolean;
}

/** The keyword types, resolved (one object each: the reader resolves a type per field). */
const KEYWORD_TYPED: Readonly<Record<'string' | 'number' | 'boolean', Typed>> = {
  string: { shape: { s: 'string' }, nullable: false },
  number: { shape: { s: 'number' }, nullable: false },
  boolean: { shape: { s: 'boolean' }, nullable: false },
};
/** The scalar model types (shared: a model type is data the builder only reads). */
const SCALARS: Readonly<Record<'string' | 'number' | 'boolean', ModelType>> = {
  string: { t: 'scalar', type: 'string' },
  number: { t: 'scalar', type: 'number' },
  boolean: { t: 'scalar', type: 'boolean' },
};
/** No alias layers (the common case; shared). */
const NO_ALIASES: readonly Documented[] = [];
/** A field typed `string`, `number` or `boolean`. */
const KEYWORD_USES: Readonly<Record<'string' | 'number' | 'boolean', TypeUse>> = {
  string: { aliases: NO_ALIASES, nullable: false, type: SCALARS.string },
  number: { aliases: NO_ALIASES, nullable: false, type: SCALARS.number },
  boolean: { aliases: NO_ALIASES, nullable: false, type: SCALARS.boolean },
};

/** String literal values TypeScript's checker creates before it reads any source (their order in an enum would differ). */
const PRE_CREATED_LITERALS = new Set([
  '',
  'default',
  'string',
  'number',
  'bigint',
  'boolean',
  'symbol',
  'undefined',
  'object',
  'function',
  'int32',
  'int64',
  'double',
  'quantity',
  'int-or-string',
  'date-time',
  'duration',
]);

/** Nesting of aliases below a type past which the reader declines (a self-referencing alias). */
const MAX_ALIAS_DEPTH = 40;

/** The op-gen declarations the syntax front end reads ObjectMeta, Condition, ... from. */
function opGenMetaFile(): string {
  const dir = opGenTypesDir();
  return import.meta.url.endsWith('.ts') ? `${dir}meta.ts` : `${dir}meta.d.ts`;
}

/** The API sources read into the type model, or `Declined` with the first reason it does not read them. */
export async function readSyntaxTypes(options: ApiModelOptions): Promise<ApiTypes> {
  const cwd = options.cwd;
  const sources = sourcesFor(options);
  const folders = sources.apiFolders();
  const program = sources.declProgram(opGenMetaFile());
  const reader = new SyntaxReader(program, cwd);
  const roots = folders.flatMap((f) => f.files.map((name) => program.file(name)));
  program.file(opGenMetaFile());
  // Every name in every file read resolves (the checker's pre-check would report one that does not).
  for (let i = 0; i < program.files.length; i++) reader.checkNames(program.files[i] as DeclFile);
  // The schema data loads only when an API uses a built-in type (as in the checker walk). No origins:
  // a problem declines, and the checker front end reports it where it is.
  const builder = new SchemaBuilder(
    program.files.some((f) => f.statements.some((s) => s.s === 'import' && s.module === K8S_MODULE))
      ? await import('./builtin-schemas.ts')
      : undefined,
    { origins: false },
  );
  reader.checkLiterals();

  const kinds: ModelKind[] = [];
  let fileIndex = 0;
  for (const folder of folders) {
    const files = roots.slice(fileIndex, fileIndex + folder.files.length);
    fileIndex += folder.files.length;
    const gv = reader.groupVersion(program.file(folder.groupVersionFile));
    if (gv.skip) continue;
    for (const file of files) kinds.push(...reader.fileKinds(file, gv));
  }
  return { kinds, builder };
}

class SyntaxReader {
  readonly #program: DeclProgram;
  readonly #cwd: string;
  /** One model object per declaration, `{ ... }` or `Record`'s value (its identity is the builder's cache key). */
  readonly #objects = new Map<object, ModelObject>();
  /** `Record<string, T>` by its `T` (apart: an inline `{ ... }` as `T` is an object of its own). */
  readonly #records = new Map<object, ModelObject>();
  readonly #objectMeta: ModelType = { t: 'objectMeta', key: {} };
  readonly #preserve: ModelType = { t: 'preserve', key: {} };
  readonly #docs = new Map<DeclFile, Map<number, Documented>>();
  readonly #display = new Map<DeclFile, string>();
  readonly #builtinKeys = new Map<string, object>();
  /** Uses of a shared model type written without alias or `| null` (one per type). */
  readonly #plainUses = new Map<ModelType, TypeUse>();
  /** op-gen's tagged scalars, resolved and as model types (one object each per format). */
  readonly #formats = new Map<string, { readonly typed: Typed; readonly type: ModelType }>();

  constructor(program: DeclProgram, cwd: string) {
    this.#program = program;
    this.#cwd = cwd;
  }

  #builtinKey(file: DeclFile, name: string): object {
    const id = `${file.fileName}\0${name}`;
    let key = this.#builtinKeys.get(id);
    if (!key) this.#builtinKeys.set(id, (key = {}));
    return key;
  }

  #format(format: string): { readonly typed: Typed; readonly type: ModelType } {
    let known = this.#formats.get(format);
    if (!known)
      this.#formats.set(
        format,
        (known = {
          typed: { shape: { s: 'format', format }, nullable: false },
          type: { t: 'format', format },
        }),
      );
    return known;
  }

  #formatTyped(format: string): Typed {
    return this.#format(format).typed;
  }

  #formatType(format: string): ModelType {
    return this.#format(format).type;
  }

  decline(file: DeclFile, at: number, reason: string): never {
    throw new Declined(`${file.fileName}:${file.lineOf(at)}`, reason);
  }

  display(file: DeclFile): string {
    let shown = this.#display.get(file);
    if (shown === undefined) {
      shown = relative(this.#cwd, file.fileName) || file.fileName;
      this.#display.set(file, shown);
    }
    return shown;
  }

  location(file: DeclFile, start: number): SourceLocation {
    return { file: this.display(file), line: file.lineOf(start) };
  }

  doc(file: DeclFile, pos: number): DocComment {
    return this.documented(file, pos).doc;
  }

  /** The doc comment before `pos` and the file's name as shown (one object each, cached). */
  documented(file: DeclFile, pos: number): Documented {
    let byPos = this.#docs.get(file);
    if (!byPos) this.#docs.set(file, (byPos = new Map()));
    let documented = byPos.get(pos);
    if (!documented)
      byPos.set(pos, (documented = { doc: declDoc(file, pos, goFormLines), file: this.display(file) }));
    return documented;
  }

  /** The kinds of one file (markers in a comment attached to nothing, or Go-form ones, decline). */
  fileKinds(file: DeclFile, gv: { group: string; version: string }): ModelKind[] {
    // Markers in a doc comment attached to nothing: the checker walk reports them (model.ts).
    const orphan = orphanDocComments(file.text).find((c) => c.tags.some((t) => crdMarkers.knows(t)));
    if (orphan) this.decline(file, orphan.offset, 'a doc comment holding markers attached to no declaration');
    const kinds: ModelKind[] = [];
    for (const stmt of file.statements) {
      if (stmt.s !== 'interface' && stmt.s !== 'alias') {
        this.noKindMarker(file, stmt.pos);
        continue;
      }
      const doc = this.doc(file, stmt.pos);
      if (!doc.tags.some((t) => t.name.toLowerCase() === 'kind')) {
        if (doc.goForm.length > 0 || goFormProblems(doc, '').length > 0)
          this.decline(file, stmt.start, 'Go-form markers');
        continue;
      }
      kinds.push(this.kind(file, stmt, gv));
    }
    this.noKindMarker(file, file.endPos);
    return kinds;
  }

  /** model.ts `orphanKindMarker`: a `@kind` documenting no interface or type alias. */
  noKindMarker(file: DeclFile, pos: number): void {
    if (this.doc(file, pos).tags.some((t) => t.name.toLowerCase() === 'kind'))
      this.decline(file, pos, 'an orphan @kind');
  }

  /** Every type and value name of `file` resolves; generic references have the lib's arity. */
  checkNames(file: DeclFile): void {
    this.#program.checkImports(file);
    const checkType = (root: TypeNode): void => {
      const nodes = typeNodes(root);
      for (let i = 0; i < nodes.length; i++) {
        const node = nodes[i]!;
        if (node.t === 'constValues') this.#constValues(file, node.name, node.start);
        if (node.t !== 'ref') continue;
        const resolved = this.#program.resolveType(file, node.name, node.start);
        const arity = resolved.r === 'lib' ? (resolved.name === 'Record' ? 2 : 1) : 0;
        if ((node.args?.length ?? 0) !== arity)
          this.decline(file, node.start, `type arguments of \`${node.name}\``);
        if (resolved.r === 'lib' && resolved.name === 'Record') {
          const key = node.args?.[0];
          if (!(key?.t === 'keyword' && key.name === 'string'))
            this.decline(file, node.start, 'a Record whose keys are not `string`');
        }
      }
    };
    const checkValue = (e: Expression, at: number): void => {
      switch (e.e) {
        case 'name':
          this.#program.resolveValue(file, e.name, at);
          break;
        case 'call':
          this.#program.resolveValue(file, e.callee, at);
          for (const t of e.typeArgs) checkType(t);
          for (const a of e.args) checkValue(a, at);
          break;
        case 'object':
          for (const p of e.properties) checkValue(p.value, at);
          break;
        case 'array':
          for (const item of e.items) checkValue(item, at);
          break;
        case 'asConst':
          checkValue(e.expression, at);
          break;
        default:
          break;
      }
    };
    for (const stmt of file.statements) {
      if (stmt.s === 'interface') {
        for (const base of stmt.extends) checkType(base);
        for (const m of stmt.members) checkType(m.type);
      } else if (stmt.s === 'alias') checkType(stmt.type);
      else if (stmt.s === 'const') {
        if (stmt.type) checkType(stmt.type);
        checkValue(stmt.init, stmt.start);
      }
    }
  }

  /**
   * The properties of the constant `(typeof X)[keyof typeof X]` names: X must be an `as const` object
   * literal whose values are all string literals (what the checker walk reads as a string enum).
   */
  #constValues(file: DeclFile, name: string, at: number): { name: string; value: string }[] {
    const found = this.#program.resolveValue(file, name, at);
    const init = found?.decl.s === 'const' ? found.decl.init : undefined;
    const object = init?.e === 'asConst' ? init.expression : undefined;
    if (object?.e !== 'object' || object.properties.length === 0)
      return this.decline(
        file,
        at,
        `\`typeof ${name}\` where ${name} is not a non-empty \`as const\` object`,
      );
    return object.properties.map((p) =>
      p.value.e === 'string'
        ? { name: p.name, value: p.value.value }
        : this.decline(file, at, `\`typeof ${name}\` where a value of ${name} is not a string`),
    );
  }

  /**
   * The checker orders an enum's values by when it first created each literal type, and it creates
   * a union's literals in the order written when it first resolves that union. So an enum keeps its
   * written order whatever order the checker resolves unions in when every union (and every literal
   * written alone, or as groupVersion's value) that holds a value holds the same values before it
   * (`'A' | 'B' | 'C1'` and `'A' | 'B' | 'C2'` do; `'A' | 'B'` and `'B' | 'A'` do not). Otherwise, and
   * for the literals the checker creates before reading any source, decline.
   */
  checkLiterals(): void {
    const before = new Map<string, string>();
    const sequence = (values: readonly string[], file: DeclFile, at: number): void => {
      if (new Set(values).size !== values.length) this.decline(file, at, 'a union with a value twice');
      values.forEach((v, i) => {
        if (PRE_CREATED_LITERALS.has(v)) this.decline(file, at, `the literal '${v}'`);
        const key = JSON.stringify(values.slice(0, i).sort());
        const seen = before.get(v);
        if (seen !== undefined && seen !== key)
          this.decline(file, at, `the literal '${v}' after different values in two places`);
        before.set(v, key);
      });
    };
    for (const file of this.#program.files) {
      const visit = (node: TypeNode): void => {
        switch (node.t) {
          case 'literal':
            sequence([node.value], file, node.start);
            return;
          case 'union': {
            const values = node.types.flatMap((t) => (t.t === 'literal' ? [t.value] : []));
            if (values.length > 0) sequence(values, file, node.start);
            for (const t of node.types) if (t.t !== 'literal') visit(t);
            return;
          }
          case 'paren':
          case 'readonly':
            visit(node.type);
            return;
          case 'array':
            visit(node.element);
            return;
          case 'ref':
            node.args?.forEach(visit);
            return;
          case 'object':
            for (const m of node.members) visit(m.type);
            return;
          case 'constValues': {
            // Checking `typeof X` checks X's initializer (its values, in the order written);
            // `keyof typeof X` creates its property names.
            const values = this.#constValues(file, node.name, node.start);
            sequence(
              values.map((v) => v.value),
              file,
              node.start,
            );
            sequence(
              values.map((v) => v.name),
              file,
              node.start,
            );
            return;
          }
          default:
            return;
        }
      };
      const collect = (e: Expression, at: number): void => {
        if (e.e === 'string') sequence([e.value], file, at);
        else if (e.e === 'object') for (const p of e.properties) collect(p.value, at);
        else if (e.e === 'array') for (const item of e.items) collect(item, at);
        else if (e.e === 'call') {
          for (const t of e.typeArgs) visit(t);
          for (const a of e.args) collect(a, at);
        } else if (e.e === 'asConst') collect(e.expression, at);
      };
      for (const stmt of file.statements) {
        if (stmt.s === 'interface') for (const m of stmt.members) visit(m.type);
        else if (stmt.s === 'alias') visit(stmt.type);
        // The checker types a constant only when something uses it, and no type the syntax front end
        // reads can (`typeof` declines): a constant no field uses creates no literal before the
        // unions do, so only groupVersion (which the walk reads) counts.
        else if (stmt.s === 'const' && stmt.name === 'groupVersion') collect(stmt.init, stmt.start);
      }
    }
  }

  /** discover.ts `readGroupVersion` and the package markers (model.ts `walkApi`). */
  groupVersion(file: DeclFile): { group: string; version: string; skip: boolean } {
    const stmt = file.statements.find((s) => s.s === 'const' && s.name === 'groupVersion');
    if (!stmt || stmt.s !== 'const' || !stmt.exported)
      return this.decline(file, 0, 'no exported groupVersion');
    let init = stmt.init;
    while (init.e === 'asConst') init = init.expression;
    if (init.e !== 'object') return this.decline(file, stmt.start, 'groupVersion is not an object literal');
    const values: Record<string, string> = {};
    for (const p of init.properties) if (p.value.e === 'string') values[p.name] = p.value.value;
    const { group, version } = values;
    if (
      group === undefined ||
      version === undefined ||
      !isDns1123Subdomain(group) ||
      !group.includes('.') ||
      !/^v[1-9][0-9]*((alpha|beta)[1-9][0-9]*)?$/.test(version)
    )
      return this.decline(file, stmt.start, 'a groupVersion the checker walk reports');
    const doc = this.doc(file, stmt.pos);
    const shown = this.display(file);
    const problems: string[] = [...goFormProblems(doc, shown)];
    const { markers } = crdMarkers.parseAll(doc.tags, 'package', shown, doc.inline, (p) => problems.push(p));
    if (problems.length > 0) this.decline(file, stmt.start, 'a package marker problem');
    return { group, version, skip: markers.some((m) => m.spec.name === 'skip') };
  }

  /** A declaration marked @kind. */
  kind(
    file: DeclFile,
    decl: InterfaceDecl | TypeAliasDecl,
    gv: { group: string; version: string },
  ): ModelKind {
    if (!decl.exported || decl.s !== 'interface')
      return this.decline(file, decl.start, 'a kind that is not an exported interface');
    return {
      ...gv,
      name: decl.name,
      exported: true,
      generic: false,
      location: this.location(file, decl.start),
      doc: this.documented(file, decl.pos),
      fields: () =>
        this.#interfaceMembers(file, decl, []).map(({ file: declaredIn, member }) =>
          member.m === 'property'
            ? this.#field(declaredIn, member)
            : this.decline(file, member.start, 'an index signature on a kind'),
        ),
    };
  }

  /**
   * An interface's properties as the checker lists them (`getPropertiesOfType`): its own, then each
   * base's in the order written, a name already present skipped. Index signatures only without bases.
   */
  #interfaceMembers(file: DeclFile, decl: InterfaceDecl, path: readonly InterfaceDecl[]): Owned[] {
    const own = owned(file, decl.members);
    if (decl.extends.length === 0) return own;
    if (path.includes(decl)) return this.decline(file, decl.start, 'an interface that extends itself');
    if (own.some((m) => m.member.m === 'index'))
      return this.decline(file, decl.start, 'an index signature with extends');
    const out = [...own];
    const names = new Set(own.map((m) => (m.member.m === 'property' ? m.member.name : '')));
    for (const base of decl.extends) {
      const resolved = this.#program.resolveType(file, base.name, base.start);
      if (resolved.r !== 'interface')
        return this.decline(file, base.start, `extends ${base.name}, which is not an interface`);
      for (const inherited of this.#interfaceMembers(resolved.file, resolved.decl, [...path, decl])) {
        if (inherited.member.m !== 'property')
          return this.decline(file, base.start, 'an inherited index signature');
        if (names.has(inherited.member.name)) continue;
        names.add(inherited.member.name);
        out.push(inherited);
      }
    }
    return out;
  }

  /** The resolved type of a type node (the checker's `getTypeFromTypeNode`, for the subset). */
  #typed(file: DeclFile, node: TypeNode, depth: number): Typed {
    if (depth > MAX_ALIAS_DEPTH) this.decline(file, node.start, 'a chain of aliases too deep');
    switch (node.t) {
      case 'keyword':
        if (node.name === 'null' || node.name === 'undefined' || node.name === 'unknown')
          return this.decline(file, node.start, `\`${node.name}\` alone`);
        return KEYWORD_TYPED[node.name];
      case 'literal':
        return { shape: { s: 'enum', values: [node.value] }, nullable: false };
      case 'paren':
        return this.#typed(file, node.type, depth + 1);
      case 'readonly':
        return this.#typed(file, node.type, depth + 1);
      case 'constValues':
        return {
          shape: { s: 'enum', values: this.#constValues(file, node.name, node.start).map((v) => v.value) },
          nullable: false,
        };
      case 'array':
        return { shape: { s: 'array', element: node.element, file }, nullable: false };
      case 'object':
        return {
          shape: { s: 'object', key: node, members: () => owned(file, node.members), file, decl: undefined },
          nullable: false,
        };
      case 'union': {
        let nullable = false;
        const rest = node.types.filter((t) => {
          const stripped = stripParens(t);
          if (stripped.t === 'keyword' && stripped.name === 'null') nullable = true;
          return !(stripped.t === 'keyword' && (stripped.name === 'null' || stripped.name === 'undefined'));
        });
        if (rest.length > 1) {
          if (!rest.every((t) => t.t === 'literal'))
            return this.decline(file, node.start, 'a union of types other than string literals');
          return {
            shape: { s: 'enum', values: rest.map((t) => (t.t === 'literal' ? t.value : '')) },
            nullable,
          };
        }
        const only = rest[0];
        if (!only) return this.decline(file, node.start, 'a union of only null and undefined');
        const inner = this.#typed(file, only, depth + 1);
        return { shape: inner.shape, nullable: nullable || inner.nullable };
      }
      case 'ref': {
        const resolved = this.#program.resolveType(file, node.name, node.start);
        switch (resolved.r) {
          case 'format':
            return this.#formatTyped(resolved.format);
          case 'builtin':
            // The checker walk's stub declares a file's imports anew per file: one type per file and name.
            return {
              shape: {
                s: 'builtin',
                name: resolved.name,
                key: this.#builtinKey(resolved.file, resolved.name),
              },
              nullable: false,
            };
          case 'enum':
            // Its members' values in the order declared (each member's type is created with the enum).
            return {
              shape: { s: 'enum', values: resolved.decl.members.map((m) => m.value) },
              nullable: false,
            };
          case 'lib':
            if (resolved.name === 'Record')
              return { shape: { s: 'record', value: node.args?.[1] as TypeNode, file }, nullable: false };
            return { shape: { s: 'array', element: node.args?.[0] as TypeNode, file }, nullable: false };
          case 'interface':
            if (resolved.opGen && resolved.decl.name === 'ObjectMeta')
              return { shape: { s: 'objectMeta' }, nullable: false };
            if (resolved.opGen && resolved.decl.name === 'PreserveUnknownFields')
              return { shape: { s: 'preserve' }, nullable: false };
            return {
              shape: {
                s: 'object',
                key: resolved.decl,
                members: () => this.#interfaceMembers(resolved.file, resolved.decl, []),
                file: resolved.file,
                decl: resolved.decl,
              },
              nullable: false,
            };
          case 'alias': {
            const aliased = resolved.decl.type;
            if (aliased.t === 'object') {
              return {
                shape: {
                  s: 'object',
                  key: aliased,
                  members: () => owned(resolved.file, aliased.members),
                  file: resolved.file,
                  decl: resolved.decl,
                },
                nullable: false,
              };
            }
            return this.#typed(resolved.file, aliased, depth + 1);
          }
        }
      }
    }
  }

  /** A field or element written as `typeNode` in `file`, resolved as `typed`. */
  #use(typed: Typed, typeNode: TypeNode | undefined, nodeFile: DeclFile): TypeUse {
    let aliases: Documented[] | undefined;
    let node = typeNode;
    let file = nodeFile;
    let element: { node: TypeNode; file: DeclFile } | undefined;
    for (let hops = 0; node && hops < 20; hops++) {
      node = stripNullable(node);
      if (!node) break;
      if (node.t === 'array') {
        element = { node: node.element, file };
        break;
      }
      if (node.t !== 'ref') break;
      if (node.name === 'Array' || node.name === 'ReadonlyArray') {
        const arg = node.args?.[0];
        element = arg ? { node: arg, file } : undefined;
        break;
      }
      const resolved = this.#program.resolveType(file, node.name, node.start);
      if (resolved.r !== 'alias' || resolved.opGen) break;
      // The checker reads the symbol's first declaration: the constant, when an `as const` object is
      // declared before its type alias of the same name (then no alias layer applies).
      if (this.#program.valueFirst(resolved.file, resolved.decl.name)) break;
      (aliases ??= []).push(this.documented(resolved.file, resolved.decl.pos));
      node = resolved.decl.type;
      file = resolved.file;
    }
    const type = this.#modelType(typed.shape, element);
    if (aliases || typed.nullable || type.t === 'array' || type.t === 'enum')
      return { aliases: aliases ?? NO_ALIASES, nullable: typed.nullable, type };
    // Written plainly (no alias, not nullable): one use per type, as the type is one object.
    let use = this.#plainUses.get(type);
    if (!use) this.#plainUses.set(type, (use = { aliases: NO_ALIASES, nullable: false, type }));
    return use;
  }

  #modelType(shape: Shape, element: { node: TypeNode; file: DeclFile } | undefined): ModelType {
    switch (shape.s) {
      case 'format':
        return this.#formatType(shape.format);
      case 'enum':
        return { t: 'enum', values: shape.values };
      case 'string':
      case 'number':
      case 'boolean':
        return SCALARS[shape.s];
      case 'array':
        return {
          t: 'array',
          key: shape.element,
          element: () =>
            this.#use(this.#typed(shape.file, shape.element, 0), element?.node, element?.file ?? shape.file),
          label: () => 'array',
        };
      case 'builtin':
        return { t: 'builtin', name: shape.name, key: shape.key };
      case 'objectMeta':
        return this.#objectMeta;
      case 'preserve':
        return this.#preserve;
      case 'record':
        return this.#memo(this.#records, shape.value, () => ({
          t: 'object',
          decl: undefined,
          label: () => 'Record',
          fields: () => [],
          index: once(() => ({
            keys: 'string' as const,
            value: this.#use(this.#typed(shape.file, shape.value, 0), undefined, shape.file),
          })),
        }));
      case 'object':
        return this.#memo(this.#objects, shape.key, () => this.#object(shape));
    }
  }

  #memo(into: Map<object, ModelObject>, key: object, make: () => ModelObject): ModelObject {
    let object = into.get(key);
    if (!object) into.set(key, (object = make()));
    return object;
  }

  #object(shape: Extract<Shape, { s: 'object' }>): ModelObject {
    const { file, decl } = shape;
    const members = once(shape.members);
    return {
      t: 'object',
      decl: decl ? { ...this.documented(file, decl.pos), name: decl.name } : undefined,
      label: () => decl?.name ?? 'object',
      fields: () => {
        const fields: ModelField[] = [];
        for (const { file: declaredIn, member } of members())
          if (member.m === 'property') fields.push(this.#field(declaredIn, member));
        return fields;
      },
      index: once(() => {
        const index = members().find((m) => m.member.m === 'index')?.member;
        if (!index) return undefined;
        return { keys: 'string', value: this.#use(this.#typed(file, index.type, 0), index.type, file) };
      }),
    };
  }

  #field(file: DeclFile, prop: PropertyMember): ModelField {
    return new SyntaxField(this, file, prop);
  }

  /** A field's type, as written and resolved. */
  fieldType(file: DeclFile, prop: PropertyMember): TypeUse {
    const node = prop.type;
    // `string`, `number`, `boolean` (most fields): no name to resolve, no alias to look through.
    if (node.t === 'keyword' && (node.name === 'string' || node.name === 'number' || node.name === 'boolean'))
      return KEYWORD_USES[node.name];
    return this.#use(this.#typed(file, node, 0), node, file);
  }

  /** A kind's metadata field: ObjectMeta, or decline. */
  fieldTypeName(file: DeclFile, prop: PropertyMember): { name: string; text: string } {
    const typed = this.#typed(file, prop.type, 0);
    if (typed.shape.s !== 'objectMeta' || typed.nullable)
      return this.decline(file, prop.start, 'metadata that is not ObjectMeta');
    return { name: 'ObjectMeta', text: 'ObjectMeta' };
  }
}

/** A property read by the syntax reader (a class: one object a field, the fast path's many). */
class SyntaxField implements ModelField {
  readonly #reader: SyntaxReader;
  readonly #file: DeclFile;
  readonly #prop: PropertyMember;
  readonly name: string;
  readonly optional: boolean;
  readonly method = false;
  readonly location: SourceLocation;
  readonly doc: Documented;

  constructor(reader: SyntaxReader, file: DeclFile, prop: PropertyMember) {
    this.#reader = reader;
    this.#file = file;
    this.#prop = prop;
    this.name = prop.name;
    this.optional = prop.optional;
    this.location = reader.location(file, prop.start);
    this.doc = reader.documented(file, prop.pos);
  }

  /** The syntax subset has no `never`. */
  forbidden(): boolean {
    return false;
  }

  type(): TypeUse {
    return this.#reader.fieldType(this.#file, this.#prop);
  }

  typeName(): { name: string; text: string } {
    return this.#reader.fieldTypeName(this.#file, this.#prop);
  }
}

/** A value computed on first use. */
function once<T>(compute: () => T): () => T {
  let value: { v: T } | undefined;
  return () => (value ??= { v: compute() }).v;
}

function stripParens(node: TypeNode): TypeNode {
  while (node.t === 'paren') node = node.type;
  return node;
}

function owned(file: DeclFile, members: readonly Member[]): Owned[] {
  return members.map((member) => ({ file, member }));
}

/** checker-types `#stripNullable`. */
function stripNullable(node: TypeNode): TypeNode | undefined {
  while (node.t === 'paren' || node.t === 'readonly') node = node.type;
  if (node.t === 'union') {
    const rest = node.types.filter(
      (t) => !(t.t === 'keyword' && (t.name === 'null' || t.name === 'undefined')),
    );
    return rest.length === 1 ? rest[0] : undefined;
  }
  return node;
}
