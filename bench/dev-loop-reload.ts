/**
 * Where `op-gen run`'s reload time goes: a scaffold (init + create api --example deployment, its
 * node_modules linked to this checkout) under `op-gen run` against the test control plane, saved
 * ROUNDS times in each of two ways: an API types file (a marker edit: generators, CRD apply, build)
 * and the controller (build only). Each reload prints its parts (docs/run.md); this prints their
 * medians. `npm run build` first; needs the envtest binaries (`npm run setup:envtest`).
 *
 * With `webhooks`, the kind gets `create webhook --defaulting --programmatic-validation` first, so
 * op-gen run serves them (docs/run.md "Webhooks"), and each save is also timed until the restarted
 * manager answers the API server's admission calls: `served` is from the save to the first create
 * (dry run) the API server admits through the new manager's webhooks (while no manager listens, the
 * API server refuses it: failurePolicy Fail).
 *
 *   node bench/dev-loop-reload.ts [rounds=5] [webhooks]
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
import { main as opGen } from '../src/cli/main.ts';
import { defineKind } from '../src/client/kind.ts';
import { ResourceClient, type ObjectLike } from '../src/client/resource-client.ts';
import { Transport } from '../src/client/transport.ts';
import { createApi } from '../src/scaffold/create-api.ts';
import { initProject } from '../src/scaffold/init.ts';
import { startControlPlane } from '../src/testing/index.ts';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const ROUNDS = Number(process.argv[2] ?? 5);
const WEBHOOKS = process.argv[3] === 'webhooks';
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
  if (WEBHOOKS) {
    for (const argv of [
      ['generate', 'crd'],
      ['create', 'webhook', '--group', 'cache', '--version', 'v1alpha1', '--kind', 'Memcached'],
    ]) {
      const args = argv[0] === 'create' ? [...argv, '--defaulting', '--programmatic-validation'] : argv;
      if ((await opGen(args, { ...io, cwd: project })) !== 0)
        throw new Error(`op-gen ${args.join(' ')} failed`);
    }
  }
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
  const transport = await Transport.fromKubeConfig(cp.kubeConfig);
  const memcacheds = new ResourceClient<ObjectLike>(
    transport,
    defineKind<ObjectLike>({
      group: 'cache.example.com',
      version: 'v1alpha1',
      kind: 'Memcached',
      plural: 'memcacheds',
      namespaced: true,
    }),
  );
  /** Resolves once the API server admits a create through the webhooks (dry run). */
  const admitted = async (): Promise<void> => {
    for (const deadline = Date.now() + 60_000; Date.now() < deadline; await sleep(10)) {
      try {
        await memcacheds.create(
          {
            metadata: { generateName: 'probe-', namespace: 'default' },
            spec: { size: 1, image: 'registry.k8s.io/pause:3.10' },
          } as ObjectLike,
          { dryRun: 'All' },
        );
        return;
      } catch {
        // the manager is not serving yet
      }
    }
    throw new Error('the webhooks were not served within 60 s');
  };
  if (WEBHOOKS) await admitted();

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
    const served: number[] = [];
    const managerStart: number[] = [];
    const toListen: number[] = [];
    for (let i = 1; i <= ROUNDS; i++) {
      const mark = output.length;
      const savedAt = Date.now();
      writeFileSync(file, edit(readFileSync(file, 'utf8'), i));
      const m = await waitFor(line, mark);
      // The old manager is stopped before the line: whatever admits now is the new one.
      if (WEBHOOKS) {
        const lineAt = Date.now();
        await admitted();
        served.push(Date.now() - savedAt);
        managerStart.push(Date.now() - lineAt);
        // The manager's own log line (its timestamp) when its webhook server listens.
        const listening = output
          .slice(mark)
          .split('\n')
          .find((l) => l.includes('"serving webhooks"'));
        const ts = listening ? Date.parse((JSON.parse(listening) as { ts: string }).ts) : NaN;
        toListen.push(ts - lineAt);
      }
      parts.push(m.slice(1, 7).map(Number));
      loads.push(loadavg()[0] ?? 0);
      await sleep(1_000); // the new manager's start, before the next save
    }
    const names = ['total', 'waited', 'generate', 'build', 'crds (alongside)', 'stop'];
    console.log(
      `${name}, median of ${ROUNDS}: ${names.map((n, k) => `${n} ${median(parts.map((p) => p[k] ?? NaN))}`).join(', ')} ms`,
    );
    console.log(`  all: ${parts.map((p) => p[0]).join(', ')} ms`);
    if (WEBHOOKS)
      console.log(
        `  served (save to the first create admitted through the new manager's webhooks): median ${median(served)} ms; all: ${served.join(', ')} ms; of which from the restart line to the first admission (the new manager's start): median ${median(managerStart)} ms, to its 'serving webhooks' log line: median ${median(toListen)} ms`,
      );
  }
  console.log(
    `load average (1 min) during the runs: ${Math.min(...loads).toFixed(1)}-${Math.max(...loads).toFixed(1)}`,
  );
  transport.close();
  await stop();
} finally {
  await cp.stop();
  rmSync(work, { recursive: true, force: true });
}
