import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ts as TS } from 'ts-morph';
import { LIB_STUB, LIB_STUB_PATH } from './lib-stub.ts';

/** Where virtual stubs of @kubernetes/client-node live; a type declared under it is a built-in. */
export const K8S_STUB_DIR = '/__op-gen__/k8s/';
export const K8S_MODULE = '@kubernetes/client-node';
const OP_GEN_SUBPATH_STUB_DIR = '/__op-gen__/op-gen-subpath/';

/** op-gen's own entry (the helper types): src/index.ts when run from source, dist/index.d.ts when built. */
export function opGenTypesEntry(): string {
  const fromSource = import.meta.url.endsWith('.ts');
  return fileURLToPath(new URL(fromSource ? '../index.ts' : '../index.d.ts', import.meta.url));
}

/** The folder holding op-gen's helper type declarations (ObjectMeta, PreserveUnknownFields...). */
export function opGenTypesDir(): string {
  return fileURLToPath(new URL('../api-types/', import.meta.url));
}

/** The compiler options of op-gen's programs over a project's sources. */
export function apiProgramOptions(ts: typeof TS): TS.CompilerOptions {
  return {
    noLib: true,
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    types: [],
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    allowImportingTsExtensions: true,
    resolveJsonModule: false,
  };
}

/** The roots of a program over a project's sources (source-set.ts builds it). */
export interface ProgramRoots {
  /** API sources: every import resolved, `op-gen` and `@kubernetes/client-node` stubbed (below). */
  readonly api: readonly string[];
  /**
   * Other sources of the project (controllers, main): parsed, and an import binds only when it names
   * another root (what `noResolve` does), so nothing outside the project is loaded for them.
   */
  readonly project: readonly string[];
}

/** Texts and parsed files kept for the programs of one source set (a second program parses nothing twice). */
export interface HostCache {
  readonly texts: Map<string, string>;
  readonly parsed: Map<string, TS.SourceFile>;
}

/**
 * The compiler host of a program over the sources, built for speed: `noLib` with a tiny lib stub,
 * JSDoc left unparsed (markers are read from the raw comments), `op-gen` resolved to the running
 * op-gen's helper types, and `@kubernetes/client-node` replaced by a per-file stub declaring just the
 * names a file imports (the real package's declarations are thousands of files; built-in schemas come
 * from data). The API sources and what they import are resolved that way; the project's other roots
 * only bind imports of other roots. `apiClosure` collects the API sources and every file they reach
 * (TypeScript reads a root's imports before the next root, and the API roots come first).
 */
export function apiCompilerHost(
  ts: typeof TS,
  cwd: string,
  roots: ProgramRoots,
  cache: HostCache,
): { host: TS.CompilerHost; options: TS.CompilerOptions; rootNames: string[]; apiClosure: Set<string> } {
  const options = apiProgramOptions(ts);
  const texts = cache.texts;
  const opGenEntry = opGenTypesEntry();
  const apiClosure = new Set(roots.api);
  const rootSet = new Set([...roots.api, ...roots.project]);

  const readText = (fileName: string): string | undefined => {
    if (fileName === LIB_STUB_PATH) return LIB_STUB;
    const cached = texts.get(fileName);
    if (cached !== undefined) return cached;
    if (!existsSync(fileName)) return undefined;
    const text = readFileSync(fileName, 'utf8');
    texts.set(fileName, text);
    return text;
  };

  const moduleHost = {
    fileExists: (f) => f === LIB_STUB_PATH || texts.has(f) || existsSync(f),
    readFile: readText,
    directoryExists: (d) => existsSync(d) && statSync(d).isDirectory(),
    getCurrentDirectory: () => cwd,
  } satisfies TS.ModuleResolutionHost;
  const resolutionCache = ts.createModuleResolutionCache(cwd, (f) => f, options);

  const resolveApi = (
    name: string,
    containingFile: string,
    opts: TS.CompilerOptions,
    containingSourceFile: TS.SourceFile,
  ): TS.ResolvedModuleWithFailedLookupLocations =>
    resolveApiModule(ts, { name, containingFile, containingSourceFile, texts, opGenEntry }) ??
    ts.resolveModuleName(name, containingFile, opts, moduleHost, resolutionCache);

  const host: TS.CompilerHost = {
    ...moduleHost,
    getSourceFile(fileName, languageVersionOrOptions) {
      const parsed = cache.parsed.get(fileName);
      if (parsed) return parsed;
      const text = readText(fileName);
      if (text === undefined) return undefined;
      const langOptions =
        typeof languageVersionOrOptions === 'object'
          ? languageVersionOrOptions
          : { languageVersion: languageVersionOrOptions };
      const file = ts.createSourceFile(
        fileName,
        text,
        { ...langOptions, jsDocParsingMode: ts.JSDocParsingMode.ParseNone },
        false,
      );
      cache.parsed.set(fileName, file);
      return file;
    },
    getDefaultLibFileName: () => LIB_STUB_PATH,
    writeFile: () => undefined,
    getCanonicalFileName: (f) => f,
    useCaseSensitiveFileNames: () => true,
    getNewLine: () => '\n',
    resolveModuleNameLiterals(literals, containingFile, _redirected, opts, containingSourceFile) {
      return literals.map((literal) => {
        if (apiClosure.has(containingFile)) {
          const resolved = resolveApi(literal.text, containingFile, opts, containingSourceFile);
          if (resolved.resolvedModule) apiClosure.add(resolved.resolvedModule.resolvedFileName);
          return resolved;
        }
        // A project file outside the API: only another root binds (nothing is loaded for it).
        if (!literal.text.startsWith('.')) return { resolvedModule: undefined };
        const resolved = ts.resolveModuleName(
          literal.text,
          containingFile,
          opts,
          moduleHost,
          resolutionCache,
        );
        const target = resolved.resolvedModule?.resolvedFileName;
        return target !== undefined && rootSet.has(target) ? resolved : { resolvedModule: undefined };
      });
    },
  };
  return { host, options, rootNames: [LIB_STUB_PATH, ...rootSet], apiClosure };
}

/**
 * How the API program resolves op-gen and `@kubernetes/client-node` (to the running op-gen's types and
 * per-file stubs), or undefined for any other module (resolved as TypeScript does).
 */
function resolveApiModule(
  ts: typeof TS,
  at: {
    readonly name: string;
    readonly containingFile: string;
    readonly containingSourceFile: TS.SourceFile;
    readonly texts: Map<string, string>;
    readonly opGenEntry: string;
  },
): TS.ResolvedModuleWithFailedLookupLocations | undefined {
  const { name, containingFile, containingSourceFile, texts, opGenEntry } = at;
  if (name === 'op-gen') {
    return {
      resolvedModule: {
        resolvedFileName: opGenEntry,
        extension: opGenEntry.endsWith('.d.ts') ? ts.Extension.Dts : ts.Extension.Ts,
        isExternalLibraryImport: false,
      },
    };
  }
  const subpath = name.startsWith('op-gen/') ? opGenSubpathEntry(name.slice('op-gen/'.length)) : undefined;
  if (subpath) {
    // op-gen/runtime, op-gen/testing: values (defineKind), never field types; not worth checking
    // their declarations. A per-file stub declares the names the file imports that the subpath
    // exports (a name it does not export stays an error, as with the real module).
    const stub = `${OP_GEN_SUBPATH_STUB_DIR}${encodeURIComponent(`${containingFile}:${name}`)}.d.ts`;
    if (!texts.has(stub))
      texts.set(stub, opGenSubpathStub(ts, containingSourceFile, name, exportedNames(ts, subpath)));
    return {
      resolvedModule: {
        resolvedFileName: stub,
        extension: ts.Extension.Dts,
        isExternalLibraryImport: false,
      },
    };
  }
  if (name === K8S_MODULE) {
    const stub = `${K8S_STUB_DIR}${encodeURIComponent(containingFile)}.d.ts`;
    if (!texts.has(stub)) texts.set(stub, k8sStub(ts, containingSourceFile));
    return {
      resolvedModule: {
        resolvedFileName: stub,
        extension: ts.Extension.Dts,
        isExternalLibraryImport: false,
      },
    };
  }
  return undefined;
}

/** The entry of an op-gen subpath export (`runtime` → src/runtime/index.ts or dist/runtime/index.d.ts), if it exists. */
function opGenSubpathEntry(subpath: string): string | undefined {
  if (!/^[a-z][a-z0-9-]*$/.test(subpath)) return undefined;
  const entry = opGenTypesEntry();
  const file = join(dirname(entry), subpath, entry.endsWith('.d.ts') ? 'index.d.ts' : 'index.ts');
  return existsSync(file) ? file : undefined;
}

const exportedCache = new Map<string, ReadonlySet<string>>();

/** The names a module exports, following `export * from './x'` (parsed only, never checked). */
function exportedNames(ts: typeof TS, fileName: string, seen = new Set<string>()): ReadonlySet<string> {
  const cached = exportedCache.get(fileName);
  if (cached) return cached;
  const names = new Set<string>();
  if (seen.has(fileName) || !existsSync(fileName)) return names;
  seen.add(fileName);
  const file = ts.createSourceFile(fileName, readFileSync(fileName, 'utf8'), ts.ScriptTarget.Latest, false);
  for (const stmt of file.statements) {
    if (ts.isExportDeclaration(stmt)) {
      if (stmt.exportClause && ts.isNamedExports(stmt.exportClause)) {
        for (const el of stmt.exportClause.elements) names.add(el.name.text);
      } else if (stmt.exportClause && ts.isNamespaceExport(stmt.exportClause)) {
        names.add(stmt.exportClause.name.text);
      } else if (stmt.moduleSpecifier && ts.isStringLiteral(stmt.moduleSpecifier)) {
        // From dist/*.d.ts, `./x.ts` and `./x.js` name the declaration file `./x.d.ts`.
        const named = join(dirname(fileName), stmt.moduleSpecifier.text);
        const target = existsSync(named) ? named : named.replace(/\.(ts|js)$/, '.d.ts');
        for (const n of exportedNames(ts, target, seen)) names.add(n);
      }
      continue;
    }
    const exported = ts.canHaveModifiers(stmt)
      ? ts.getModifiers(stmt)?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword)
      : false;
    if (!exported) continue;
    if (ts.isVariableStatement(stmt)) {
      for (const d of stmt.declarationList.declarations) if (ts.isIdentifier(d.name)) names.add(d.name.text);
    } else if ('name' in stmt && stmt.name && ts.isIdentifier(stmt.name as TS.Node)) {
      names.add((stmt.name as TS.Identifier).text);
    }
  }
  exportedCache.set(fileName, names);
  return names;
}

/** The names a file imports or re-exports by name from `module` (`import { A, B as C }`: A and B). */
function namesFrom(ts: typeof TS, file: TS.SourceFile, module: string): Set<string> {
  const names = new Set<string>();
  for (const stmt of file.statements) {
    let spec: TS.Expression | undefined;
    let elements: readonly (TS.ImportSpecifier | TS.ExportSpecifier)[] = [];
    if (ts.isImportDeclaration(stmt)) {
      spec = stmt.moduleSpecifier;
      const bindings = stmt.importClause?.namedBindings;
      if (bindings && ts.isNamedImports(bindings)) elements = bindings.elements;
    } else if (ts.isExportDeclaration(stmt) && stmt.moduleSpecifier) {
      spec = stmt.moduleSpecifier;
      if (stmt.exportClause && ts.isNamedExports(stmt.exportClause)) elements = stmt.exportClause.elements;
    }
    if (!spec || !ts.isStringLiteral(spec) || spec.text !== module) continue;
    for (const el of elements) names.add((el.propertyName ?? el.name).text);
  }
  return names;
}

/** `declare const x: any; type x = any;` for each name the file imports from the op-gen subpath `module`. */
function opGenSubpathStub(
  ts: typeof TS,
  file: TS.SourceFile,
  module: string,
  exported: ReadonlySet<string>,
): string {
  const names = [...namesFrom(ts, file, module)].filter((n) => exported.has(n));
  const lines = names.map((n) => `declare const ${n}: any; type ${n} = any; export { ${n} };`);
  return lines.length > 0 ? lines.join('\n') : 'export {};';
}

/** `export interface V1Foo { ... }` for each name the file imports or re-exports from client-node. */
function k8sStub(ts: typeof TS, file: TS.SourceFile): string {
  const names = namesFrom(ts, file, K8S_MODULE);
  for (const stmt of file.statements) {
    const bindings = ts.isImportDeclaration(stmt) ? stmt.importClause?.namedBindings : undefined;
    if (
      bindings &&
      ts.isNamespaceImport(bindings) &&
      ts.isImportDeclaration(stmt) &&
      ts.isStringLiteral(stmt.moduleSpecifier) &&
      stmt.moduleSpecifier.text === K8S_MODULE
    ) {
      // `import * as k8s from '@kubernetes/client-node'`: the names used as `k8s.V1Foo`.
      const used = new RegExp(`\\b${bindings.name.text}\\.([A-Za-z_$][\\w$]*)`, 'g');
      for (const m of file.text.matchAll(used)) if (m[1]) names.add(m[1]);
    }
  }
  return [...names]
    .map((n) => `export interface ${n} { readonly __opGenKubernetesBuiltin: '${n}'; }`)
    .join('\n');
}
