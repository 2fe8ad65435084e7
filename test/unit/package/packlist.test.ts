import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

/**
 * The npm package as users get it: what `npm pack` puts in the tarball (npm's own packlist, from
 * package.json's `files`), the licence and the `prepack` build. The tarball installed and used for
 * real is test/integration/package/tarball.test.ts.
 */

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

interface PackManifest {
  name: string;
  version: string;
  files: { path: string }[];
}

interface PackageJson {
  license: string;
  bin: Record<string, string>;
  scripts: Record<string, string>;
  files: string[];
  exports: Record<string, string | { types: string; default: string }>;
}

const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as PackageJson;

/** npm's packlist of this checkout (no prepack: it would rebuild dist/ under the other tests' feet). */
function packlist(): string[] {
  const { NODE_TEST_CONTEXT: _nested, npm_config_call: _outerCall, ...env } = process.env;
  const ran = spawnSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
    cwd: ROOT,
    encoding: 'utf8',
    env,
  });
  assert.equal(ran.status, 0, `npm pack --dry-run failed:\n${ran.stderr}`);
  const [manifest] = JSON.parse(ran.stdout) as PackManifest[];
  assert.ok(manifest, 'npm pack --dry-run --json printed no manifest');
  return manifest.files.map((f) => f.path).sort();
}

/** The top-level entries of a list of paths: `dist/cli/main.js` -> `dist`. */
function topLevel(paths: readonly string[]): string[] {
  return [...new Set(paths.map((p) => p.split('/')[0] ?? p))].sort();
}

describe('the npm package (npm pack)', () => {
  let files: string[] = [];
  before(() => {
    assert.ok(
      existsSync(join(ROOT, 'dist/cli/main.js')),
      'op-gen is not built: run `npm run build` first (npm run test:unit does)',
    );
    files = packlist();
  });

  it('holds exactly what an installed op-gen needs at the top level', () => {
    assert.deepEqual(topLevel(files), [
      'LICENSE', // the Apache-2.0 text package.json's "license" names
      'README.md',
      'bin', // the `op-gen` command and its Node version gate
      'data', // Kubernetes OpenAPI schemas `generate crd` embeds for built-in types
      'dist', // the compiled CLI, runtime, testing harness and vendored compiler
      'package.json',
      'scripts', // setup-envtest.mjs: `npm explore op-gen -- npm run setup:envtest`
      'templates', // what `init`, `create api` and `create webhook` render
      'tools', // tools/envtest: the Go modules setup:envtest builds; versions.json, read by op-gen/testing
    ]);
  });

  it('leaves out tests, benchmarks, sources, source maps and op-gen-only tools', () => {
    const unwanted = files.filter(
      (f) =>
        /^(test|bench|src|docs|\.ci)\//.test(f) ||
        f.endsWith('.map') ||
        /\.test\.[cm]?[jt]s$/.test(f) ||
        /^tools\/(helm|kustomize)\//.test(f),
    );
    assert.deepEqual(unwanted, []);
    assert.deepEqual(
      files.filter((f) => f.startsWith('scripts/')),
      ['scripts/setup-envtest.mjs'],
    );
    assert.deepEqual(
      files.filter((f) => f.startsWith('tools/') && !f.startsWith('tools/envtest/')),
      [],
    );
  });

  it('holds every file the bin, the exports and the runtime loads name', () => {
    const needed = [
      ...Object.values(pkg.bin).map((b) => b.replace(/^\.\//, '')),
      'bin/node-version.js',
      'bin/exit-when-idle.js',
      'dist/cli/main.js',
      'dist/vendor/typescript.cjs',
      'dist/vendor/yaml.cjs',
      'dist/vendor/commander.cjs',
      'tools/envtest/versions.json',
      ...Object.values(pkg.exports).flatMap((e) => (typeof e === 'string' ? [e] : [e.types, e.default])),
    ].map((p) => p.replace(/^\.\//, ''));
    assert.deepEqual(
      needed.filter((p) => !files.includes(p)),
      [],
    );
    assert.ok(
      files.some((f) => f.startsWith('templates/init/')),
      'the init templates are in the package',
    );
    assert.ok(
      files.some((f) => /^data\/k8s-schemas\/v[\d.]+\.json$/.test(f)),
      'the built-in schemas are in the package',
    );
  });

  it('is licensed Apache-2.0, with the licence text in the package', () => {
    assert.equal(pkg.license, 'Apache-2.0');
    const text = readFileSync(join(ROOT, 'LICENSE'), 'utf8');
    assert.match(
      text,
      /^\s*Apache License\s+Version 2\.0, January 2004\s+http:\/\/www\.apache\.org\/licenses\//,
    );
    assert.match(text, /END OF TERMS AND CONDITIONS/);
    assert.match(readFileSync(join(ROOT, 'README.md'), 'utf8'), /Apache License 2\.0.*LICENSE/s);
  });

  it('builds dist/ from scratch before packing (prepack), so no stale module is shipped', () => {
    const prepack = pkg.scripts.prepack ?? '';
    assert.match(prepack, /rmSync\('dist'/, 'prepack removes dist/ first');
    assert.match(prepack, /npm run build$/, 'then builds');
  });
});
