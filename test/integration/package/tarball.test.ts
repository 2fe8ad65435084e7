import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

/**
 * The npm package as users get it: `npm pack` into a temporary directory outside the checkout, then,
 * in an empty directory, `npm install ./op-gen-<v>.tgz`, `npx op-gen --version`, `npx op-gen init`
 * with the new project depending on that same tarball (`--op-gen-path <tgz>`), and in the project
 * `create api`, `npm run generate`, `npm test` and `npm run build`: on the Node running the suite
 * (24) and on the oldest Node op-gen supports (22.19, from the npm registry like the README's Node 24).
 * Every install comes from the npm registry/cache (prefer-offline), nothing from the checkout.
 * The tarball is packed from the dist/ `npm test` just built (--ignore-scripts: the real prepack
 * rebuilds dist/, which the suite's other files are using); test/unit/package checks that prepack builds.
 */

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const VERSION = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;

interface Ran {
  readonly code: number;
  readonly output: string;
}

function run(cmd: string, args: readonly string[], cwd: string, path: string): Promise<Ran> {
  // node:test marks its child processes (a nested `node --test`, the project's own tests, would report
  // to this runner); under `npx -p node@24 -c '...'` npm exports npm_config_call, which a nested npx
  // would take as its own. Neither is passed on.
  const { NODE_TEST_CONTEXT: _nested, npm_config_call: _outerCall, ...parentEnv } = process.env;
  return new Promise((resolveRun, reject) => {
    const child = spawn(cmd, args, {
      cwd,
      env: {
        ...parentEnv,
        PATH: path,
        npm_config_prefer_offline: 'true',
        npm_config_audit: 'false',
        npm_config_fund: 'false',
        npm_config_update_notifier: 'false',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolveRun({ code: code ?? 1, output }));
  });
}

async function step(cmd: string, args: readonly string[], cwd: string, path: string): Promise<string> {
  const ran = await run(cmd, args, cwd, path);
  const tail = ran.output.trimEnd().split('\n').slice(-40).join('\n');
  assert.equal(ran.code, 0, `\`${cmd} ${args.join(' ')}\` exited ${ran.code} in ${cwd}:\n${tail}`);
  return ran.output;
}

/** Where a Node from the npm registry keeps its `node` (`npx -y -p node@<v>`, cached after the first run). */
async function registryNodeBin(version: string, cwd: string): Promise<string> {
  const out = await step(
    'npx',
    ['-y', '-p', `node@${version}`, '-c', 'command -v node'],
    cwd,
    process.env.PATH ?? '',
  );
  const node = out.trim().split('\n').at(-1) ?? '';
  assert.ok(existsSync(node), `npx -p node@${version} printed no node binary:\n${out}`);
  return dirname(node);
}

describe('the npm package, installed from its tarball', { timeout: 600_000 }, () => {
  const work = mkdtempSync(join(tmpdir(), 'op-gen-tarball-'));
  let tarball = '';

  before(async () => {
    assert.ok(
      existsSync(join(ROOT, 'dist/cli/main.js')),
      'op-gen is not built: run `npm run build` first (npm test does)',
    );
    const packDir = join(work, 'pack');
    mkdirSync(packDir);
    await step(
      'npm',
      ['pack', ROOT, '--pack-destination', packDir, '--ignore-scripts', '--silent'],
      work,
      process.env.PATH ?? '',
    );
    tarball = join(packDir, `op-gen-${VERSION}.tgz`);
    assert.ok(existsSync(tarball), `npm pack wrote ${readdirSync(packDir).join(', ')}, not ${tarball}`);
  });

  // Four node_modules trees: deleting them took 74 s on a loaded 2-core machine, longer than the
  // installs. `rm -rf` runs on after the file ends instead of holding up the suite.
  after(() => {
    if (process.env.OP_GEN_KEEP_TARBALL) console.log(`# kept ${work}`);
    else spawn('rm', ['-rf', work], { detached: true, stdio: 'ignore' }).unref();
  });

  const nodes: { label: string; bin: () => Promise<string> }[] = [
    { label: `Node ${process.versions.node} (the suite's)`, bin: async () => dirname(process.execPath) },
    { label: 'Node 22.19 (the oldest supported)', bin: () => registryNodeBin('22.19', work) },
  ];

  for (const [i, node] of nodes.entries()) {
    it(`npm install <tarball>, npx op-gen init, create api, generate, test and build on ${node.label}`, async () => {
      const started = Date.now();
      const path = `${await node.bin()}${delimiter}${process.env.PATH ?? ''}`;
      const versionOut = await step('node', ['--version'], work, path);
      console.log(`# ${node.label}: node ${versionOut.trim()}`);

      const user = join(work, `user-${i}`);
      mkdirSync(user);
      await step('npm', ['install', tarball], user, path);
      const installed = join(user, 'node_modules/op-gen');
      assert.ok(!lstatSync(installed).isSymbolicLink(), 'op-gen is installed from the tarball, not linked');
      assert.ok(existsSync(join(installed, 'LICENSE')), 'the installed package has its LICENSE');

      assert.equal((await step('npx', ['op-gen', '--version'], user, path)).trim(), VERSION);
      assert.match(await step('npx', ['op-gen', '--help'], user, path), /Usage: op-gen/);

      await step(
        'npx',
        ['op-gen', 'init', 'demo', '--domain', 'example.com', '--op-gen-path', tarball],
        user,
        path,
      );
      const project = join(user, 'demo');
      const pkg = JSON.parse(readFileSync(join(project, 'package.json'), 'utf8')) as {
        dependencies: Record<string, string>;
      };
      assert.equal(pkg.dependencies['op-gen'], `file:${tarball}`);
      assert.ok(
        !lstatSync(join(project, 'node_modules/op-gen')).isSymbolicLink(),
        "the project's op-gen is the tarball's content, not a link to a checkout",
      );

      await step(
        'npx',
        ['op-gen', 'create', 'api', '--group', 'cache', '--version', 'v1alpha1', '--kind', 'Memcached'],
        project,
        path,
      );
      await step('npm', ['run', 'generate'], project, path);
      assert.ok(existsSync(join(project, 'config/crd/bases/cache.example.com_memcacheds.yaml')));
      const tests = await step('npm', ['test'], project, path);
      assert.match(tests, /# fail 0|ℹ fail 0/);
      await step('npm', ['run', 'build'], project, path);
      assert.ok(existsSync(join(project, 'dist/main.js')), 'npm run build wrote dist/main.js');
      console.log(`# ${node.label}: ${((Date.now() - started) / 1000).toFixed(1)} s`);
    });
  }
});
