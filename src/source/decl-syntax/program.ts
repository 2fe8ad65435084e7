import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { K8S_MODULE } from '../api-program.ts';
import type {
  ConstDecl,
  DeclFile,
  EnumDecl,
  InterfaceDecl,
  Statement,
  TypeAliasDecl,
  TypeNode,
} from './ast.ts';
import { Declined } from './declined.ts';
import { parseDeclFile } from './parser.ts';

/** The op-gen helper types an API source may import, by what they are to a schema. */
const OP_GEN_FORMATS: ReadonlyMap<string, string> = new Map([
  ['int32', 'int32'],
  ['int64', 'int64'],
  ['float64', 'double'],
  ['Quantity', 'quantity'],
  ['IntOrString', 'int-or-string'],
  ['Time', 'date-time'],
  ['Duration', 'duration'],
]);
/** op-gen's interfaces (api-types/meta.ts), read from its own declarations. */
const OP_GEN_INTERFACES = new Set([
  'ObjectMeta',
  'OwnerReference',
  'ManagedFieldsEntry',
  'Condition',
  'KubernetesObject',
  'PreserveUnknownFields',
]);
/** Values of op-gen's subpaths an API source imports (the scaffold's `defineKind`). */
const OP_GEN_SUBPATH_VALUES: ReadonlyMap<string, ReadonlySet<string>> = new Map([
  ['op-gen/runtime', new Set(['defineKind'])],
]);

/** What a type name stands for. */
export type Resolved =
  | {
      readonly r: 'interface';
      readonly file: DeclFile;
      readonly decl: InterfaceDecl;
      readonly opGen: boolean;
    }
  | { readonly r: 'alias'; readonly file: DeclFile; readonly decl: TypeAliasDecl; readonly opGen: boolean }
  /** A string enum (its type: the union of its members' values, in the order declared). */
  | { readonly r: 'enum'; readonly file: DeclFile; readonly decl: EnumDecl }
  | { readonly r: 'format'; readonly format: string }
  /** A Kubernetes type imported from @kubernetes/client-node (its schema comes from data). */
  | { readonly r: 'builtin'; readonly name: string; readonly file: DeclFile }
  | { readonly r: 'lib'; readonly name: 'Array' | 'ReadonlyArray' | 'Record' };

interface FileScope {
  readonly types: Map<string, InterfaceDecl | TypeAliasDecl | EnumDecl>;
  readonly values: Map<string, ConstDecl | EnumDecl>;
  /** local name → module and exported name. */
  readonly imports: Map<string, { module: string; name: string }>;
  /** Type names resolved so far (a name resolves the same wherever it is written in the file). */
  readonly resolved: Map<string, Resolved>;
}

/**
 * The API sources as the syntax front end sees them: each file parsed once (parser.ts), names
 * resolved as TypeScript would for the subset it reads (local declarations, named imports of
 * relative modules, op-gen's helper types, the lib's Array, ReadonlyArray and Record). Anything it
 * cannot resolve declines.
 */
export class DeclProgram {
  readonly #files = new Map<string, DeclFile>();
  readonly #scopes = new Map<DeclFile, FileScope>();
  readonly #opGenMeta: string;
  /** Every file read, in the order read (the sources' own files, then what they import). */
  readonly files: DeclFile[] = [];

  /** `opGenMeta`: op-gen's declarations of ObjectMeta, Condition, ... (api-types/meta.ts or .d.ts). */
  constructor(opGenMeta: string) {
    this.#opGenMeta = opGenMeta;
  }

  file(fileName: string): DeclFile {
    let file = this.#files.get(fileName);
    if (file) return file;
    let text: string;
    try {
      text = readFileSync(fileName, 'utf8');
    } catch {
      // Missing or unreadable: the checker walk reports it.
      throw new Declined(fileName, 'a file that cannot be read');
    }
    file = parseDeclFile(fileName, text);
    this.#files.set(fileName, file);
    this.files.push(file);
    this.#scopes.set(file, scopeOf(file));
    return file;
  }

  isOpGen(file: DeclFile): boolean {
    return file.fileName === this.#opGenMeta;
  }

  #scope(file: DeclFile): FileScope {
    const scope = this.#scopes.get(file);
    if (!scope) throw new Error(`${file.fileName} was not read through this program`);
    return scope;
  }

  /** The declaration or helper a type name in `file` stands for. */
  resolveType(file: DeclFile, name: string, at: number): Resolved {
    const scope = this.#scope(file);
    let resolved = scope.resolved.get(name);
    if (!resolved) scope.resolved.set(name, (resolved = this.#resolveType(scope, file, name, at)));
    return resolved;
  }

  #resolveType(scope: FileScope, file: DeclFile, name: string, at: number): Resolved {
    const local = scope.types.get(name);
    if (local) {
      const opGen = this.isOpGen(file);
      if (local.s === 'enum') return { r: 'enum', file, decl: local };
      return local.s === 'interface'
        ? { r: 'interface', file, decl: local, opGen }
        : { r: 'alias', file, decl: local, opGen };
    }
    const imported = scope.imports.get(name);
    if (imported) {
      if (
        imported.module === 'op-gen' ||
        (this.isOpGen(file) && /^\.\/scalars\.[jt]s$/.test(imported.module))
      ) {
        const format = OP_GEN_FORMATS.get(imported.name);
        if (format) return { r: 'format', format };
        if (!OP_GEN_INTERFACES.has(imported.name)) {
          throw new Declined(`${file.fileName}:${file.lineOf(at)}`, `\`${imported.name}\` from op-gen`);
        }
        return this.resolveType(this.file(this.#opGenMeta), imported.name, 0);
      }
      if (imported.module === K8S_MODULE) return { r: 'builtin', name: imported.name, file };
      const found = this.#exported(this.#module(file, imported.module, at), imported.name, at, 'type');
      const decl = found?.decl;
      if (!found || !decl || decl.s === 'const') {
        throw new Declined(
          `${file.fileName}:${file.lineOf(at)}`,
          `\`${imported.name}\` is not an exported type of ${imported.module}`,
        );
      }
      const opGen = this.isOpGen(found.file);
      if (decl.s === 'enum') return { r: 'enum', file: found.file, decl };
      return decl.s === 'interface'
        ? { r: 'interface', file: found.file, decl, opGen }
        : { r: 'alias', file: found.file, decl, opGen };
    }
    if (name === 'Array' || name === 'ReadonlyArray' || name === 'Record') return { r: 'lib', name };
    throw new Declined(`${file.fileName}:${file.lineOf(at)}`, `the type name \`${name}\``);
  }

  /**
   * Checks that a value name in `file` resolves (a local const or enum, or an import of one); returns
   * its declaration (undefined for op-gen's own values).
   */
  resolveValue(
    file: DeclFile,
    name: string,
    at: number,
  ): { file: DeclFile; decl: ConstDecl | EnumDecl } | undefined {
    const scope = this.#scope(file);
    const local = scope.values.get(name);
    if (local) return { file, decl: local };
    const imported = scope.imports.get(name);
    const where = `${file.fileName}:${file.lineOf(at)}`;
    if (!imported) throw new Declined(where, `the value \`${name}\``);
    if (OP_GEN_SUBPATH_VALUES.get(imported.module)?.has(imported.name)) return undefined;
    if (imported.module.startsWith('.')) {
      const found = this.#exported(this.#module(file, imported.module, at), imported.name, at, 'value');
      if (found && (found.decl.s === 'const' || found.decl.s === 'enum'))
        return { file: found.file, decl: found.decl };
    }
    throw new Declined(where, `the imported value \`${name}\``);
  }

  /**
   * Whether `name`, declared in `file` both as a constant and as a type alias, has its constant
   * first: TypeScript's symbol then lists the constant as its first declaration.
   */
  valueFirst(file: DeclFile, name: string): boolean {
    const scope = this.#scope(file);
    const value = scope.values.get(name);
    const type = scope.types.get(name);
    return value !== undefined && type !== undefined && value.start < type.start;
  }

  /**
   * The declaration a module exports as `name`: its own exported declaration, or one it re-exports
   * (`export { A as name } from`, then `export * from`, as TypeScript looks them up). A name two
   * `export *` modules both give is ambiguous to TypeScript: declines.
   */
  #exported(
    file: DeclFile,
    name: string,
    at: number,
    space?: 'type' | 'value',
    seen = new Set<string>(),
  ): { file: DeclFile; decl: InterfaceDecl | TypeAliasDecl | ConstDecl | EnumDecl } | undefined {
    const key = `${file.fileName}\0${name}`;
    if (seen.has(key)) return undefined;
    seen.add(key);
    // A name can be a constant and a type alias at once (`as const` objects): `space` picks one.
    const inSpace = (s: Statement): boolean =>
      space === undefined || s.s === 'enum' || (space === 'value') === (s.s === 'const');
    for (const stmt of file.statements) {
      if (stmt.s === 'import' || stmt.s === 'exportFrom') continue;
      if (stmt.exported && stmt.name === name && inSpace(stmt)) return { file, decl: stmt };
    }
    for (const stmt of file.statements) {
      const original = stmt.s === 'exportFrom' ? stmt.names?.get(name) : undefined;
      if (stmt.s === 'exportFrom' && original !== undefined)
        return this.#exported(this.#module(file, stmt.module, stmt.start), original, at, space, seen);
    }
    let found: { file: DeclFile; decl: InterfaceDecl | TypeAliasDecl | ConstDecl | EnumDecl } | undefined;
    for (const stmt of file.statements) {
      if (stmt.s !== 'exportFrom' || stmt.names !== undefined) continue;
      const f = this.#exported(this.#module(file, stmt.module, stmt.start), name, at, space, seen);
      if (f && found && f.decl !== found.decl)
        throw new Declined(
          `${file.fileName}:${file.lineOf(stmt.start)}`,
          `\`${name}\` from two \`export *\``,
        );
      found ??= f;
    }
    return found;
  }

  /** A relative module, resolved as TypeScript's bundler resolution does for `./x.ts`, `./x.js`, `./x`. */
  #module(file: DeclFile, specifier: string, at: number): DeclFile {
    const where = `${file.fileName}:${file.lineOf(at)}`;
    if (!specifier.startsWith('./') && !specifier.startsWith('../'))
      throw new Declined(where, `the module '${specifier}'`);
    const base = join(dirname(file.fileName), specifier);
    const candidates = base.endsWith('.ts')
      ? [base]
      : base.endsWith('.js')
        ? [`${base.slice(0, -3)}.ts`]
        : [`${base}.ts`];
    const found = candidates.find((c) => !c.endsWith('.d.ts') && existsSync(c));
    if (!found) throw new Declined(where, `the module '${specifier}'`);
    return this.file(found);
  }

  /** Checks every import of `file` resolves to something this program reads. */
  checkImports(file: DeclFile): void {
    // op-gen's own declarations import its scalars, which resolveType knows by name.
    if (this.isOpGen(file)) return;
    for (const stmt of file.statements) {
      if (stmt.s === 'exportFrom') {
        // Each re-export resolves (TypeScript reports one that does not).
        const target = this.#module(file, stmt.module, stmt.start);
        for (const original of stmt.names?.values() ?? []) {
          if (!this.#exported(target, original, stmt.start))
            throw new Declined(
              `${file.fileName}:${file.lineOf(stmt.start)}`,
              `\`${original}\` is not exported by ${stmt.module}`,
            );
        }
        continue;
      }
      if (stmt.s !== 'import') continue;
      for (const [local, name] of stmt.names) {
        if (stmt.module === 'op-gen') {
          if (!OP_GEN_FORMATS.has(name) && !OP_GEN_INTERFACES.has(name) && name !== 'SchemaFormatTag')
            throw new Declined(`${file.fileName}:${file.lineOf(stmt.start)}`, `\`${name}\` from op-gen`);
        } else if (stmt.module === K8S_MODULE) {
          // The checker walk declares every name a file imports from it (api-program.ts); the walk
          // then needs a schema for the ones used.
        } else if (OP_GEN_SUBPATH_VALUES.has(stmt.module)) {
          this.resolveValue(file, local, stmt.start);
        } else {
          const target = this.#module(file, stmt.module, stmt.start);
          if (!this.#exported(target, name, stmt.start))
            throw new Declined(
              `${file.fileName}:${file.lineOf(stmt.start)}`,
              `\`${name}\` is not exported by ${stmt.module}`,
            );
        }
      }
    }
  }
}

/**
 * A file's top-level names; a name declared twice (or imported and declared) declines, except a
 * constant and a type alias sharing a name (a value and a type: the `as const` enum idiom).
 */
function scopeOf(file: DeclFile): FileScope {
  const types = new Map<string, InterfaceDecl | TypeAliasDecl | EnumDecl>();
  const values = new Map<string, ConstDecl | EnumDecl>();
  const imports = new Map<string, { module: string; name: string }>();
  const takenTypes = new Set<string>();
  const takenValues = new Set<string>();
  const claim = (name: string, stmt: Statement, type: boolean, value: boolean): void => {
    if ((type && takenTypes.has(name)) || (value && takenValues.has(name)))
      throw new Declined(`${file.fileName}:${file.lineOf(stmt.start)}`, `\`${name}\` declared twice`);
    if (type) takenTypes.add(name);
    if (value) takenValues.add(name);
  };
  let isModule = false;
  for (const stmt of file.statements) {
    if (stmt.s === 'import') {
      isModule = true;
      for (const [local, name] of stmt.names) {
        claim(local, stmt, true, true);
        imports.set(local, { module: stmt.module, name });
      }
      continue;
    }
    if (stmt.s === 'exportFrom') {
      // Re-exports bind no local name.
      isModule = true;
      continue;
    }
    if (stmt.exported) isModule = true;
    claim(stmt.name, stmt, stmt.s !== 'const', stmt.s === 'const' || stmt.s === 'enum');
    if (stmt.s === 'const' || stmt.s === 'enum') values.set(stmt.name, stmt);
    if (stmt.s !== 'const') types.set(stmt.name, stmt);
    const value = values.get(stmt.name);
    const type = types.get(stmt.name);
    if (value?.s === 'const' && type && type.s !== 'alias')
      throw new Declined(`${file.fileName}:${file.lineOf(stmt.start)}`, `\`${stmt.name}\` declared twice`);
  }
  // A file with no import or export is a script: its declarations are global, merged across files.
  if (!isModule) throw new Declined(file.fileName, 'a file with no import or export (a global script)');
  return { types, values, imports, resolved: new Map() };
}

/**
 * Every type node in a type, depth first (for name checks and literal collection). An array, not a
 * generator: a recursive `yield*` re-yields every node through each level above it, and in a
 * one-shot run each step allocates.
 */
export function typeNodes(node: TypeNode, into: TypeNode[] = []): TypeNode[] {
  into.push(node);
  switch (node.t) {
    case 'paren':
    case 'readonly':
      typeNodes(node.type, into);
      break;
    case 'array':
      typeNodes(node.element, into);
      break;
    case 'ref':
      if (node.args) for (let i = 0; i < node.args.length; i++) typeNodes(node.args[i]!, into);
      break;
    case 'union':
      for (let i = 0; i < node.types.length; i++) typeNodes(node.types[i]!, into);
      break;
    case 'object':
      for (let i = 0; i < node.members.length; i++) typeNodes(node.members[i]!.type, into);
      break;
    default:
      break;
  }
  return into;
}
