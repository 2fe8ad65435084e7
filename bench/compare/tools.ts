import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { cpus, homedir, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';

export const ROOT = new URL('../..', import.meta.url).pathname;
export const CONTROLLER_GEN_VERSION = 'v0.23.0';
/** The controller-runtime the Go bench programs build against (their go.mod). */
export const CONTROLLER_RUNTIME_VERSION = 'v0.22.5';
export const RESULTS_DIR = join(ROOT, 'bench/results');
const cacheBin = join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'op-gen', 'bin');

export function hasGo(): boolean {
  const r = spawnSync('go', ['version'], { encoding: 'utf8' });
  return !r.error && r.status === 0;
}

/** controller-gen v0.23.0, built from Go modules into the cache on first use. Undefined without Go. */
export function controllerGen(): string | undefined {
  const bin = process.env.OP_GEN_CONTROLLER_GEN ?? join(cacheBin, 'controller-gen');
  if (existsSync(bin)) return bin;
  if (!hasGo()) return undefined;
  console.log(`building controller-gen ${CONTROLLER_GEN_VERSION} into ${cacheBin} (about a minute) ...`);
  const r = spawnSync(
    'go',
    ['install', `sigs.k8s.io/controller-tools/cmd/controller-gen@${CONTROLLER_GEN_VERSION}`],
    { stdio: 'inherit', env: { ...process.env, GOBIN: cacheBin } },
  );
  if (r.status !== 0) throw new Error('building controller-gen failed (see the Go output above)');
  return bin;
}

/**
 * The controller-runtime bench operator (bench/compare/go-operator), built on first use of its
 * sources (the binary's name carries a hash of them, so a changed operator is rebuilt).
 */
export function goOperator(): string | undefined {
  return goProgram('go-operator', 'the controller-runtime bench operator');
}

/**
 * A Go program of bench/compare/<dir>, built on first use of its sources into the bin cache (the
 * binary's name carries a hash of them, so a changed program is rebuilt). Undefined without Go.
 */
export function goProgram(dir: string, what: string): string | undefined {
  const src = join(ROOT, 'bench/compare', dir);
  const hash = createHash('sha256');
  // Files only: a program may hold another program's package in a folder (go-lookup/priority). The
  // BenchApp kind the operators share (go-benchapp, a local module) is part of every program's hash.
  for (const folder of [src, join(ROOT, 'bench/compare/go-benchapp')]) {
    const files = readdirSync(folder, { withFileTypes: true }).filter((e) => e.isFile());
    for (const f of files.map((e) => e.name).sort()) hash.update(f).update(readFileSync(join(folder, f)));
  }
  const bin = join(cacheBin, `op-gen-bench-${dir.replaceAll('/', '-')}-${hash.digest('hex').slice(0, 12)}`);
  if (existsSync(bin)) return bin;
  if (!hasGo()) return undefined;
  console.log(`building ${what} ...`);
  const r = spawnSync('go', ['build', '-o', bin, '.'], { cwd: src, stdio: 'inherit' });
  if (r.status !== 0) throw new Error(`building ${what} failed`);
  return bin;
}

/** The controller-runtime webhook server of `bench:webhook` (bench/compare/go-webhook), built on first use. */
export function goWebhook(): string | undefined {
  const bin = join(cacheBin, 'op-gen-bench-go-webhook');
  if (existsSync(bin)) return bin;
  if (!hasGo()) return undefined;
  console.log('building the controller-runtime bench webhook server ...');
  const r = spawnSync('go', ['build', '-o', bin, '.'], {
    cwd: join(ROOT, 'bench/compare/go-webhook'),
    stdio: 'inherit',
  });
  if (r.status !== 0) throw new Error('building the controller-runtime bench webhook server failed');
  return bin;
}

export interface Measured {
  readonly wallMs: number;
  readonly peakRssMb: number;
}

/** Runs a command to completion; wall time from spawn to exit, peak RSS from GNU time (%M). */
export function measure(
  cmd: string,
  args: readonly string[],
  cwd: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<Measured> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn('/usr/bin/time', ['-f', '%M', cmd, ...args], {
      cwd,
      env,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('exit', (code) => {
      const wallMs = performance.now() - started;
      if (code !== 0) {
        reject(new Error(`${cmd} ${args.join(' ')} exited ${code}:\n${stderr}`));
        return;
      }
      const kb = Number(stderr.trim().split('\n').at(-1));
      resolve({ wallMs, peakRssMb: kb / 1024 });
    });
  });
}

/**
 * Writes one bench run's results, `bench/results/<name>-<yyyy-mm-dd>.json` (`<yyyy-mm-dd>.json`
 * without a name: bench:compare's, the files charts.ts reads), as
 * `{ date, machine: { cpus, cpuModel, memoryGiB, ...machine }, ...payload }`, two-space JSON and a
 * final newline. `machine` adds to the machine block (bench:compare's load averages). Returns the path.
 */
export function writeBenchResult(
  name: string | undefined,
  payload: Readonly<Record<string, unknown>>,
  machine: Readonly<Record<string, unknown>> = {},
  dir = RESULTS_DIR,
): string {
  const date = new Date().toISOString();
  const file = join(dir, `${name ? `${name}-` : ''}${date.slice(0, 10)}.json`);
  const document = {
    date,
    machine: {
      cpus: cpus().length,
      cpuModel: cpus()[0]?.model,
      memoryGiB: Math.round(totalmem() / 2 ** 30),
      ...machine,
    },
    ...payload,
  };
  mkdirSync(dir, { recursive: true });
  writeFileSync(file, `${JSON.stringify(document, null, 2)}\n`);
  console.log(`\nresults written to ${file}`);
  return file;
}

/**
 * The Node flags the scaffolded manager starts with (templates/init/Dockerfile.hbs and the `start`
 * script; test/unit/bench/manager-node-flags.test.ts keeps them the same): the op-gen side of the
 * runtime benches runs as a user's operator does. OP_GEN_BENCH_NODE_ARGS replaces them.
 */
export const MANAGER_NODE_FLAGS: readonly string[] = ['--max-semi-space-size=1', '--no-opt', '--no-maglev'];

/** The Node flags of the op-gen bench operator: OP_GEN_BENCH_NODE_ARGS if set, else the scaffold's. */
export function benchNodeArgs(): string[] {
  const fromEnv = process.env.OP_GEN_BENCH_NODE_ARGS;
  if (fromEnv === undefined) return [...MANAGER_NODE_FLAGS];
  return fromEnv.split(' ').filter((a) => a !== '');
}

const operatorEntries = new Map<string, Promise<string>>();

/**
 * The entry that starts a bundled bench operator with Node's compile cache, as the scaffold's image
 * does (templates/init/Dockerfile.hbs: NODE_COMPILE_CACHE, filled by warm-compile-cache.mjs at image
 * build). The cache is turned on here rather than by NODE_COMPILE_CACHE so the callers' environment
 * (which other Node processes of a bench share) stays as it is; it is on before main.mjs compiles,
 * as with the variable.
 */
const COMPILE_CACHE_LAUNCHER = `const { enableCompileCache } = process.getBuiltinModule('node:module');
enableCompileCache(new URL('.node-compile-cache', import.meta.url).pathname);
await import('./main.mjs');
`;

/**
 * A bench operator (`file`, relative to the repository; default bench/compare/op-gen-operator.mjs) as a scaffolded project's
 * image runs it: bundled by `op-gen build` (src/image-bundle) into a temporary folder, once per process and
 * file, with Node's compile cache filled by the bundle's warm-compile-cache.mjs under the bench's Node
 * flags (what the image's Dockerfile does). OP_GEN_BENCH_COMPILE_CACHE=false runs main.mjs without
 * the cache; OP_GEN_BENCH_UNBUNDLED=1 runs the file on dist/ module by module instead (how the bench
 * ran before `op-gen build`).
 */
export function opGenOperatorEntry(file = 'bench/compare/op-gen-operator.mjs'): Promise<string> {
  const source = join(ROOT, file);
  if (process.env.OP_GEN_BENCH_UNBUNDLED === '1') return Promise.resolve(source);
  let entry = operatorEntries.get(file);
  if (!entry) {
    entry = (async () => {
      const { buildManager, COMPILE_CACHE_WARMER } = await import('../../src/image-bundle/index.ts');
      const out = mkdtempSync(join(tmpdir(), 'op-gen-bench-manager-'));
      // The bundle lives as long as this bench process (one temporary folder per run, not per operator).
      process.once('exit', () => rmSync(out, { recursive: true, force: true }));
      await buildManager({ cwd: ROOT, entry: source, out });
      if (process.env.OP_GEN_BENCH_COMPILE_CACHE === 'false') return join(out, 'main.mjs');
      writeFileSync(join(out, 'bench-main.mjs'), COMPILE_CACHE_LAUNCHER);
      const warm = spawnSync(process.execPath, [...benchNodeArgs(), COMPILE_CACHE_WARMER], {
        cwd: out,
        encoding: 'utf8',
        env: { ...process.env, NODE_COMPILE_CACHE: join(out, '.node-compile-cache') },
      });
      if (warm.status !== 0) throw new Error(`${COMPILE_CACHE_WARMER} failed: ${warm.stderr.trim()}`);
      return join(out, 'bench-main.mjs');
    })();
    operatorEntries.set(file, entry);
  }
  return entry;
}
