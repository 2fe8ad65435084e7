import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { PassThrough } from 'node:stream';
import { dirname, join } from 'node:path';
import { describe, it } from 'node:test';
import { initProject } from '../../../src/scaffold/init.ts';
// @ts-expect-error: plain JavaScript without types, so that Node 20 can run it.
import { isSupportedNode, MINIMUM_NODE, unsupportedNodeMessage } from '../../../bin/node-version.js';

const BIN = new URL('../../../bin/op-gen.js', import.meta.url).pathname;
const ROOT = new URL('../../../', import.meta.url).pathname;

/** An installed Node.js older than 22.19 (the machine's default may be one), or undefined. */
function oldNode(): string | undefined {
  for (const candidate of ['/usr/bin/node', '/usr/local/bin/node']) {
    if (!existsSync(candidate)) continue;
    const version = execFileSync(candidate, ['--version'], { encoding: 'utf8' }).trim();
    if (!(isSupportedNode as (v: string) => boolean)(version)) return candidate;
  }
  return undefined;
}

const old = oldNode();

describe('op-gen refuses an unsupported Node.js (item 10)', () => {
  it('knows which versions are supported', () => {
    const supported = isSupportedNode as (v: string) => boolean;
    assert.equal(MINIMUM_NODE, '22.19.0');
    for (const v of ['22.19.0', 'v22.19.1', '22.20.0', '23.0.0', 'v24.21.0', '25.1.0'])
      assert.equal(supported(v), true, v);
    for (const v of ['22.18.9', 'v22.0.0', '20.20.2', '18.0.0', 'v12.22.12'])
      assert.equal(supported(v), false, v);
  });

  it('names a command that gets Node 24 from the npm registry', () => {
    const message = (unsupportedNodeMessage as (v: string, a: string[]) => string)('v20.20.2', [
      'generate',
      'crd',
    ]);
    assert.equal(
      message,
      "op-gen: Node.js 20.20.2 is not supported: op-gen needs Node.js >= 22.19.0. Run it with Node 24 from the npm registry: npx -y -p node@24 -c 'op-gen generate crd' (or install Node 24 LTS)",
    );
  });

  it('the minimum is the one package.json declares', () => {
    const pkg = JSON.parse(readFileSync(`${ROOT}package.json`, 'utf8')) as { engines: { node: string } };
    assert.equal(pkg.engines.node, `>=${MINIMUM_NODE as string}`);
  });

  it(
    `bin/op-gen.js on ${old ?? 'an old Node'}: one line, exit 1, before loading anything`,
    { skip: old === undefined && 'no Node.js < 22.19 installed' },
    () => {
      const r = spawnSync(old!, [BIN, 'generate', 'rbac'], { encoding: 'utf8', cwd: ROOT });
      assert.equal(r.status, 1);
      assert.equal(r.stdout, '');
      assert.match(
        r.stderr,
        /^op-gen: Node\.js \d+\.\d+\.\d+ is not supported: op-gen needs Node\.js >= 22\.19\.0\. Run it with Node 24 from the npm registry: npx -y -p node@24 -c 'op-gen generate rbac' \(or install Node 24 LTS\)\n$/,
      );
    },
  );
});

describe('npm ci fails early on an unsupported Node, with the same hint (item 10)', () => {
  const checks: [string, string, string][] = [
    ['op-gen', `${ROOT}.npmrc`, `${ROOT}package.json`],
    ['the scaffold', `${ROOT}templates/init/_npmrc.hbs`, `${ROOT}templates/init/package.json.hbs`],
  ];
  for (const [what, npmrc, packageJson] of checks) {
    it(`${what}: engine-strict, and engines.node-hint (npm prints engines in its EBADENGINE error)`, () => {
      assert.match(readFileSync(npmrc, 'utf8'), /^engine-strict=true$/m);
      const text = readFileSync(packageJson, 'utf8');
      assert.match(text, /"node": ">=22\.19\.0"/);
      assert.match(text, /"node-hint": ".*npx -y -p node@24 -c 'npm ci'"/);
    });
  }

  it(
    'npm ci with an old Node stops before installing and prints the hint',
    { skip: old === undefined && 'no Node.js < 22.19 installed' },
    (t) => {
      // npm's own script under the old node: what a user with Node 20 on PATH runs, in a copy of the
      // files npm ci reads (it must stop before fetching anything).
      const npmCli = join(dirname(dirname(old!)), 'lib', 'node_modules', 'npm', 'bin', 'npm-cli.js');
      if (!existsSync(npmCli)) return t.skip(`no npm next to ${old!}`);
      const dir = mkdtempSync(join(tmpdir(), 'op-gen-npm-ci-'));
      for (const f of ['package.json', 'package-lock.json', '.npmrc']) cpSync(`${ROOT}${f}`, join(dir, f));
      const r = spawnSync(old!, [npmCli, 'ci', '--ignore-scripts', '--no-audit', '--no-fund'], {
        encoding: 'utf8',
        cwd: dir,
      });
      assert.equal(existsSync(join(dir, 'node_modules')), false, 'nothing installed');
      rmSync(dir, { recursive: true, force: true });
      assert.notEqual(r.status, 0);
      assert.match(r.stderr, /EBADENGINE/);
      assert.match(r.stderr, /npx -y -p node@24 -c 'npm ci'/);
    },
  );

  it(
    'npm ci in a scaffolded project with an old Node stops before installing and prints the hint',
    { skip: old === undefined && 'no Node.js < 22.19 installed' },
    async (t) => {
      const npmCli = join(dirname(dirname(old!)), 'lib', 'node_modules', 'npm', 'bin', 'npm-cli.js');
      if (!existsSync(npmCli)) return t.skip(`no npm next to ${old!}`);
      const dir = join(mkdtempSync(join(tmpdir(), 'op-gen-scaffold-node-')), 'demo');
      await initProject(
        { dir, domain: 'example.com', skipInstall: true },
        { stdout: new PassThrough(), stderr: new PassThrough() },
      );
      // The scaffold's own .npmrc and engines; its dependencies are dropped and a lockfile of the root
      // alone written, so npm ci needs no registry (a real project's lockfile comes from init's install).
      const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as Record<string, unknown>;
      delete pkg.dependencies;
      delete pkg.devDependencies;
      writeFileSync(join(dir, 'package.json'), JSON.stringify(pkg, null, 2));
      const lock = {
        name: pkg.name,
        version: pkg.version,
        lockfileVersion: 3,
        requires: true,
        packages: {
          '': { name: pkg.name, version: pkg.version, license: pkg.license, engines: pkg.engines },
        },
      };
      writeFileSync(join(dir, 'package-lock.json'), JSON.stringify(lock, null, 2));
      const r = spawnSync(old!, [npmCli, 'ci', '--ignore-scripts', '--no-audit', '--no-fund'], {
        encoding: 'utf8',
        cwd: dir,
      });
      assert.notEqual(r.status, 0);
      assert.match(r.stderr, /EBADENGINE/);
      assert.match(r.stderr, /npx -y -p node@24 -c 'npm ci'/);
      assert.equal(existsSync(join(dir, 'node_modules')), false, 'nothing installed');
      rmSync(dirname(dir), { recursive: true, force: true });
    },
  );
});
