import { relative } from 'node:path';
import type { JSONSchemaProps } from '../../api-types/json-schema.ts';
import { orphanDocComments, type DocComment, type SourceLocation } from '../../markers/index.ts';
import { isDns1123Subdomain } from '../../k8s-names/dns.ts';
import { ProblemCollector } from '../../shared/problems.ts';
import type {
  DeclFile,
  Expression,
  InterfaceDecl,
  Member,
  ObjectLiteralType,
  PropertyMember,
  TypeAliasDecl,
  TypeNode,
} from '../../source/decl-syntax/ast.ts';
import { Declined } from '../../source/decl-syntax/declined.ts';
import { declDoc } from '../../source/decl-syntax/doc.ts';
import { typeNodes, type DeclProgram } from '../../source/decl-syntax/program.ts';
import { sourcesFor } from '../../source/source-set.ts';
import { K8S_MODULE, opGenTypesDir } from '../../source/api-program.ts';
import { goFormLines, goFormProblems } from '../go-forms.ts';
import { crdMarkers, type CrdMarker } from './markers.ts';
import {
  kindNames,
  kindVersionOf,
  rootFieldDescription,
  type ApiModelOptions,
  type KindVersion,
  type WalkResult,
} from './model.ts';
import { markEmbedded, type BuiltinSchemas } from './schema-builder.ts';
import { applySchemaMarkers, formatSchema, type PendingCelRule, type Where } from './schema-markers.ts';

/**
 * The syntax front end of the CRD walk: reads the API sources with parser.ts and builds the same
 * schemas the type checker's walk (model.ts, schema-builder.ts) builds, without loading TypeScript.
 * It reads a subset (decl-syntax/parser.ts) and declines (Declined) anything else, any problem
 * included: the caller then runs the type checker's walk, which reads everything and reports every
 * problem. Each step below mirrors the step of schema-builder.ts named in its comment, for the
 * types the subset has.
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
      /** Its properties with the file declaring each (an interface's own, then those it inherits). */
      readonly members: readonly Owned[];
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

/** Nesting of types below a field past which the walk declines (a self-referencing alias). */
const MAX_DEPTH = 64;

/** The op-gen declarations the syntax front end reads ObjectMeta, Condition, ... from. */
function opGenMetaFile(): string {
  const dir = opGenTypesDir();
  return import.meta.url.endsWith('.ts') ? `${dir}meta.ts` : `${dir}meta.d.ts`;
}

/** The walk over the syntax, or `Declined` with the first reason it does not read the sources. */
export async function syntaxWalkApi(options: ApiModelOptions): Promise<WalkResult> {
  const cwd = options.cwd;
  const sources = sourcesFor(options);
  const apiDir = sources.apiDir;
  const folders = sources.apiFolders();
  const program = sources.declProgram(opGenMetaFile());
  const walker = new SyntaxWalker(program, cwd);
  const roots = folders.flatMap((f) => f.files.map((name) => program.file(name)));
  program.file(opGenMetaFile());
  // Every name in every file read resolves (the checker's pre-check would report one that does not).
  for (let i = 0; i < program.files.length; i++) walker.checkNames(program.files[i] as DeclFile);
  // The schema data loads only when an API uses a built-in type (as in the checker walk).
  if (program.files.some((f) => f.statements.some((s) => s.s === 'import' && s.module === K8S_MODULE)))
    walker.builtins = await import('./builtin-schemas.ts');
  walker.checkLiterals();

  const kinds: KindVersion[] = [];
  let fileIndex = 0;
  for (const folder of folders) {
    const files = roots.slice(fileIndex, fileIndex + folder.files.length);
    fileIndex += folder.files.length;
    const gvFile = program.file(folder.groupVersionFile);
    const gv = walker.groupVersion(gvFile);
    if (gv.skip) continue;
    for (const file of files) {
      // Markers in a doc comment attached to nothing: the checker walk reports them (model.ts).
      const orphan = orphanDocComments(file.text).find((c) => c.tags.some((t) => crdMarkers.knows(t)));
      if (orphan)
        walker.decline(file, orphan.offset, 'a doc comment holding markers attached to no declaration');
      for (const stmt of file.statements) {
        if (stmt.s !== 'interface' && stmt.s !== 'alias') {
          walker.noKindMarker(file, stmt.pos);
          continue;
        }
        const doc = walker.doc(file, stmt.pos);
        if (!doc.tags.some((t) => t.name.toLowerCase() === 'kind')) {
          if (doc.goForm.length > 0 || goFormProblems(doc, '').length > 0)
            walker.decline(file, stmt.start, 'Go-form markers');
          continue;
        }
        const kind = walker.kind(file, stmt, gv, doc);
        if (kind) kinds.push(kind);
      }
      walker.noKindMarker(file, file.endPos);
    }
  }
  if (kinds.length === 0) throw new Declined(apiDir, 'no kinds');
  return {
    kinds,
    problems: new ProblemCollector(),
    findings: {
      origins: new WeakMap(),
      celRules: walker.celRules,
      failed: new WeakSet(),
      embeddedK8s: walker.embeddedK8s,
      warnings: walker.warnings,
    },
  };
}

class SyntaxWalker {
  readonly #program: DeclProgram;
  readonly #cwd: string;
  readonly #cache = new Map<object, JSONSchemaProps>();
  readonly #inProgress = new Set<object>();
  #depth = 0;
  readonly #docs = new Map<DeclFile, Map<number, DocComment>>();
  readonly #display = new Map<DeclFile, string>();
  readonly celRules: PendingCelRule[] = [];
  readonly warnings: string[] = [];
  readonly embeddedK8s = new WeakSet<JSONSchemaProps>();
  /** The built-in types' schemas, when the API imports any. */
  builtins: BuiltinSchemas | undefined;
  readonly #builtinKeys = new Map<string, object>();

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
    let byPos = this.#docs.get(file);
    if (!byPos) this.#docs.set(file, (byPos = new Map()));
    let doc = byPos.get(pos);
    if (!doc) byPos.set(pos, (doc = declDoc(file, pos, goFormLines)));
    return doc;
  }

  /** schema-builder `markers`: a declaration's markers; any problem declines. */
  markers(
    file: DeclFile,
    pos: number,
    at: number,
    target: 'package' | 'type' | 'field',
  ): { doc: DocComment; markers: CrdMarker[] } {
    const doc = this.doc(file, pos);
    if (doc.tags.length === 0 && doc.inline.length === 0 && doc.goForm.length === 0)
      return { doc, markers: [] };
    const shown = this.display(file);
    if (goFormProblems(doc, shown).length > 0) this.decline(file, at, 'Go-form markers');
    const problems: string[] = [];
    const parsed = crdMarkers.parseAll(doc.tags, target, shown, doc.inline, (p) => problems.push(p));
    if (problems.length > 0) this.decline(file, at, 'a marker problem');
    return { doc, markers: parsed.markers };
  }

  applyMarkers(
    schema: JSONSchemaProps,
    markers: readonly CrdMarker[],
    where: Where,
    file: DeclFile,
    at: number,
  ): JSONSchemaProps {
    try {
      return applySchemaMarkers(schema, markers, where, this.celRules, this.warnings);
    } catch {
      return this.decline(file, at, 'a marker that does not fit its type');
    }
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
      for (const node of typeNodes(root)) {
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
    const { markers } = this.markers(file, stmt.pos, stmt.start, 'package');
    return { group, version, skip: markers.some((m) => m.spec.name === 'skip') };
  }

  /** model.ts: a declaration marked @kind, walked into its CRD version. */
  kind(
    file: DeclFile,
    decl: InterfaceDecl | TypeAliasDecl,
    gv: { group: string; version: string },
    doc: DocComment,
  ): KindVersion | undefined {
    if (!decl.exported || decl.s !== 'interface')
      return this.decline(file, decl.start, 'a kind that is not an exported interface');
    const location = this.location(file, decl.start);
    const { markers } = this.markers(file, decl.pos, decl.start, 'type');
    if (markers.some((m) => m.spec.name === 'skipversion')) return undefined;
    let names: ReturnType<typeof kindNames>;
    try {
      names = kindNames(markers, decl.name, location);
    } catch {
      return this.decline(file, decl.start, 'kind names the checker walk reports');
    }
    const where = { path: names.kind, location };
    const schema = this.applyMarkers(
      this.#rootSchema(file, decl, names.kind, doc.description, location),
      markers,
      where,
      file,
      decl.start,
    );
    const seed = { ...gv, location, description: doc.description, tags: doc.tags };
    return kindVersionOf(seed, names, markers, schema, []);
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

  /** model.ts `rootSchema`. */
  #rootSchema(
    file: DeclFile,
    decl: InterfaceDecl,
    kindName: string,
    description: string,
    location: SourceLocation,
  ): JSONSchemaProps {
    const props = this.#interfaceMembers(file, decl, []);
    if (!props.some(({ member: p }) => p.m === 'property' && (p.name === 'spec' || p.name === 'status')))
      return this.decline(file, decl.start, 'a kind with neither spec nor status');
    const properties: Record<string, JSONSchemaProps> = {};
    const required: string[] = [];
    for (const { file: declaredIn, member: prop } of props) {
      if (prop.m !== 'property') return this.decline(file, prop.start, 'an index signature on a kind');
      if (prop.name === 'apiVersion' || prop.name === 'kind') {
        properties[prop.name] = {
          type: 'string',
          description: this.doc(declaredIn, prop.pos).description || rootFieldDescription(prop.name),
        };
        continue;
      }
      if (prop.name === 'metadata') {
        const typed = this.#typed(declaredIn, prop.type, 0);
        if (typed.shape.s !== 'objectMeta' || typed.nullable)
          this.decline(declaredIn, prop.start, 'metadata that is not ObjectMeta');
        properties.metadata = { type: 'object' };
        continue;
      }
      const field = this.#fieldSchema(declaredIn, prop, { path: kindName, location });
      properties[prop.name] = field.schema;
      if (field.required) required.push(prop.name);
    }
    const schema: JSONSchemaProps = { type: 'object', properties };
    if (description) schema.description = description;
    if (required.length > 0) schema.required = required.sort();
    return schema;
  }

  /** The resolved type of a type node (the checker's `getTypeFromTypeNode`, for the subset). */
  #typed(file: DeclFile, node: TypeNode, depth: number): Typed {
    if (depth > 40) this.decline(file, node.start, 'a chain of aliases too deep');
    switch (node.t) {
      case 'keyword':
        if (node.name === 'null' || node.name === 'undefined' || node.name === 'unknown')
          return this.decline(file, node.start, `\`${node.name}\` alone`);
        return { shape: { s: node.name }, nullable: false };
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
          shape: { s: 'object', key: node, members: owned(file, node.members), file, decl: undefined },
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
            return { shape: { s: 'format', format: resolved.format }, nullable: false };
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
                members: this.#interfaceMembers(resolved.file, resolved.decl, []),
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
                  members: owned(resolved.file, aliased.members),
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

  /** schema-builder `schemaFor`: alias layers along the written type, then the type's own schema. */
  #schemaFor(
    typed: Typed,
    typeNode: TypeNode | undefined,
    nodeFile: DeclFile,
    where: Where,
    fieldMarkers: readonly CrdMarker[],
    at: { file: DeclFile; start: number },
  ): JSONSchemaProps {
    const layers: { doc: DocComment; markers: CrdMarker[]; file: DeclFile; start: number }[] = [];
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
      // schema-builder reads the symbol's first declaration: the constant, when an `as const`
      // object is declared before its type alias of the same name (then no alias layer applies).
      if (this.#program.valueFirst(resolved.file, resolved.decl.name)) break;
      const layer = this.markers(resolved.file, resolved.decl.pos, resolved.decl.start, 'type');
      layers.push({ ...layer, file: resolved.file, start: resolved.decl.start });
      node = resolved.decl.type;
      file = resolved.file;
    }
    const base = this.#typeSchema(typed, where, element, at);
    let schema: JSONSchemaProps = { ...base };
    if (typed.nullable) schema.nullable = true;
    for (const layer of layers.reverse()) {
      if (layer.doc.description) schema.description = layer.doc.description;
      schema = this.applyMarkers(schema, layer.markers, where, layer.file, layer.start);
    }
    return this.applyMarkers(schema, fieldMarkers, where, at.file, at.start);
  }

  /** schema-builder `#typeSchema` and `#objectSchema`. */
  #typeSchema(
    typed: Typed,
    where: Where,
    element: { node: TypeNode; file: DeclFile } | undefined,
    at: { file: DeclFile; start: number },
  ): JSONSchemaProps {
    const shape = typed.shape;
    switch (shape.s) {
      case 'format':
        return formatSchema(shape.format);
      case 'enum':
        return { type: 'string', enum: [...shape.values] };
      case 'string':
      case 'number':
      case 'boolean':
        return { type: shape.s };
      case 'array': {
        const itemsWhere = { path: `${where.path}[]`, location: where.location };
        const items = this.#typed(shape.file, shape.element, 0);
        return this.#nested(at, () => ({
          type: 'array',
          items: this.#schemaFor(items, element?.node, element?.file ?? shape.file, itemsWhere, [], at),
        }));
      }
      case 'builtin': {
        // schema-builder `#builtin` (cached per type as `#typeSchema` caches it).
        const cached = this.#cache.get(shape.key);
        if (cached) return cached;
        const schema = this.builtins?.builtinSchemaFor(shape.name);
        if (!schema) return this.decline(at.file, at.start, `${shape.name} has no built-in schema`);
        markEmbedded(schema, this.embeddedK8s);
        this.#cache.set(shape.key, schema);
        return schema;
      }
      case 'objectMeta':
        return { type: 'object' };
      case 'preserve':
        return { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };
      case 'record': {
        const value = this.#typed(shape.file, shape.value, 0);
        const mapWhere = { path: `${where.path}.*`, location: where.location };
        return this.#nested(at, () => ({
          type: 'object',
          additionalProperties: this.#schemaFor(value, undefined, shape.file, mapWhere, [], at),
        }));
      }
      case 'object': {
        const cached = this.#cache.get(shape.key);
        if (cached) return cached;
        if (this.#inProgress.has(shape.key)) return this.decline(at.file, at.start, 'a recursive type');
        this.#inProgress.add(shape.key);
        try {
          const schema = this.#objectSchema(shape, where);
          this.#cache.set(shape.key, schema);
          return schema;
        } finally {
          this.#inProgress.delete(shape.key);
        }
      }
    }
  }

  /**
   * One level deeper into an array or a map. They are not cached as objects are, so `type A = A[]`
   * (which the checker walk reports as recursive) would nest without end: past MAX_DEPTH, decline.
   */
  #nested(at: { file: DeclFile; start: number }, walk: () => JSONSchemaProps): JSONSchemaProps {
    if (this.#depth > MAX_DEPTH) return this.decline(at.file, at.start, 'types nested too deep');
    this.#depth++;
    try {
      return walk();
    } finally {
      this.#depth--;
    }
  }

  #objectSchema(shape: Extract<Shape, { s: 'object' }>, where: Where): JSONSchemaProps {
    const { file, decl } = shape;
    const schema: JSONSchemaProps = { type: 'object' };
    let typeMarkers: CrdMarker[] = [];
    if (decl) {
      const parsed = this.markers(file, decl.pos, decl.start, 'type');
      if (parsed.doc.description) schema.description = parsed.doc.description;
      if (
        parsed.markers.some((m) => m.spec.effect?.on === 'kind') &&
        !parsed.markers.some((m) => m.spec.name === 'kind')
      )
        this.decline(file, decl.start, 'a kind marker on a type that is not a kind');
      typeMarkers = parsed.markers;
    }
    const at = { file, start: decl?.start ?? (shape.key as ObjectLiteralType).start };
    const props = shape.members.filter(
      (m): m is { file: DeclFile; member: PropertyMember } => m.member.m === 'property',
    );
    const index = shape.members.find((m) => m.member.m === 'index')?.member;
    if (index) {
      if (props.length > 0) this.decline(file, index.start, 'fixed fields beside an index signature');
      const value = this.#typed(file, index.type, 0);
      schema.additionalProperties = this.#schemaFor(
        value,
        index.type,
        file,
        { path: `${where.path}.*`, location: where.location },
        [],
        at,
      );
    }
    if (props.length === 0) return this.applyMarkers(schema, typeMarkers, where, at.file, at.start);
    const properties: Record<string, JSONSchemaProps> = {};
    const required: string[] = [];
    for (const { file: declaredIn, member: prop } of props) {
      const result = this.#fieldSchema(declaredIn, prop, where);
      properties[prop.name] = result.schema;
      if (result.required) required.push(prop.name);
    }
    schema.properties = properties;
    if (required.length > 0) schema.required = required.sort();
    return this.applyMarkers(schema, typeMarkers, where, at.file, at.start);
  }

  /** schema-builder `#fieldSchema`. */
  #fieldSchema(
    file: DeclFile,
    prop: PropertyMember,
    parent: Where,
  ): { schema: JSONSchemaProps; required: boolean } {
    const path = parent.path ? `${parent.path}.${prop.name}` : prop.name;
    const where = { path, location: this.location(file, prop.start) };
    const { doc, markers } = this.markers(file, prop.pos, prop.start, 'field');
    const names = new Set(markers.map((m) => m.spec.name));
    if (names.has('optional') && names.has('required'))
      this.decline(file, prop.start, '@optional and @required');
    if (names.has('unionMember') || names.has('unionDiscriminator'))
      this.decline(file, prop.start, 'a marked union');
    let required = !prop.optional;
    if (names.has('optional')) required = false;
    if (names.has('required')) required = true;
    const at = { file, start: prop.start };
    let schema = names.has('schemaless')
      ? this.applyMarkers({}, markers, where, file, prop.start)
      : this.#schemaFor(this.#typed(file, prop.type, 0), prop.type, file, where, markers, at);
    if (doc.description) schema = { ...schema, description: doc.description };
    return { schema, required };
  }
}

function stripParens(node: TypeNode): TypeNode {
  while (node.t === 'paren') node = node.type;
  return node;
}

function owned(file: DeclFile, members: readonly Member[]): Owned[] {
  return members.map((member) => ({ file, member }));
}

/** schema-builder `#stripNullable`. */
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
