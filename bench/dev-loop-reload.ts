/**
 * Where `op-gen run`'s reload time goes: a scaffold (init + create api --example deployment, its
 * node_modules linked to this checkout) under `op-gen run` against the test control plane, saved
 * ROUNDS times in each of two ways: an API types file (a marker edit: generators, CRD apply, build)
 * and the controller (build only). Each reload prints its parts (docs/run.md); this prints their
 * medians. `npm run build` first; needs the envtest binaries (`npm run setup:envtest`).
 *
 *   node bench/dev-loop-reload.ts [rounds=5]
 */
import { spawn } from 'node:child_process';
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { createApi } from '../src/scaffold/create-api.ts';
import { initProject } from '../src/scaffold/init.ts';
import { startControlPlane } from '../src/testing/index.ts';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const ROUNDS = Number(process.argv[2] ?? 5);
const quiet = (): Writable => new Writable({ write: (_c, _e, done) => done() });

const work = mkdtempSync(join(tmpdir(), 'op-gen-reload-'));
const project = join(work, 'memcached-operator');
const cp = await startControlPlane();
let output = '';
const io = { stdout: quiet(), stderr: quiet() };
try {
  await initProject({ dir: project, domain: 'example.com', skipInstall: true, opGenPath: ROOT }, io);
  await createApi(
    {
      dir: project,
      group: 'cache',
      version: 'v1alpha1',
      kind: 'Memcached',
      example: 'deployment',
      skipGenerate: true,
    },
    io,
  );
  mkdirSync(join(project, 'node_modules'));
  for (const entry of readdirSync(join(ROOT, 'node_modules')))
    symlinkSync(join(ROOT, 'node_modules', entry), join(project, 'node_modules', entry));
  symlinkSync(ROOT, join(project, 'node_modules', 'op-gen'));

  const child = spawn(
    process.execPath,
    [join(ROOT, 'bin/op-gen.js'), 'run', '--', '--metrics-bind-address=0', '--health-probe-bind-address=0'],
    { cwd: project, env: { ...process.env, KUBECONFIG: cp.kubeconfigPath, CI: 'true' }, stdio: 'pipe' },
  );
  child.stdout.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr.on('data', (d: Buffer) => (output += d.toString()));
  const stop = async (): Promise<void> => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGINT'); // op-gen run stops the manager
    await new Promise((resolve) => child.once('exit', resolve));
  };
  process.once('exit', () => child.kill('SIGKILL'));
  const waitFor = async (pattern: RegExp, from: number): Promise<RegExpMatchArray> => {
    for (const deadline = Date.now() + 180_000; Date.now() < deadline; await sleep(50)) {
      const m = output.slice(from).match(pattern);
      if (m) return m;
    }
    await stop();
    throw new Error(`no ${pattern} within 180 s:\n${output}`);
  };
  await waitFor(/started the manager/, 0);

  const line =
    /restarted the manager \(pid \d+\) (\d+) ms after the change: waited (\d+), generate (\d+), build (\d+) \(CRDs (\d+) alongside\), stop (\d+) ms/;
  const edits: Record<string, { file: string; edit: (text: string, i: number) => string }> = {
    'API types (marker edit)': {
      file: join(project, 'src/api/cache/v1alpha1/memcached.ts'),
      edit: (text, i) => text.replace(/@maximum \d+\n/, `@maximum ${20 + i}\n`),
    },
    'controller (code edit)': {
      file: join(project, 'src/controllers/memcached.controller.ts'),
      edit: (text, i) =>
        text.replace(/const RECHECK_AFTER_MS = [\d_]+;/, `const RECHECK_AFTER_MS = ${60_000 + i};`),
    },
  };
  const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;
  const loads: number[] = [];
  for (const [name, { file, edit }] of Object.entries(edits)) {
    const parts: number[][] = [];
    for (let i = 1; i <= ROUNDS; i++) {
      const mark = output.length;
      writeFileSync(file, edit(readFileSync(file, 'utf8'), i));
      const m = await waitFor(line, mark);
      parts.push(m.slice(1, 7).map(Number));
      loads.push(loadavg()[0] ?? 0);
      await sleep(1_000); // the new manager's start, before the next save
    }
    const names = ['total', 'waited', 'generate', 'build', 'crds (alongside)', 'stop'];
    console.log(
      `${name}, median of ${ROUNDS}: ${names.map((n, k) => `${n} ${median(parts.map((p) => p[k] ?? NaN))}`).join(', ')} ms`,
    );
    console.log(`  all: ${parts.map((p) => p[0]).join(', ')} ms`);
  }
  console.log(
    `load average (1 min) during the runs: ${Math.min(...loads).toFixed(1)}-${Math.max(...loads).toFixed(1)}`,
  );
  await stop();
} finally {
  await cp.stop();
  rmSync(work, { recursive: true, force: true });
}
