import { existsSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isBuiltin } from 'node:module';
import type { BuildFailure, Message, Metafile, Plugin } from 'esbuild';
import { OpGenError } from '../errors.ts';
import type { GenerateResult } from '../generation/contract.ts';
import { emit, filesWithHeader } from '../generation/emit.ts';
import { compareNames } from '../shared/compare-names.ts';

export interface BuildManagerOptions {
  readonly cwd: string;
  /** The compiled entry point (tsc's output), default dist/main.js. */
  readonly entry?: string;
  /** The folder the bundle is written to, default dist/manager. */
  readonly out?: string;
  /** Packages left out of the bundle (imported from node_modules at run time): native addons, say. */
  readonly external?: readonly string[];
  readonly check?: boolean;
}

export interface BuildManagerResult extends GenerateResult {
  /** Modules bundled (op-gen's runtime and every dependency the entry reaches), from esbuild's metafile. */
  readonly inputs: number;
  /** Bytes of JavaScript written (every chunk). */
  readonly bytes: number;
  /** esbuild's warnings (file:line:col first), for the command to print. */
  readonly warnings: readonly string[];
}

/** The first line of every file `op-gen build` writes: how it recognises its own (stale) chunks. */
export const MANAGER_BUNDLE_HEADER =
  '// Built by `op-gen build`. DO NOT EDIT: change src/ and build again.\n';

/**
 * Bundled CommonJS dependencies (prom-client and its own dependencies) call `require` for Node's
 * modules; an ES module has no `require`, so every chunk makes one for itself.
 */
const REQUIRE_SHIM =
  "import { createRequire as __opGenCreateRequire } from 'node:module';\n" +
  'const require = __opGenCreateRequire(import.meta.url);\n';

/**
 * Node's own modules, imported by ES `import` statements, taken with `process.getBuiltinModule`
 * instead. An ES import of a built-in module makes Node build its ES facade, which reads every export
 * once, lazy ones included: node:http's loads undici (its fetch and WebSocket), node:util's its diff
 * and colours, node:crypto's WebCrypto, about 30 ms of a manager's start with the scaffold's flags
 * (`--no-opt`), for things it never uses.
 *
 * Each built-in becomes a small ES module exporting the module object as its default and each of its
 * exports by name, read only where the bundle uses it: esbuild drops the unused ones (each is a call
 * marked pure). A CommonJS value instead (`module.exports = ...`) goes through esbuild's interop,
 * which reads the property descriptor of every export at load, and for node:util that loads 14 of
 * Node's modules (its text diff, worker_threads, ...): 5–8 ms of CPU at each start of a scaffolded
 * manager, whose config.ts imports `parseArgs`. The names are the ones the building Node has; an
 * import of a name it lacks is a build error naming it, as Node's own ES import would be at run time.
 * (`process.getBuiltinModule` exists from Node 22.3; the bundle targets 22.19.)
 */
const builtinsWithoutFacades: Plugin = {
  name: 'op-gen-builtins-without-facades',
  setup(build) {
    build.onResolve({ filter: /^[a-z_:/]+$/ }, (args) =>
      args.kind === 'import-statement' && isBuiltin(args.path)
        ? { path: args.path, namespace: 'op-gen-builtin' }
        : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: 'op-gen-builtin' }, (args) => ({
      contents: builtinModuleSource(args.path),
      loader: 'js',
    }));
  },
};

/** The ES module standing for built-in `id` in the bundle (see builtinsWithoutFacades). */
export function builtinModuleSource(id: string): string {
  const names = Object.getOwnPropertyNames(process.getBuiltinModule(id))
    .filter((n) => /^[A-Za-z_$][\w$]*$/.test(n) && n !== 'default')
    .sort(compareNames);
  return [
    `const m = process.getBuiltinModule(${JSON.stringify(id)});`,
    'const read = (name) => m[name];',
    'export default m;',
    ...names.map((n) => `const e_${n} = /* @__PURE__ */ read(${JSON.stringify(n)});`),
    `export { ${names.map((n) => `e_${n} as ${n}`).join(', ')} };`,
    '',
  ].join('\n');
}

/** The file `op-gen build` writes next to the bundle to fill Node's compile cache at image build. */
export const COMPILE_CACHE_WARMER = 'warm-compile-cache.mjs';

/**
 * The warmer's text (not bundled: written as is). It compiles every other module of its folder
 * without running any of it: each is imported through a one-line module asking for an export no
 * module has, so Node compiles and links the graph (Node's compile cache records each module as it
 * compiles it) and the link fails before anything is evaluated. No operator code runs, nothing
 * connects anywhere. Every other failure (a syntax error, a missing chunk, a cache that is off or
 * cannot be written) is one line on stderr and exit 1. The cache's key holds the Node version, the
 * V8 flags and the user id, so the image runs it as the manager's user with the manager's flags.
 */
export const COMPILE_CACHE_WARMER_SOURCE = `${MANAGER_BUNDLE_HEADER}// Fills Node's compile cache with this folder's modules, compiled and not run, so the manager's
// first start skips compiling them (op-gen's docs/build.md, "Compile cache"). Run it with the
// manager's user and V8 flags, which are part of the cache's key:
//   NODE_COMPILE_CACHE=<dir> node <the manager's flags> ${COMPILE_CACHE_WARMER}
const { flushCompileCache, getCompileCacheDir } = process.getBuiltinModule('node:module');
const { readdirSync } = process.getBuiltinModule('node:fs');
const fail = (message) => {
  process.stderr.write(\`${COMPILE_CACHE_WARMER}: \${message}\n\`);
  process.exit(1);
};
const dir = getCompileCacheDir?.();
if (!dir)
  fail(
    "Node's compile cache is off: set NODE_COMPILE_CACHE to a directory this user can write (Node >= 22.10, NODE_DISABLE_COMPILE_CACHE unset)",
  );
const here = new URL('.', import.meta.url);
const marker = '__opGenCompileOnly';
const modules = readdirSync(here)
  .filter((f) => f.endsWith('.mjs') && f !== '${COMPILE_CACHE_WARMER}')
  .sort();
for (const name of modules) {
  const source = \`import { \${marker} } from \${JSON.stringify(new URL(name, here).href)};\`;
  try {
    await import(\`data:text/javascript,\${encodeURIComponent(source)}\`);
  } catch (err) {
    if (err instanceof SyntaxError && err.message.includes(marker)) continue;
    fail(\`\${name}: \${err instanceof Error ? err.message : String(err)}\`);
  }
  fail(\`\${name} exports \${marker}: rename it\`);
}
flushCompileCache();
if (readdirSync(dir).length === 0) fail(\`nothing was written to \${dir}: can this user write it?\`);
process.stdout.write(\`compile cache: \${modules.length} modules compiled into \${dir}\n\`);
`;

/**
 * The child-process entry of op-gen's kubeconfig loading (client/resolve-credentials): the runtime
 * starts it next to its own chunk (`./resolve-credentials.mjs`), so the bundle carries it as a
 * second entry point under that name.
 */
function credentialsEntry(): string {
  const ext = import.meta.url.endsWith('.ts') ? '.ts' : '.js';
  return fileURLToPath(new URL(`../client/resolve-credentials${ext}`, import.meta.url));
}

function place(message: Message, cwd: string): string {
  const at = message.location
    ? `${relative(cwd, resolve(cwd, message.location.file))}:${message.location.line}:${message.location.column + 1}: `
    : '';
  return `${at}${message.text}`;
}

function isBuildFailure(err: unknown): err is BuildFailure {
  return err instanceof Error && Array.isArray((err as Partial<BuildFailure>).errors);
}

/**
 * `op-gen build`: the compiled operator and everything it imports (op-gen/runtime, prom-client, the
 * operator's own dependencies) as one set of ES modules in dist/manager/, what the image runs.
 * A Go operator ships one linked binary; a Node operator that loads ~150 modules from
 * node_modules keeps each module's source, wrapper and loader state, and the parts of its
 * dependencies it never calls: bundled and tree-shaken, the same manager starts with about 15 MB
 * less resident memory (docs/performance.md). Dynamic imports stay separate chunks, loaded on first
 * use. Written atomically; chunks of an earlier build that this one no longer has are removed.
 */
export async function buildManager(options: BuildManagerOptions): Promise<BuildManagerResult> {
  const cwd = options.cwd;
  const entryArg = options.entry ?? join('dist', 'main.js');
  const entry = resolve(cwd, entryArg);
  if (!existsSync(entry) || !statSync(entry).isFile())
    throw new OpGenError(
      `${entryArg} does not exist: op-gen build bundles the compiled operator, so compile it first (npm run build runs tsc, then op-gen build), or name the entry with --entry.`,
    );
  const outDir = resolve(cwd, options.out ?? join('dist', 'manager'));
  const { build } = await import('esbuild');
  let outputFiles;
  let metafile: Metafile;
  let warnings: Message[];
  try {
    const result = await build({
      entryPoints: [
        { in: entry, out: 'main' },
        { in: credentialsEntry(), out: 'resolve-credentials' },
      ],
      absWorkingDir: cwd,
      bundle: true,
      splitting: true,
      format: 'esm',
      platform: 'node',
      target: 'node22.19',
      outdir: outDir,
      // .mjs: the image's folder has no package.json saying "type": "module".
      outExtension: { '.js': '.mjs' },
      external: [...(options.external ?? [])],
      plugins: [builtinsWithoutFacades],
      write: false,
      metafile: true,
      banner: { js: MANAGER_BUNDLE_HEADER + REQUIRE_SHIM },
      // Readable stack traces: names and lines as written, only comments dropped.
      legalComments: 'none',
      // Flat: the runtime finds ./resolve-credentials.mjs next to whichever chunk holds it.
      chunkNames: '[name]-[hash]',
      logLevel: 'silent',
    });
    outputFiles = result.outputFiles;
    metafile = result.metafile;
    warnings = result.warnings;
  } catch (err) {
    if (!isBuildFailure(err)) throw err;
    const lines = err.errors.map((m) => `  ${place(m, cwd)}`);
    throw new OpGenError(
      `op-gen build: ${err.errors.length} error(s) bundling ${entryArg}:\n${lines.join('\n')}\nFix the import (or install the missing package) and build again.`,
    );
  }
  const hazards = cjsDynamicImports(metafile).map(
    (h) =>
      `${h.importer}: import('${h.specifier}') loads a CommonJS module, which in the bundle has only a default export (Node also gives it named ones): use (await import('${h.specifier}')).default`,
  );
  const files = [
    ...outputFiles.map((f) => ({ path: f.path, content: f.text })),
    { path: join(outDir, COMPILE_CACHE_WARMER), content: COMPILE_CACHE_WARMER_SOURCE },
  ].sort((a, b) => compareNames(a.path, b.path));
  const owned = filesWithHeader(outDir, MANAGER_BUNDLE_HEADER, { match: /\.mjs$/, recursive: true });
  const result = emit('build', { files, owned, outDir }, { cwd, check: options.check === true });
  const inputs = Object.keys(metafile.inputs).length;
  const bytes = files.reduce((sum, f) => sum + Buffer.byteLength(f.content), 0);
  return { ...result, inputs, bytes, warnings: [...warnings.map((w) => place(w, cwd)), ...hazards] };
}

/**
 * `import()`s in the project's own modules (not node_modules) of a CommonJS module. Node gives such a
 * namespace the module's named exports (found by a lexer), a bundle only `default`: code that
 * destructures a named export works from dist/ and fails in the image.
 */
export function cjsDynamicImports(metafile: Metafile): { importer: string; specifier: string }[] {
  const found: { importer: string; specifier: string }[] = [];
  for (const [path, input] of Object.entries(metafile.inputs)) {
    if (path.includes('node_modules/')) continue;
    for (const imported of input.imports) {
      if (imported.kind !== 'dynamic-import' || imported.external) continue;
      if (metafile.inputs[imported.path]?.format === 'cjs')
        found.push({ importer: path, specifier: imported.original ?? imported.path });
    }
  }
  return found;
}
