/**
 * Dependents side by side (issue 40): a 4-dependent workflow declared with op-gen/runtime's dependents
 * (op-gen-dependents-operator.mjs: ConfigMap and Secret, a Deployment depending on both, a Service
 * depending on the Deployment, five conditions on the parent) against the same operator written by
 * hand in controller-runtime v0.22 (go-dependents/main.go: CreateOrUpdate per child, the same
 * conditions), on the real API server (op-gen/testing's control plane), a fresh one per run, sides
 * alternating (the first side alternates by round).
 *
 * Per run: the operator starts and syncs; N BenchApps are created at once; time until all report
 * Ready, the operator's CPU time, the requests it sent until then and until it is quiet (work queue
 * empty, no reconcile for 2 s). Then the steady pass: the operator is stopped and started again with
 * nothing changed (its first list reconciles every parent once); its requests until quiet, its CPU
 * time and how long it took. Requests are counted on the API server, the same way for both sides: its
 * `apiserver_request_total` (from its /metrics) before and after, for the bench's resources
 * (configmaps, secrets, deployments, services, benchapps, and the events both operators record: a
 * Normal Created/Updated event per child written; the load generator's creates of BenchApps left
 * out), by verb. Watches are left out (the API server counts a watch when it ends).
 *
 * With --go-apply the controller-runtime operator writes its children by server-side apply on every
 * reconcile, as op-gen does (go-dependents --apply), instead of CreateOrUpdate: the API server's cost
 * of an apply apart from the runtimes'; results then in dependents-go-apply-<date>.json.
 *
 * `node bench/compare/dependents-compare.ts [--parents 2000] [--runs 3] [--workers 4] [--go-apply]` (also
 * `npm run bench:dependents`, and `npm run bench:compare -- --dependents`): results in
 * bench/results/dependents-<date>.json.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { loadavg } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import type { KubeConfig } from '@kubernetes/client-node';
import { Transport } from '../../src/client/index.ts';
import { freePort } from '../../src/testing/free-port.ts';
import { startControlPlane } from '../../src/testing/index.ts';
import {
  apiServerRequests,
  metricSum,
  requestsBetween,
  WRITE_VERBS,
} from '../../test/helpers/prometheus-text.ts';
import { cpuSeconds, summarize, type Summary } from './peak-rss.ts';
import {
  BENCH_NAMESPACE,
  CREATE_CONCURRENCY,
  OPERATOR_SYNC_MS,
  prepareBenchNamespace,
  type Side,
} from './runtime-compare.ts';
import { createBenchApps, watchAllReady } from './runtime-load.ts';
import {
  benchNodeArgs,
  CONTROLLER_RUNTIME_VERSION,
  goProgram,
  opGenOperatorEntry,
  writeBenchResult,
} from './tools.ts';

/** The resources of the bench (apiserver_request_total's `resource` label). */
const RESOURCES = new Set(['configmaps', 'secrets', 'deployments', 'services', 'benchapps', 'events']);

/** Requests by `<VERB> <resource>[/<subresource>]`, writes and GET/LIST counted apart. */
export type Requests = ReturnType<typeof requestsBetween>;

export interface DependentsRun {
  readonly side: Side;
  readonly round: number;
  readonly allReadyMs: number;
  /** When the last create of the load generator returned, from the start. */
  readonly createdMs: number;
  readonly cpuSecondsToReady: number;
  /** Until quiet: the work queue empty and no reconcile for 2 s. */
  readonly cpuSecondsToQuiet: number;
  readonly requestsToReady: Requests;
  readonly requestsToQuiet: Requests;
  readonly reconcilesToQuiet: number;
  readonly reconcileErrorsToQuiet: number;
  /** Mean wall time of one reconcile (controller_runtime_reconcile_time_seconds sum / count). */
  readonly meanReconcileMs: number;
  /**
   * Mean time the API server took to serve one of the operator's requests until quiet, by request
   * (apiserver_request_duration_seconds sum / count), in ms.
   */
  readonly serverMsPerRequest: Record<string, number>;
  /**
   * kube-apiserver's own CPU time (/proc) from the first create until quiet: what the operator's
   * requests (and the watches they fan out to) cost the server. serverMsPerRequest is wall time, which
   * grows with the requests in flight and the machine's load at an unchanged cost.
   */
  readonly apiServerCpuSecondsToQuiet: number;
  /** The operator's requests in flight on the server, on average until quiet (server seconds / wall seconds). */
  readonly meanInFlightToQuiet: number;
  /** The operator restarted with nothing changed: every parent reconciled once more. */
  readonly steady: {
    /** From the start of the new process until every parent was reconciled and the queue was empty. */
    readonly ms: number;
    /** The new process's CPU time until quiet (its start-up and cache sync included). */
    readonly cpuSeconds: number;
    readonly requests: Requests;
    readonly reconciles: number;
  };
}

export interface DependentsComparison {
  readonly parents: number;
  readonly workers: number;
  /** How the controller-runtime operator writes its children. */
  readonly controllerRuntimeWrites: 'CreateOrUpdate' | 'server-side apply';
  readonly runs: readonly DependentsRun[];
  readonly summary?: {
    readonly opGen: SideSummary;
    readonly controllerRuntime: SideSummary;
    /** op-gen / controller-runtime, ratios of medians. */
    readonly ratios: Readonly<Record<keyof SideSummary, number>>;
  };
  readonly note?: string;
}

interface SideSummary {
  readonly allReadyMs: Summary;
  readonly cpuSecondsToReady: Summary;
  readonly cpuSecondsToQuiet: Summary;
  readonly writesToQuiet: Summary;
  readonly readsToQuiet: Summary;
  readonly steadyMs: Summary;
  readonly steadyCpuSeconds: Summary;
  readonly steadyWrites: Summary;
}

function goDependents(): string | undefined {
  return goProgram('go-dependents', 'the controller-runtime dependents bench operator');
}

/** Which of the API server's requests are the operator's (see the header). */
const operatorRequest = ({
  verb,
  resource,
  subresource,
}: {
  verb: string;
  resource: string;
  subresource: string;
}) =>
  RESOURCES.has(resource) &&
  (WRITE_VERBS.has(verb) || verb === 'GET' || verb === 'LIST') &&
  // The load generator's creates.
  !(verb === 'POST' && resource === 'benchapps' && subresource === '');

/** The API server's request counters for the bench's resources. */
function apiServerCounts(transport: Transport): Promise<Record<string, number>> {
  return apiServerRequests(transport, operatorRequest);
}

/** The seconds the API server spent serving them, by request (apiserver_request_duration_seconds). */
function apiServerSeconds(transport: Transport): Promise<Record<string, number>> {
  return apiServerRequests(transport, operatorRequest, 'apiserver_request_duration_seconds_sum');
}

interface Operator {
  readonly process: ChildProcess;
  readonly port: number;
  stderrTail(): string;
  stop(): Promise<void>;
}

async function startOperator(
  side: Side,
  workers: number,
  kubeconfigPath: string,
  goApply: boolean,
): Promise<Operator> {
  const port = await freePort();
  const flags = [`--workers=${workers}`, `--metrics-bind-address=127.0.0.1:${port}`];
  let cmd: string;
  let args: string[];
  if (side === 'controller-runtime') {
    const bin = goDependents();
    if (!bin) throw new Error('no Go toolchain');
    cmd = bin;
    args = goApply ? [...flags, '--apply'] : flags;
  } else {
    cmd = process.execPath;
    args = [
      ...benchNodeArgs(),
      await opGenOperatorEntry('bench/compare/op-gen-dependents-operator.mjs'),
      ...flags,
    ];
  }
  const child = spawn(cmd, args, {
    env: { ...process.env, KUBECONFIG: kubeconfigPath },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-4000)));
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  const operator: Operator = {
    process: child,
    port,
    stderrTail: () => stderr,
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
      await exited;
      clearTimeout(timer);
    },
  };
  const deadline = Date.now() + 60_000;
  while ((await metricSum(port, 'controller_runtime_reconcile_total')) === undefined) {
    if (child.exitCode !== null) throw new Error(`${side} operator exited early:\n${stderr}`);
    if (Date.now() > deadline) throw new Error(`${side} operator served no /metrics in 60 s:\n${stderr}`);
    await sleep(100);
  }
  return operator;
}

/**
 * Waits until the operator has reconciled at least `atLeast` times, its work queue is empty and its
 * reconcile count has not moved for 2 s; returns when the count last moved (performance.now()).
 */
async function waitQuiet(op: Operator, atLeast: number, timeoutMs = 600_000): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  let last = -1;
  let lastChange = performance.now();
  let still = 0;
  for (;;) {
    if (op.process.exitCode !== null) throw new Error(`operator exited:\n${op.stderrTail()}`);
    const total = (await metricSum(op.port, 'controller_runtime_reconcile_total')) ?? -1;
    const depth = (await metricSum(op.port, 'workqueue_depth')) ?? -1;
    if (total !== last) {
      last = total;
      lastChange = performance.now();
      still = 0;
    } else if (total >= atLeast && depth === 0 && ++still >= 4) return lastChange;
    if (Date.now() > deadline)
      throw new Error(`not quiet after ${timeoutMs} ms (${total} reconciles, depth ${depth})`);
    await sleep(500);
  }
}

/** How long all parents may take to be Ready before the run fails (OP_GEN_BENCH_READY_TIMEOUT_MS). */
const readyTimeoutMs = Number(process.env.OP_GEN_BENCH_READY_TIMEOUT_MS ?? 900_000);

/** What a run that did not converge left: the operator's counts and the parents not Ready. */
async function diagnose(op: Operator, transport: Transport): Promise<string> {
  const metric = (name: string) => metricSum(op.port, name);
  const list = await transport.request<{
    items: {
      metadata: { name: string };
      status?: { conditions?: { type: string; status: string; reason?: string }[] };
    }[];
  }>({ method: 'GET', path: `/apis/bench.op-gen.dev/v1/namespaces/${BENCH_NAMESPACE}/benchapps` });
  const notReady = list.items.filter(
    (a) => !a.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'),
  );
  return [
    `operator: ${await metric('controller_runtime_reconcile_total')} reconciles, ${await metric('controller_runtime_reconcile_errors_total')} errors, queue depth ${await metric('workqueue_depth')}`,
    `${notReady.length} of ${list.items.length} not Ready, e.g. ${JSON.stringify(notReady.slice(0, 3))}`,
    `stderr: ${op.stderrTail().slice(-1500)}`,
  ].join('\n');
}

/** A progress line on stderr (a run at 2,000 parents takes minutes on a loaded machine). */
function progress(side: Side, what: string): void {
  process.stderr.write(`  ${new Date().toISOString().slice(11, 19)} ${side}: ${what}\n`);
}

async function runOnce(
  side: Side,
  round: number,
  parents: number,
  workers: number,
  goApply: boolean,
): Promise<DependentsRun> {
  // One ClusterIP per Service: the control plane's default range (a /24) holds 254, the bench needs
  // one per parent (the 255th Service apply answers 500: the range is full).
  const cp = await startControlPlane({ apiServerFlags: ['--service-cluster-ip-range=10.0.0.0/16'] });
  const transport = await Transport.fromKubeConfig(cp.kubeConfig as KubeConfig, {
    userAgent: 'bench-metrics',
  });
  const operators: Operator[] = [];
  try {
    await prepareBenchNamespace(cp.kubeConfig);
    const op = await startOperator(side, workers, cp.kubeconfigPath, goApply);
    operators.push(op);
    progress(side, 'operator started');
    // Let the operator sync its (empty) caches before the load starts, as a deployed operator would be.
    await sleep(OPERATOR_SYNC_MS);
    const watcher = await watchAllReady(cp.kubeConfig, BENCH_NAMESPACE, parents, readyTimeoutMs);
    const before = await apiServerCounts(transport);
    const secondsBefore = await apiServerSeconds(transport);
    const apiServerCpuBefore = cpuSeconds(cp.apiServerPid ?? -1) ?? Number.NaN;
    const started = performance.now();
    await createBenchApps(cp.kubeConfig, BENCH_NAMESPACE, parents, CREATE_CONCURRENCY);
    const createdMs = performance.now() - started;
    const readyAt = await watcher.done
      .catch(async (err: unknown) => {
        throw new Error(`${side}: ${(err as Error).message}; ${await diagnose(op, transport)}`);
      })
      .finally(() => watcher.abort());
    progress(side, `all Ready after ${(readyAt - started).toFixed(0)} ms`);
    const cpuSecondsToReady = cpuSeconds(op.process.pid!) ?? Number.NaN;
    const atReady = await apiServerCounts(transport);
    await waitQuiet(op, parents);
    progress(side, 'quiet');
    const cpuSecondsToQuiet = cpuSeconds(op.process.pid!) ?? Number.NaN;
    const atQuiet = await apiServerCounts(transport);
    const quietMs = performance.now() - started;
    const apiServerCpuSecondsToQuiet = (cpuSeconds(cp.apiServerPid ?? -1) ?? Number.NaN) - apiServerCpuBefore;
    const served = requestsBetween(secondsBefore, await apiServerSeconds(transport)).byRequest;
    const requestsToQuiet = requestsBetween(before, atQuiet);
    const serverMsPerRequest = Object.fromEntries(
      Object.entries(served).map(([k, seconds]) => [
        k,
        +((seconds * 1000) / (requestsToQuiet.byRequest[k] ?? Number.NaN)).toFixed(2),
      ]),
    );
    const reconcilesToQuiet = (await metricSum(op.port, 'controller_runtime_reconcile_total')) ?? -1;
    const reconcileErrorsToQuiet =
      (await metricSum(op.port, 'controller_runtime_reconcile_errors_total')) ?? -1;
    const meanReconcileMs =
      (((await metricSum(op.port, 'controller_runtime_reconcile_time_seconds_sum')) ?? Number.NaN) /
        ((await metricSum(op.port, 'controller_runtime_reconcile_time_seconds_count')) ?? Number.NaN)) *
      1000;
    await op.stop();

    // The steady pass: the same operator again, nothing changed.
    const beforeSteady = await apiServerCounts(transport);
    const steadyStart = performance.now();
    const again = await startOperator(side, workers, cp.kubeconfigPath, goApply);
    operators.push(again);
    const steadyDone = await waitQuiet(again, parents);
    const steadyCpu = cpuSeconds(again.process.pid!) ?? Number.NaN;
    const afterSteady = await apiServerCounts(transport);
    const steadyReconciles = (await metricSum(again.port, 'controller_runtime_reconcile_total')) ?? -1;
    await again.stop();
    const run: DependentsRun = {
      side,
      round,
      allReadyMs: readyAt - started,
      createdMs,
      cpuSecondsToReady,
      cpuSecondsToQuiet,
      requestsToReady: requestsBetween(before, atReady),
      requestsToQuiet,
      reconcilesToQuiet,
      reconcileErrorsToQuiet,
      meanReconcileMs,
      serverMsPerRequest,
      apiServerCpuSecondsToQuiet,
      meanInFlightToQuiet: +(Object.values(served).reduce((a, b) => a + b, 0) / (quietMs / 1000)).toFixed(2),
      steady: {
        ms: steadyDone - steadyStart,
        cpuSeconds: steadyCpu,
        requests: requestsBetween(beforeSteady, afterSteady),
        reconciles: steadyReconciles,
      },
    };
    console.log(
      `${side} round ${round + 1}: all Ready ${run.allReadyMs.toFixed(0)} ms, CPU ${cpuSecondsToReady.toFixed(1)} s` +
        ` (quiet ${cpuSecondsToQuiet.toFixed(1)} s), writes ${run.requestsToQuiet.writes}, reads ${run.requestsToQuiet.reads},` +
        ` reconciles ${reconcilesToQuiet} (errors ${reconcileErrorsToQuiet}, mean ${meanReconcileMs.toFixed(1)} ms); steady: ${run.steady.ms.toFixed(0)} ms,` +
        ` CPU ${steadyCpu.toFixed(1)} s, writes ${run.steady.requests.writes}, reads ${run.steady.requests.reads};` +
        ` API server ms per request ${JSON.stringify(serverMsPerRequest)}, kube-apiserver CPU to quiet` +
        ` ${apiServerCpuSecondsToQuiet.toFixed(1)} s (${((apiServerCpuSecondsToQuiet * 1000) / run.requestsToQuiet.writes).toFixed(2)} ms per write),` +
        ` ${run.meanInFlightToQuiet} requests in flight on average`,
    );
    return run;
  } finally {
    await Promise.all(operators.map((o) => o.stop()));
    transport.close();
    await cp.stop();
  }
}

export async function compareDependents(options: {
  parents: number;
  runs: number;
  workers: number;
  /** The controller-runtime operator writes by server-side apply (go-dependents --apply). */
  goApply?: boolean;
}): Promise<DependentsComparison> {
  const haveGo = goDependents() !== undefined;
  const runs: DependentsRun[] = [];
  for (let round = 0; round < options.runs; round++) {
    const order: Side[] = !haveGo
      ? ['op-gen']
      : round % 2 === 0
        ? ['op-gen', 'controller-runtime']
        : ['controller-runtime', 'op-gen'];
    for (const side of order)
      runs.push(await runOnce(side, round, options.parents, options.workers, options.goApply ?? false));
  }
  const base = {
    parents: options.parents,
    workers: options.workers,
    controllerRuntimeWrites: options.goApply ? ('server-side apply' as const) : ('CreateOrUpdate' as const),
    runs,
  };
  if (!haveGo) return { ...base, note: 'Go toolchain missing: controller-runtime was not run; no ratio.' };
  const stats = (side: Side): SideSummary => {
    const rs = runs.filter((r) => r.side === side);
    return {
      allReadyMs: summarize(rs.map((r) => r.allReadyMs)),
      cpuSecondsToReady: summarize(rs.map((r) => r.cpuSecondsToReady)),
      cpuSecondsToQuiet: summarize(rs.map((r) => r.cpuSecondsToQuiet)),
      writesToQuiet: summarize(rs.map((r) => r.requestsToQuiet.writes)),
      readsToQuiet: summarize(rs.map((r) => r.requestsToQuiet.reads)),
      steadyMs: summarize(rs.map((r) => r.steady.ms)),
      steadyCpuSeconds: summarize(rs.map((r) => r.steady.cpuSeconds)),
      steadyWrites: summarize(rs.map((r) => r.steady.requests.writes)),
    };
  };
  const opGen = stats('op-gen');
  const controllerRuntime = stats('controller-runtime');
  const ratios = Object.fromEntries(
    (Object.keys(opGen) as (keyof SideSummary)[]).map((k) => [
      k,
      +(opGen[k].median / controllerRuntime[k].median).toFixed(3),
    ]),
  ) as Record<keyof SideSummary, number>;
  return { ...base, summary: { opGen, controllerRuntime, ratios } };
}

export function printDependentsComparison(r: DependentsComparison): void {
  console.log(
    `\nDependents: ${r.parents} BenchApps with 4 dependents each, ${r.workers} workers, controller-runtime writing by ${r.controllerRuntimeWrites}; fresh control plane per run`,
  );
  if (!r.summary) {
    if (r.note) console.log(r.note);
    return;
  }
  const rows: [keyof SideSummary, string][] = [
    ['allReadyMs', 'all Ready, ms'],
    ['cpuSecondsToReady', 'CPU until all Ready, s'],
    ['cpuSecondsToQuiet', 'CPU until quiet, s'],
    ['writesToQuiet', 'writes until quiet'],
    ['readsToQuiet', 'GET/LIST until quiet'],
    ['steadyMs', 'steady pass (restart), ms'],
    ['steadyCpuSeconds', 'steady pass CPU, s'],
    ['steadyWrites', 'steady pass writes'],
  ];
  console.log('measure (median)                op-gen        controller-runtime   ratio');
  for (const [k, label] of rows) {
    const fmt = (s: Summary) => (Number.isInteger(s.median) ? String(s.median) : s.median.toFixed(2));
    console.log(
      `${label.padEnd(32)}${fmt(r.summary.opGen[k]).padEnd(14)}${fmt(r.summary.controllerRuntime[k]).padEnd(21)}${r.summary.ratios[k]}`,
    );
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({
    options: {
      parents: { type: 'string', default: '2000' },
      runs: { type: 'string', default: '3' },
      workers: { type: 'string', default: '4' },
      'go-apply': { type: 'boolean', default: false },
    },
  });
  const loadBefore = loadavg();
  const result = await compareDependents({
    parents: Number(values.parents),
    runs: Number(values.runs),
    workers: Number(values.workers),
    goApply: values['go-apply'],
  });
  printDependentsComparison(result);
  writeBenchResult(
    values['go-apply'] ? 'dependents-go-apply' : 'dependents',
    { versions: { node: process.version, controllerRuntime: CONTROLLER_RUNTIME_VERSION }, ...result },
    { loadAverage: { start: loadBefore, end: loadavg() } },
  );
}
