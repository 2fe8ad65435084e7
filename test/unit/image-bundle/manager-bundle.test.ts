import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import {
  buildManager,
  COMPILE_CACHE_WARMER,
  MANAGER_BUNDLE_HEADER,
} from '../../../src/image-bundle/index.ts';
import { OpGenError } from '../../../src/errors.ts';
import { opGen } from '../bundle/project.ts';

/**
 * A compiled "operator" as tsc leaves it in dist/: an ES module importing a relative module, a
 * CommonJS package from node_modules that requires a Node module (what prom-client does), and a
 * module loaded with import() on first use.
 */
function project(main?: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'op-gen-build-'));
  mkdirSync(join(dir, 'dist'));
  mkdirSync(join(dir, 'node_modules', 'cjs-dep'), { recursive: true });
  writeFileSync(
    join(dir, 'node_modules', 'cjs-dep', 'package.json'),
    JSON.stringify({ name: 'cjs-dep', version: '1.0.0', main: 'index.js' }),
  );
  writeFileSync(
    join(dir, 'node_modules', 'cjs-dep', 'index.js'),
    "const os = require('node:os');\nmodule.exports = { eolLength: () => os.EOL.length, unused: () => 'tree-shaken?' };\n",
  );
  writeFileSync(join(dir, 'dist', 'greeting.js'), 'export const greeting = (name) => `hello ${name}`;\n');
  writeFileSync(join(dir, 'dist', 'later.js'), "export const later = 'loaded on first use';\n");
  writeFileSync(
    join(dir, 'dist', 'main.js'),
    main ??
      [
        "import dep from 'cjs-dep';",
        "import { greeting } from './greeting.js';",
        "const { later } = await import('./later.js');",
        "console.log(JSON.stringify({ greeting: greeting('op-gen'), eol: dep.eolLength(), later }));",
        '',
      ].join('\n'),
  );
  return dir;
}

const outFiles = (dir: string): string[] => readdirSync(dir).sort();

/** Node's compile cache keeps its files in one folder under NODE_COMPILE_CACHE (Node version, V8 flags, user). */
function cacheDir(root: string): string {
  const [sub, ...more] = readdirSync(root);
  assert.ok(sub !== undefined && more.length === 0, `one cache folder in ${root}`);
  return join(root, sub);
}

/** Each cache file with its size and modification time: what a start that wrote to the cache changes. */
const cacheEntries = (root: string): string[] =>
  readdirSync(cacheDir(root))
    .sort()
    .map((f) => {
      const st = statSync(join(cacheDir(root), f));
      return `${f} ${st.size} ${st.mtimeMs}`;
    });

describe('op-gen build (buildManager)', () => {
  it('bundles dist/main.js and what it imports into dist/manager/main.mjs, which runs with no node_modules', async () => {
    const dir = project();
    const result = await buildManager({ cwd: dir });
    const out = join(dir, 'dist', 'manager');
    const files = outFiles(out);
    assert.ok(files.includes('main.mjs'));
    assert.ok(files.includes('resolve-credentials.mjs'), "the runtime's kubeconfig child process");
    assert.ok(
      files.some((f) => /^later-[A-Z0-9]+\.mjs$/.test(f)),
      'import() stays a chunk of its own',
    );
    assert.deepEqual(result.written, result.files);
    assert.ok(result.inputs >= 4);
    for (const f of files) assert.ok(readFileSync(join(out, f), 'utf8').startsWith(MANAGER_BUNDLE_HEADER), f);
    // Copied alone to a folder with no node_modules and no package.json: it still runs.
    const image = mkdtempSync(join(tmpdir(), 'op-gen-build-image-'));
    for (const f of files) writeFileSync(join(image, f), readFileSync(join(out, f)));
    const run = spawnSync(process.execPath, ['main.mjs'], { cwd: image, encoding: 'utf8' });
    assert.equal(run.status, 0, run.stderr);
    assert.deepEqual(JSON.parse(run.stdout), {
      greeting: 'hello op-gen',
      eol: 1,
      later: 'loaded on first use',
    });
  });

  it('is deterministic: a second build changes nothing, and --check passes', async () => {
    const dir = project();
    const first = await buildManager({ cwd: dir });
    const second = await buildManager({ cwd: dir });
    assert.deepEqual(second.written, []);
    assert.deepEqual(second.unchanged, first.files);
    const checked = await buildManager({ cwd: dir, check: true });
    assert.deepEqual([...checked.written, ...checked.stale], []);
  });

  it('removes the chunks of an earlier build it no longer writes, and leaves other files alone', async () => {
    const dir = project();
    await buildManager({ cwd: dir });
    const out = join(dir, 'dist', 'manager');
    const oldChunk = outFiles(out).find((f) => f.startsWith('later-'));
    assert.ok(oldChunk);
    writeFileSync(join(out, 'notes.mjs'), '// mine\n');
    writeFileSync(join(dir, 'dist', 'later.js'), "export const later = 'changed';\n");
    const check = await buildManager({ cwd: dir, check: true });
    assert.ok(check.stale.includes(join('dist', 'manager', oldChunk)), 'check reports the stale chunk');
    assert.ok(existsSync(join(out, oldChunk)), 'check writes nothing');
    const result = await buildManager({ cwd: dir });
    assert.deepEqual(result.removed, [join('dist', 'manager', oldChunk)]);
    assert.ok(!existsSync(join(out, oldChunk)));
    assert.ok(existsSync(join(out, 'notes.mjs')), 'a file without the header is not ours');
  });

  it('without a compiled entry: one line saying to compile first', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'op-gen-build-'));
    await assert.rejects(
      buildManager({ cwd: dir }),
      (err: unknown) =>
        err instanceof OpGenError &&
        /^dist\/main\.js does not exist: .*npm run build/.test(err.message) &&
        !err.message.includes('\n'),
    );
  });

  it('reports every import it cannot resolve with its place, and writes nothing', async () => {
    const dir = project(
      "import { a } from './missing.js';\nimport b from 'not-installed';\nconsole.log(a, b);\n",
    );
    await assert.rejects(buildManager({ cwd: dir }), (err: unknown) => {
      assert.ok(err instanceof OpGenError);
      assert.match(err.message, /2 error\(s\) bundling dist\/main\.js/);
      assert.match(err.message, /dist\/main\.js:1:19: Could not resolve "\.\/missing\.js"/);
      assert.match(err.message, /dist\/main\.js:2:15: Could not resolve "not-installed"/);
      return true;
    });
    assert.ok(!existsSync(join(dir, 'dist', 'manager')));
  });

  it("warns about an import() of a CommonJS package in the project's code: the bundle gives it only a default export", async () => {
    const dir = project(
      "const { eolLength } = await import('cjs-dep');\nconst dep = (await import('cjs-dep')).default;\nconsole.log(eolLength, dep.eolLength());\n",
    );
    const result = await buildManager({ cwd: dir });
    assert.equal(result.warnings.length, 2, result.warnings.join('\n'));
    assert.match(
      result.warnings[0] ?? '',
      /^dist\/main\.js: import\('cjs-dep'\) loads a CommonJS module, .*use \(await import\('cjs-dep'\)\)\.default$/,
    );
    // What the warning is about: the named export is missing in the bundle, the default works.
    const run = spawnSync(process.execPath, [join(dir, 'dist', 'manager', 'main.mjs')], { encoding: 'utf8' });
    assert.equal(run.status, 0, run.stderr);
    assert.equal(run.stdout.trim(), 'undefined 1');
    // A project importing nothing that way gets no warning.
    assert.deepEqual((await buildManager({ cwd: project() })).warnings, []);
  });

  it("takes Node's own modules with process.getBuiltinModule, not ES imports (whose facades load every lazy export)", async () => {
    const dir = project(
      [
        "import { EOL } from 'node:os';",
        "import * as http from 'node:http';",
        "import path from 'path';",
        "import { parseArgs } from 'node:util';",
        'console.log(JSON.stringify({',
        '  eol: EOL.length,',
        '  agent: typeof http.Agent,',
        "  joined: path.join('a', 'b'),",
        "  parsed: parseArgs({ args: ['--x=1'], options: { x: { type: 'string' } } }).values.x,",
        '  // Whether node:http built its ES facade: the facade reads its lazy exports, which loads undici.',
        "  undici: process.moduleLoadList.some((m) => m.includes('undici')),",
        "  // Whether node:util's lazy exports were read: esbuild's CommonJS interop reads every export's",
        '  // descriptor, which loads its text diff and worker_threads.',
        '  utilLazy: process.moduleLoadList.filter((m) => / (internal\\/util\\/diff|worker_threads)$/.test(m)),',
        '}));',
        '',
      ].join('\n'),
    );
    await buildManager({ cwd: dir });
    const out = join(dir, 'dist', 'manager');
    const code = outFiles(out)
      .map((f) => readFileSync(join(out, f), 'utf8'))
      .join('\n');
    const esImports = [...code.matchAll(/^import [^;]*? from ["']((?:node:)?[a-z_/]+)["']/gm)].map(
      (m) => m[1],
    );
    assert.deepEqual([...new Set(esImports)], ['node:module'], 'only the require shim imports a Node module');
    const run = spawnSync(process.execPath, ['main.mjs'], { cwd: out, encoding: 'utf8' });
    assert.equal(run.status, 0, run.stderr);
    assert.deepEqual(JSON.parse(run.stdout), {
      eol: 1,
      agent: 'function',
      joined: 'a/b',
      parsed: '1',
      undici: false,
      utilLazy: [],
    });
  });

  it('an import of a name the building Node does not export from a built-in module is a build error naming it', async () => {
    const dir = project("import { EOL, noSuchExport } from 'node:os';\nconsole.log(EOL, noSuchExport);\n");
    await assert.rejects(buildManager({ cwd: dir }), (err: unknown) => {
      assert.ok(err instanceof OpGenError);
      assert.match(
        err.message,
        /dist\/main\.js:1:\d+: No matching export in "op-gen-builtin:node:os" for import "noSuchExport"/,
      );
      return true;
    });
  });

  it('writes warm-compile-cache.mjs: it fills NODE_COMPILE_CACHE with every module of the bundle without running any, and a start then compiles nothing', async () => {
    const dir = project(
      [
        "import { writeFileSync } from 'node:fs';",
        "import { greeting } from './greeting.js';",
        "const { later } = await import('./later.js');",
        "writeFileSync('ran.txt', `${greeting('op-gen')} ${later}`);",
        '',
      ].join('\n'),
    );
    await buildManager({ cwd: dir });
    const out = join(dir, 'dist', 'manager');
    const cache = mkdtempSync(join(tmpdir(), 'op-gen-build-cache-'));
    // The same V8 flags both times (they are part of the cache's key), as the Dockerfile has them.
    const node = (file: string, env: NodeJS.ProcessEnv) =>
      spawnSync(process.execPath, ['--no-opt', file], {
        cwd: out,
        encoding: 'utf8',
        env: { ...process.env, NODE_COMPILE_CACHE: cache, ...env },
      });
    const warm = node(COMPILE_CACHE_WARMER, {});
    assert.equal(warm.status, 0, warm.stderr);
    const modules = outFiles(out).filter((f) => f !== COMPILE_CACHE_WARMER);
    assert.equal(warm.stdout, `compile cache: ${modules.length} modules compiled into ${cacheDir(cache)}\n`);
    assert.ok(!existsSync(join(out, 'ran.txt')), 'the warm-up runs no operator code');
    const filled = cacheEntries(cache);
    // The manager's start, its import() included: every module comes from the cache, so Node has
    // nothing new to write (a module compiled afresh is written at exit).
    const run = node('main.mjs', {});
    assert.equal(run.status, 0, run.stderr);
    assert.equal(readFileSync(join(out, 'ran.txt'), 'utf8'), 'hello op-gen loaded on first use');
    assert.deepEqual(cacheEntries(cache), filled);
  });

  it('warm-compile-cache.mjs fails in one line when the cache is off or a module does not load', async () => {
    const dir = project();
    await buildManager({ cwd: dir });
    const out = join(dir, 'dist', 'manager');
    const env = { ...process.env };
    delete env.NODE_COMPILE_CACHE;
    const off = spawnSync(process.execPath, [COMPILE_CACHE_WARMER], { cwd: out, encoding: 'utf8', env });
    assert.equal(off.status, 1);
    assert.match(
      off.stderr,
      /^warm-compile-cache\.mjs: Node's compile cache is off: set NODE_COMPILE_CACHE to a directory this user can write .*\n$/,
    );
    writeFileSync(join(out, 'main.mjs'), `${MANAGER_BUNDLE_HEADER}import './gone.mjs';\n`);
    const broken = spawnSync(process.execPath, [COMPILE_CACHE_WARMER], {
      cwd: out,
      encoding: 'utf8',
      env: { ...env, NODE_COMPILE_CACHE: mkdtempSync(join(tmpdir(), 'op-gen-build-cache-')) },
    });
    assert.equal(broken.status, 1);
    assert.match(broken.stderr, /^warm-compile-cache\.mjs: main\.mjs: Cannot find module .*gone\.mjs.*\n$/);
  });

  it('--external leaves a package to node_modules', async () => {
    const dir = project();
    await buildManager({ cwd: dir, external: ['cjs-dep'] });
    const main = readFileSync(join(dir, 'dist', 'manager', 'main.mjs'), 'utf8');
    assert.match(main, /from "cjs-dep"/);
    assert.doesNotMatch(main, /os\.EOL/);
  });

  it('the CLI prints what it bundled and each file; a failure is exit 1 with the message', () => {
    const dir = project();
    const ok = opGen(dir, 'build');
    assert.equal(ok.status, 0, ok.stderr);
    assert.match(ok.stdout, /^bundled dist\/main\.js: \d+ modules, \d+ KiB in \d+ file\(s\)$/m);
    assert.match(ok.stdout, /^wrote {5}dist\/manager\/main\.mjs$/m);
    const check = opGen(dir, 'build', '--check');
    assert.equal(check.status, 0, check.stderr);
    assert.match(check.stdout, /manager bundle file\(s\) up to date/);
    const missing = opGen(dir, 'build', '--entry', 'dist/nope.js');
    assert.equal(missing.status, 1);
    assert.match(missing.stderr, /dist\/nope\.js does not exist/);
    assert.doesNotMatch(missing.stderr, /\n\s+at /, 'no stack');
  });
});
