/**
 * Runtime side by side: the controller-runtime v0.22 operator (go-operator/) and the op-gen operator
 * (op-gen-operator.mjs on the built dist/, bundled by `op-gen build` as a scaffolded image is) do the same work for BenchApp. For each worker count and run, against a fresh control
 * plane: create N BenchApps at once (same client, same concurrency), time until all report Ready, sample
 * the operator's peak RSS. Run alone: `node bench/compare/runtime-compare.ts [--objects 2000] [--runs 3]`.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { CoreV1Api, type KubeConfig } from '@kubernetes/client-node';
import { defineKind, Transport, type ObjectLike } from '../../src/client/index.ts';
import { installCrd, startControlPlane } from '../../src/testing/index.ts';
import { waitForApiServerSettled } from './api-server-settle.ts';
import { cpuSeconds, peakRssMb, summarize, type Summary } from './peak-rss.ts';
import { BENCH_GROUP, BENCH_PLURAL, BENCH_VERSION, createBenchApps, watchAllReady } from './runtime-load.ts';
import { benchNodeArgs, goOperator, opGenOperatorEntry, ROOT } from './tools.ts';

export type Side = 'op-gen' | 'controller-runtime';

export interface RuntimeRun {
  readonly side: Side;
  readonly workers: number;
  readonly allReadyMs: number;
  /**
   * When the last create returned, from the start: the part of allReadyMs the load generator itself
   * took (to tell a slow run's cause: the server slowing every client, or the operator).
   */
  readonly createdMs: number;
  readonly objectsPerSecond: number;
  readonly peakRssMb: number;
  /** CPU time (user + system) the operator used from its start until all were Ready. */
  readonly cpuSeconds?: number;
  /** Reconciles by result and V8 heap space sizes (MB) at exit, as the op-gen operator reports them. */
  readonly reconciles?: Record<string, unknown>;
}

export interface RuntimeComparison {
  readonly objects: number;
  readonly runs: readonly RuntimeRun[];
  readonly summary: readonly {
    readonly workers: number;
    readonly opGen: {
      readonly allReadyMs: Summary;
      readonly createdMs: Summary;
      readonly peakRssMb: Summary;
      readonly cpuSeconds: Summary;
    };
    readonly controllerRuntime?: {
      readonly allReadyMs: Summary;
      readonly createdMs: Summary;
      readonly peakRssMb: Summary;
      readonly cpuSeconds: Summary;
    };
    readonly timeRatio?: number;
    readonly rssRatio?: number;
    readonly cpuRatio?: number;
  }[];
  readonly note?: string;
}

export const CREATE_CONCURRENCY = 32;

async function operatorCommand(side: Side, workers: number): Promise<{ cmd: string; args: string[] }> {
  if (side === 'controller-runtime') {
    const bin = goOperator();
    if (!bin) throw new Error('no Go toolchain');
    return { cmd: bin, args: [`--workers=${workers}`] };
  }
  const nodeArgs = benchNodeArgs();
  return {
    cmd: process.execPath,
    args: [...nodeArgs, await opGenOperatorEntry(), `--workers=${workers}`],
  };
}

/**
 * Installs the BenchApp CRD (raw JSON: its enum survives), waits until it is served and then until the
 * API server has finished the background work the CRD set off (api-server-settle.ts); `settleMs` < 0
 * skips that second wait.
 */
export async function installBenchCrd(kc: KubeConfig, settleMs?: number): Promise<void> {
  const transport = await Transport.fromKubeConfig(kc);
  try {
    await installCrd(
      transport,
      readFileSync(join(ROOT, 'bench/compare/benchapp-crd.yaml'), 'utf8'),
      BenchAppKind,
    );
  } finally {
    transport.close();
  }
  if (settleMs === undefined || settleMs >= 0) {
    await waitForApiServerSettled(kc, `${BENCH_GROUP}/${BENCH_VERSION}`, settleMs);
  }
}

export const BENCH_NAMESPACE = 'bench';

/** How long the operator gets to sync its (empty) caches before the load starts. */
export const OPERATOR_SYNC_MS = 1500;

/** The BenchApp CRD installed and settled, and the namespace the load goes to. */
export async function prepareBenchNamespace(kc: KubeConfig, settleMs?: number): Promise<void> {
  await installBenchCrd(kc, settleMs);
  await kc.makeApiClient(CoreV1Api).createNamespace({ body: { metadata: { name: BENCH_NAMESPACE } } });
}

/**
 * The load generator alone (no operator): ms to create `objects` BenchApps on a fresh control plane, per
 * run. Tells whether the bench's own phase is steady before an operator is blamed for a slow run.
 */
export async function loadOnly(objects: number, runs: number, settleMs?: number): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const cp = await startControlPlane();
    try {
      await prepareBenchNamespace(cp.kubeConfig, settleMs);
      await sleep(OPERATOR_SYNC_MS);
      const started = performance.now();
      await createBenchApps(cp.kubeConfig, BENCH_NAMESPACE, objects, CREATE_CONCURRENCY);
      times.push(performance.now() - started);
      console.log(`load only, run ${i + 1}: created ${objects} in ${times.at(-1)!.toFixed(0)} ms`);
    } finally {
      await cp.stop();
    }
  }
  return times;
}

const BenchAppKind = defineKind<ObjectLike>({
  group: BENCH_GROUP,
  version: BENCH_VERSION,
  kind: 'BenchApp',
  plural: BENCH_PLURAL,
  namespaced: true,
});

export async function runOnce(side: Side, workers: number, objects: number): Promise<RuntimeRun> {
  const cp = await startControlPlane();
  let operator: ChildProcess | undefined;
  try {
    await prepareBenchNamespace(cp.kubeConfig);
    const namespace = BENCH_NAMESPACE;
    const { cmd, args } = await operatorCommand(side, workers);
    operator = spawn(cmd, args, {
      env: { ...process.env, KUBECONFIG: cp.kubeconfigPath },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    operator.stdout?.on('data', (d: Buffer) => (stdout += d.toString()));
    let stderr = '';
    operator.stderr?.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-4000)));
    const pid = operator.pid!;
    let peak = 0;
    const sampler = setInterval(() => (peak = Math.max(peak, peakRssMb(pid) ?? 0)), 100);
    // Let the operator sync its (empty) caches before the load starts, as a deployed operator would be.
    await sleep(OPERATOR_SYNC_MS);
    if (operator.exitCode !== null) throw new Error(`${side} operator exited early:\n${stderr}`);
    const watcher = await watchAllReady(cp.kubeConfig, namespace, objects, 600_000);
    const started = performance.now();
    await createBenchApps(cp.kubeConfig, namespace, objects, CREATE_CONCURRENCY);
    const createdMs = performance.now() - started;
    const doneAt = await watcher.done.finally(() => watcher.abort());
    clearInterval(sampler);
    peak = Math.max(peak, peakRssMb(pid) ?? 0);
    const allReadyMs = doneAt - started;
    const cpu = cpuSeconds(pid);
    operator.kill('SIGTERM');
    if (operator.exitCode === null) await new Promise((r) => operator!.once('exit', r));
    const counts = /\{"reconciles".*\}/.exec(stdout)?.[0];
    return {
      side,
      workers,
      allReadyMs,
      createdMs,
      objectsPerSecond: objects / (allReadyMs / 1000),
      peakRssMb: peak,
      ...(cpu === undefined ? {} : { cpuSeconds: cpu }),
      ...(counts ? { reconciles: JSON.parse(counts) as Record<string, unknown> } : {}),
    };
  } finally {
    operator?.kill('SIGTERM');
    if (operator && operator.exitCode === null) await new Promise((r) => operator!.once('exit', r));
    await cp.stop();
  }
}

export async function compareRuntimes(options: {
  objects: number;
  runs: number;
  workers: readonly number[];
}): Promise<RuntimeComparison> {
  const haveGo = goOperator() !== undefined;
  const runs: RuntimeRun[] = [];
  for (const workers of options.workers) {
    for (let i = 0; i < options.runs; i++) {
      // Alternate sides so drift on this noisy machine hits both alike, and the side that goes first
      // alternates by round (the first run after a change of worker count is not always op-gen's).
      const order: Side[] = !haveGo
        ? ['op-gen']
        : i % 2 === 0
          ? ['op-gen', 'controller-runtime']
          : ['controller-runtime', 'op-gen'];
      for (const side of order) runs.push(await runOnce(side, workers, options.objects));
    }
  }
  const summary = options.workers.map((workers) => {
    const pick = (side: Side) => runs.filter((r) => r.side === side && r.workers === workers);
    const stats = (rs: RuntimeRun[]) => ({
      allReadyMs: summarize(rs.map((r) => r.allReadyMs)),
      createdMs: summarize(rs.map((r) => r.createdMs)),
      peakRssMb: summarize(rs.map((r) => r.peakRssMb)),
      cpuSeconds: summarize(rs.map((r) => r.cpuSeconds ?? Number.NaN)),
    });
    const opGen = stats(pick('op-gen'));
    if (!haveGo) return { workers, opGen };
    const controllerRuntime = stats(pick('controller-runtime'));
    return {
      workers,
      opGen,
      controllerRuntime,
      timeRatio: opGen.allReadyMs.median / controllerRuntime.allReadyMs.median,
      rssRatio: opGen.peakRssMb.median / controllerRuntime.peakRssMb.median,
      cpuRatio: opGen.cpuSeconds.median / controllerRuntime.cpuSeconds.median,
    };
  });
  return {
    objects: options.objects,
    runs,
    summary,
    ...(haveGo
      ? {}
      : { note: 'Go toolchain missing: controller-runtime was not run; no ratio is reported.' }),
  };
}

export function printRuntimeComparison(r: RuntimeComparison): void {
  console.log(
    `\nRuntime: ${r.objects} BenchApps created at once, time until all Ready; fresh control plane per run`,
  );
  console.log(
    'workers  side                 all-Ready ms (min/median/max)   last create ms (median)   objects/s (median)   peak RSS MB (median)   CPU s (median)',
  );
  for (const s of r.summary) {
    const row = (
      name: string,
      st: { allReadyMs: Summary; createdMs?: Summary; peakRssMb: Summary; cpuSeconds?: Summary },
    ) =>
      console.log(
        `${String(s.workers).padEnd(9)}${name.padEnd(21)}${`${st.allReadyMs.min.toFixed(0)} / ${st.allReadyMs.median.toFixed(0)} / ${st.allReadyMs.max.toFixed(0)}`.padEnd(32)}${(st.createdMs?.median.toFixed(0) ?? '–').padEnd(26)}${(r.objects / (st.allReadyMs.median / 1000)).toFixed(0).padEnd(21)}${st.peakRssMb.median.toFixed(0).padEnd(23)}${st.cpuSeconds?.median.toFixed(1) ?? '–'}`,
      );
    row('op-gen', s.opGen);
    if (s.controllerRuntime) {
      row('controller-runtime', s.controllerRuntime);
      console.log(
        `         ratio of medians     time ${s.timeRatio!.toFixed(2)} (target ≤ 1.00, issue #20)   RSS ${s.rssRatio!.toFixed(2)} (target ≤ 1.20)   CPU ${s.cpuRatio?.toFixed(2) ?? '–'}`,
      );
    }
  }
  if (r.note) console.log(r.note);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({
    options: {
      objects: { type: 'string', default: '2000' },
      runs: { type: 'string', default: '3' },
      workers: { type: 'string', default: '1,4' },
      'load-only': { type: 'boolean', default: false },
      'settle-ms': { type: 'string' },
    },
  });
  const settleMs = values['settle-ms'] === undefined ? undefined : Number(values['settle-ms']);
  if (values['load-only']) {
    const times = await loadOnly(Number(values.objects), Number(values.runs), settleMs);
    const s = summarize(times);
    console.log(
      `load only: min/median/max ${s.min.toFixed(0)} / ${s.median.toFixed(0)} / ${s.max.toFixed(0)} ms`,
    );
    process.exit(0);
  }
  const result = await compareRuntimes({
    objects: Number(values.objects),
    runs: Number(values.runs),
    workers: values.workers.split(',').map(Number),
  });
  printRuntimeComparison(result);
}
