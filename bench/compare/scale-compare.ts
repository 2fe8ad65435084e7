/**
 * The runtime at scale beside controller-runtime v0.22 (issue 39's proof), on the real API server
 * (op-gen/testing's kube-apiserver + etcd on 127.0.0.1). The op-gen side is
 * bench/compare/op-gen-scale.mjs on dist/ (bundled by `op-gen build`, run with the scaffold's Node
 * flags), the controller-runtime side bench/compare/go-scale (built on first use); both do the same
 * work. Each case creates its objects once (parallel requests), then runs fresh operator processes,
 * the sides alternating and the first side alternating by round; medians of --rounds, ratios
 * op-gen / controller-runtime.
 *
 * - lookup-scale: N BenchApps (parents) × 5 ConfigMaps each (children, controller ownerReference);
 *   every reconcile reads its parent, lists its children through the cache's owner index (op-gen:
 *   ownedBy; controller-runtime: IndexField + MatchingFields) and writes a status naming the run.
 *   Per N: synced → every parent written (ms), CPU per reconcile (µs, CPU from synced to done / N),
 *   time per lookup (µs, timed around the list call), peak RSS. The parents grow between sizes.
 * - sync: M ConfigMaps (default 100,000) in one namespace; a controller of them starts: spawn →
 *   cache synced (ms), peak RSS, RSS 2 s after synced, and RSS per object against the same operator
 *   on an empty namespace. op-gen's cache drops managedFields by default, controller-runtime's keeps
 *   them unless --sync-strip-managed-fields true (its TransformStripManagedFields).
 * - backlog: M ConfigMaps (default 20,000); the operator (priority queue on both sides; reconcile =
 *   cache read + one GET) starts and --edit-after-ms (1,000) after the spawn the last-listed object
 *   gets a label: edit → the reconcile that sees it (ms); whether the edit came before the cache
 *   synced (then it is part of the initial list, queued at low priority behind the backlog) is kept.
 * - failover: M ConfigMaps (default 20,000); replica A leads, replica B stands by (warm: its cache
 *   synced, controller-runtime's EnableWarmup; cold: 0.5 s after it asked for the lease), A is
 *   SIGKILLed: kill → B's first reconcile (ms), warm and cold, both runtimes (op-gen's replica is
 *   bench/failover-replica.ts).
 *
 * Run alone: `node bench/compare/scale-compare.ts [--only lookup-scale,sync,backlog,failover]
 * [--parents 1000,10000] [--rounds 3] [--sync-objects 100000] [--sync-strip-managed-fields true] [--backlog-objects 20000]
 * [--failover-objects 20000] [--workers 4] [--cr-priority-queue true|false]`; writes bench/results/<case or scale>-<date>.json.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import { ResourceClient } from '../../src/client/resource-client.ts';
import { defineKind, Transport, type ObjectLike } from '../../src/client/index.ts';
import { builtinKinds } from '../../src/runtime/builtin-kinds.ts';
import { startControlPlane, type ControlPlane } from '../../src/testing/index.ts';
import { peakRssMb, summarize, type Summary } from './peak-rss.ts';
import { installBenchCrd } from './runtime-compare.ts';
import { BENCH_GROUP, BENCH_PLURAL, BENCH_VERSION } from './runtime-load.ts';
import {
  benchNodeArgs,
  CONTROLLER_RUNTIME_VERSION,
  goProgram,
  opGenOperatorEntry,
  ROOT,
  writeBenchResult,
} from './tools.ts';

export type Side = 'op-gen' | 'controller-runtime';
export const SCALE_CASES = ['lookup-scale', 'sync', 'backlog', 'failover'] as const;
export type ScaleCase = (typeof SCALE_CASES)[number];

export interface ScaleOptions {
  readonly cases: readonly ScaleCase[];
  readonly parents: readonly number[];
  readonly rounds: number;
  readonly syncObjects: number;
  /** sync: controller-runtime's cache drops managedFields too (op-gen's does by default). */
  readonly syncStripManagedFields: boolean;
  readonly backlogObjects: number;
  readonly failoverObjects: number;
  readonly workers: number;
  readonly editAfterMs: number;
  /**
   * lookup-scale: controller-runtime's UsePriorityQueue (default true, as op-gen's default queue).
   * v0.22's priority queue walks its whole tree on every add while no worker waits, so its CPU per
   * reconcile grows with N; false runs it with v0.22's default workqueue instead.
   */
  readonly crPriorityQueue: boolean;
}

const CHILDREN = 5;
const CREATE_CONCURRENCY = 48;

interface BenchAppObject extends ObjectLike {
  spec: { image: string; replicas: number };
}

const BenchApp = defineKind<BenchAppObject>({
  group: BENCH_GROUP,
  version: BENCH_VERSION,
  kind: 'BenchApp',
  plural: BENCH_PLURAL,
  namespaced: true,
});

/** `count` calls of `make(i)` for i in [from, from + count), `concurrency` at a time, in index order. */
async function parallel<T>(
  from: number,
  count: number,
  concurrency: number,
  make: (i: number) => Promise<T>,
): Promise<T[]> {
  const out = new Array<T>(count);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, count) }, async () => {
      while (next < count) {
        const k = next++;
        out[k] = await make(from + k);
      }
    }),
  );
  return out;
}

const pad = (i: number): string => String(i).padStart(6, '0');

async function createNamespace(transport: Transport, name: string): Promise<void> {
  await transport.request({ method: 'POST', path: '/api/v1/namespaces', body: { metadata: { name } } });
}

/** ConfigMaps cm-000000 … in `namespace` (one small data key each); seconds taken. */
async function createConfigMaps(transport: Transport, namespace: string, count: number): Promise<number> {
  const cms = new ResourceClient(transport, builtinKinds.ConfigMap);
  const t = performance.now();
  await parallel(0, count, CREATE_CONCURRENCY, (i) =>
    cms.create({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { namespace, name: `cm-${pad(i)}` },
      data: { i: String(i) },
    }),
  );
  const s = (performance.now() - t) / 1000;
  console.log(`created ${count} ConfigMaps in ${namespace} in ${s.toFixed(1)} s`);
  return s;
}

interface Operator {
  readonly child: ChildProcess;
  /** Date.now() when spawned. */
  readonly spawnedAt: number;
  event(name: string, timeoutMs?: number): Promise<OperatorEvent>;
  stop(): Promise<void>;
}

interface OperatorEvent {
  readonly event: string;
  readonly at: number;
  readonly cpu?: number;
  readonly [field: string]: unknown;
}

const goBin = (): string | undefined => goProgram('go-scale', 'the controller-runtime scale bench');

/** A bench operator process and the JSON event lines it prints. */
async function startOperator(
  side: Side,
  cp: ControlPlane,
  args: readonly string[],
  opGenEntry?: string,
  env: NodeJS.ProcessEnv = {},
): Promise<Operator> {
  const [cmd, argv] =
    side === 'op-gen'
      ? [
          process.execPath,
          opGenEntry
            ? [opGenEntry, ...args]
            : [...benchNodeArgs(), await opGenOperatorEntry('bench/compare/op-gen-scale.mjs'), ...args],
        ]
      : [goBin()!, args];
  const spawnedAt = Date.now();
  const child = spawn(cmd, argv, {
    env: { ...process.env, ...env, KUBECONFIG: cp.kubeconfigPath },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-4000)));
  const seen = new Map<string, OperatorEvent>();
  const waiting = new Map<string, (e: OperatorEvent) => void>();
  createInterface({ input: child.stdout! }).on('line', (line) => {
    if (!line.startsWith('{"')) return;
    const e = JSON.parse(line) as OperatorEvent;
    if (typeof e.event !== 'string') return;
    seen.set(e.event, e);
    waiting.get(e.event)?.(e);
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    child,
    spawnedAt,
    event: (name, timeoutMs = 600_000) =>
      new Promise<OperatorEvent>((resolve, reject) => {
        const e = seen.get(name);
        if (e) return resolve(e);
        const timer = setTimeout(
          () => reject(new Error(`${side}: no "${name}" after ${timeoutMs} ms\n${stderr}`)),
          timeoutMs,
        );
        waiting.set(name, (ev) => {
          clearTimeout(timer);
          resolve(ev);
        });
        void exited.then(() => {
          clearTimeout(timer);
          reject(
            new Error(`${side} exited before "${name}" (${child.exitCode ?? child.signalCode}):\n${stderr}`),
          );
        });
      }),
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const killer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(killer);
    },
  };
}

function currentRssMb(pid: number): number | undefined {
  try {
    const m = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m?.[1] ? Number(m[1]) / 1024 : undefined;
  } catch {
    return undefined;
  }
}

const order = (round: number, sides: readonly Side[]): Side[] =>
  round % 2 === 0 ? [...sides] : [...sides].reverse();
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const load1 = (): number => Math.round(loadavg()[0]! * 100) / 100;

interface Ratioed {
  readonly opGen: Summary;
  readonly controllerRuntime?: Summary;
  /** op-gen median / controller-runtime median. */
  readonly ratio?: number;
}

function ratioed<R extends { side: Side }>(runs: readonly R[], pick: (r: R) => number): Ratioed {
  const of = (side: Side) => runs.filter((r) => r.side === side).map(pick);
  const opGen = summarize(of('op-gen'));
  const cr = of('controller-runtime');
  if (cr.length === 0) return { opGen };
  const controllerRuntime = summarize(cr);
  // A 0 ms median (warm failover: the reconcile lands as the lease does) has no ratio.
  if (controllerRuntime.median <= 0) return { opGen, controllerRuntime };
  return { opGen, controllerRuntime, ratio: opGen.median / controllerRuntime.median };
}

// ---------------------------------------------------------------------------------------- lookup

/** How long a lookup run may take to sync and to write every parent: 10 min + 20 ms a parent. */
export const lookupTimeoutMs = (parents: number): number => 600_000 + 20 * parents;

interface LookupRun {
  readonly side: Side;
  readonly parents: number;
  readonly round: number;
  readonly syncedMs: number;
  /** From the operator's "started" (runtime loaded, controller set up) to its cache synced. */
  readonly startToSyncedMs: number;
  /** Cache synced → every parent written. */
  readonly reconcileAllMs: number;
  /** Spawn → every parent written: the whole time an operator (re)start takes to do the work. */
  readonly totalMs: number;
  /** "started" → every parent written (without the process start and the runtime's load). */
  readonly startToDoneMs: number;
  /** The operator's whole CPU time from spawn to every parent written (seconds). */
  readonly cpuTotalS: number;
  readonly cpuPerReconcileUs: number;
  readonly lookupUs: number;
  readonly children: number;
  readonly peakRssMb: number;
  readonly load1: number;
}

async function lookupScale(options: ScaleOptions, sides: readonly Side[]) {
  const cp = await startControlPlane();
  const transport = await Transport.fromKubeConfig(cp.kubeConfig);
  const namespace = 'scale';
  const runs: LookupRun[] = [];
  const creation: { parents: number; seconds: number }[] = [];
  try {
    await installBenchCrd(cp.kubeConfig);
    await createNamespace(transport, namespace);
    const apps = new ResourceClient(transport, BenchApp);
    const cms = new ResourceClient(transport, builtinKinds.ConfigMap);
    let created = 0;
    for (const n of [...options.parents].sort((a, b) => a - b)) {
      const t = performance.now();
      const parents = await parallel(created, n - created, CREATE_CONCURRENCY, (i) =>
        apps.create({
          apiVersion: `${BENCH_GROUP}/${BENCH_VERSION}`,
          kind: 'BenchApp',
          metadata: { namespace, name: `p-${pad(i)}` },
          spec: { image: 'nginx', replicas: 1 },
        }),
      );
      await parallel(0, parents.length * CHILDREN, CREATE_CONCURRENCY, (k) => {
        const parent = parents[Math.floor(k / CHILDREN)]!.metadata!;
        return cms.create({
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: {
            namespace,
            name: `${parent.name}-c${k % CHILDREN}`,
            ownerReferences: [
              {
                apiVersion: `${BENCH_GROUP}/${BENCH_VERSION}`,
                kind: 'BenchApp',
                name: parent.name!,
                uid: parent.uid!,
                controller: true,
              },
            ],
          },
          data: { k: String(k) },
        });
      });
      const seconds = (performance.now() - t) / 1000;
      creation.push({ parents: n, seconds });
      console.log(
        `lookup-scale: ${n - created} parents + ${(n - created) * CHILDREN} children created in ${seconds.toFixed(1)} s`,
      );
      created = n;
      for (let round = 0; round < options.rounds; round++) {
        for (const side of order(round, sides)) {
          const l = load1();
          const op = await startOperator(side, cp, [
            '--mode=lookup',
            `--namespace=${namespace}`,
            `--run=${side}-${n}-${round}`,
            `--parents=${n}`,
            `--workers=${options.workers}`,
            ...(side === 'controller-runtime' ? [`--priority-queue=${options.crPriorityQueue}`] : []),
          ]);
          try {
            const started = await op.event('started');
            const synced = await op.event('synced', lookupTimeoutMs(n));
            const done = await op.event('done', lookupTimeoutMs(n));
            const run: LookupRun = {
              side,
              parents: n,
              round,
              syncedMs: synced.at - op.spawnedAt,
              startToSyncedMs: synced.at - started.at,
              reconcileAllMs: done.at - synced.at,
              totalMs: done.at - op.spawnedAt,
              startToDoneMs: done.at - started.at,
              cpuTotalS: done.cpu!,
              cpuPerReconcileUs: ((done.cpu! - synced.cpu!) / n) * 1e6,
              lookupUs: Number(done.lookupNs) / Number(done.lookups) / 1e3,
              children: Number(done.children),
              peakRssMb: peakRssMb(op.child.pid!) ?? Number.NaN,
              load1: l,
            };
            if (run.children !== n * CHILDREN)
              throw new Error(`${side}: ${run.children} children found, ${n * CHILDREN} exist`);
            runs.push(run);
            console.log(
              `lookup-scale N=${n} ${side.padEnd(18)} round ${round}: spawn → all reconciled ${run.totalMs} ms (started ${started.at - op.spawnedAt} ms, synced ${run.syncedMs} ms), synced → all reconciled ${run.reconcileAllMs} ms, CPU ${run.cpuTotalS.toFixed(2)} s, ${run.cpuPerReconcileUs.toFixed(0)} µs CPU/reconcile, ${run.lookupUs.toFixed(1)} µs/lookup, peak ${run.peakRssMb.toFixed(0)} MB (load ${l})`,
            );
          } finally {
            await op.stop();
          }
        }
      }
    }
  } finally {
    transport.close();
    await cp.stop();
  }
  const sizes = options.parents.map((n) => {
    const at = runs.filter((r) => r.parents === n);
    return {
      parents: n,
      children: n * CHILDREN,
      reconcileAllMs: ratioed(at, (r) => r.reconcileAllMs),
      totalMs: ratioed(at, (r) => r.totalMs),
      startToDoneMs: ratioed(at, (r) => r.startToDoneMs),
      cpuTotalS: ratioed(at, (r) => r.cpuTotalS),
      load1: summarize(at.map((r) => r.load1)),
      cpuPerReconcileUs: ratioed(at, (r) => r.cpuPerReconcileUs),
      lookupUs: ratioed(at, (r) => r.lookupUs),
      syncedMs: ratioed(at, (r) => r.syncedMs),
      startToSyncedMs: ratioed(at, (r) => r.startToSyncedMs),
      peakRssMb: ratioed(at, (r) => r.peakRssMb),
    };
  });
  return {
    children: CHILDREN,
    workers: options.workers,
    controllerRuntimePriorityQueue: options.crPriorityQueue,
    creation,
    sizes,
    runs,
  };
}

// ------------------------------------------------------------------------------------------ sync

interface SyncRun {
  readonly side: Side;
  readonly round: number;
  readonly objects: number;
  readonly syncedMs: number;
  /** From the operator's "started" (runtime loaded, controller set up) to its cache synced. */
  readonly startToSyncedMs: number;
  /** The operator's CPU time (user + system, all threads) from its start to its cache synced. */
  readonly cpuToSyncedS: number;
  readonly rssMb: number;
  readonly peakRssMb: number;
  readonly load1: number;
}

async function syncCase(options: ScaleOptions, sides: readonly Side[]) {
  const cp = await startControlPlane();
  const transport = await Transport.fromKubeConfig(cp.kubeConfig);
  const runs: SyncRun[] = [];
  let createSeconds: number;
  try {
    await createNamespace(transport, 'empty');
    await createNamespace(transport, 'sync');
    createSeconds = await createConfigMaps(transport, 'sync', options.syncObjects);
    for (let round = 0; round < options.rounds; round++) {
      for (const side of order(round, sides)) {
        for (const [namespace, objects] of [
          ['empty', 0],
          ['sync', options.syncObjects],
        ] as const) {
          const l = load1();
          const op = await startOperator(side, cp, [
            '--mode=sync',
            `--namespace=${namespace}`,
            ...(options.syncStripManagedFields ? ['--strip-managed-fields'] : []),
          ]);
          try {
            const started = await op.event('started');
            const synced = await op.event('synced');
            await sleep(2_000);
            const run: SyncRun = {
              side,
              round,
              objects,
              syncedMs: synced.at - op.spawnedAt,
              startToSyncedMs: synced.at - started.at,
              cpuToSyncedS: synced.cpu ?? Number.NaN,
              rssMb: currentRssMb(op.child.pid!) ?? Number.NaN,
              peakRssMb: peakRssMb(op.child.pid!) ?? Number.NaN,
              load1: l,
            };
            runs.push(run);
            console.log(
              `sync ${String(objects).padStart(6)} ${side.padEnd(18)} round ${round}: synced ${run.syncedMs} ms after spawn (${run.startToSyncedMs} ms after started; CPU ${run.cpuToSyncedS.toFixed(2)} s), RSS ${run.rssMb.toFixed(0)} MB, peak ${run.peakRssMb.toFixed(0)} MB (load ${l})`,
            );
          } finally {
            await op.stop();
          }
        }
      }
    }
  } finally {
    transport.close();
    await cp.stop();
  }
  const full = runs.filter((r) => r.objects > 0);
  const empty = runs.filter((r) => r.objects === 0);
  const perObject = (side: Side) => {
    const base = summarize(empty.filter((r) => r.side === side).map((r) => r.rssMb)).median;
    return full
      .filter((r) => r.side === side)
      .map((r) => ({ side, bytes: ((r.rssMb - base) * 2 ** 20) / r.objects }));
  };
  return {
    objects: options.syncObjects,
    stripManagedFields: { opGen: true, controllerRuntime: options.syncStripManagedFields },
    /** How op-gen's informer listed: list requests (the default) or watch-list (OP_GEN_BENCH_WATCH_LIST=true). */
    opGenInitialList:
      process.env.OP_GEN_BENCH_WATCH_LIST === 'true'
        ? 'watch-list'
        : 'list (resourceVersion 0, decoded as it arrives)',
    createSeconds,
    syncedMs: ratioed(full, (r) => r.syncedMs),
    startToSyncedMs: ratioed(full, (r) => r.startToSyncedMs),
    cpuToSyncedS: ratioed(full, (r) => r.cpuToSyncedS),
    peakRssMb: ratioed(full, (r) => r.peakRssMb),
    rssMb: ratioed(full, (r) => r.rssMb),
    emptyRssMb: ratioed(empty, (r) => r.rssMb),
    rssPerObjectBytes: ratioed(
      sides.flatMap((s) => perObject(s)),
      (r) => r.bytes,
    ),
    runs,
  };
}

// --------------------------------------------------------------------------------------- backlog

interface BacklogRun {
  readonly side: Side;
  readonly round: number;
  readonly editToReconcileMs: number;
  readonly syncedMs: number;
  readonly editBeforeSynced: boolean;
  readonly load1: number;
}

async function backlogCase(options: ScaleOptions, sides: readonly Side[]) {
  const cp = await startControlPlane();
  const transport = await Transport.fromKubeConfig(cp.kubeConfig);
  const namespace = 'backlog';
  const runs: BacklogRun[] = [];
  const target = `cm-${pad(options.backlogObjects - 1)}`;
  try {
    await createNamespace(transport, namespace);
    await createConfigMaps(transport, namespace, options.backlogObjects);
    const cms = new ResourceClient(transport, builtinKinds.ConfigMap);
    for (let round = 0; round < options.rounds; round++) {
      for (const side of order(round, sides)) {
        const l = load1();
        const run = `${side}-${round}`;
        const op = await startOperator(side, cp, [
          '--mode=backlog',
          `--namespace=${namespace}`,
          `--run=${run}`,
          '--workers=1',
        ]);
        try {
          await sleep(Math.max(0, op.spawnedAt + options.editAfterMs - Date.now()));
          const editAt = Date.now();
          await cms.patch({ namespace, name: target }, 'merge', { metadata: { labels: { edited: run } } });
          const edited = await op.event('edited');
          const synced = await op.event('synced');
          const r: BacklogRun = {
            side,
            round,
            editToReconcileMs: edited.at - editAt,
            syncedMs: synced.at - op.spawnedAt,
            editBeforeSynced: editAt < synced.at,
            load1: l,
          };
          runs.push(r);
          console.log(
            `backlog ${side.padEnd(18)} round ${round}: edit → reconcile ${r.editToReconcileMs} ms (cache synced ${r.syncedMs} ms after spawn${r.editBeforeSynced ? ': the edit came with the initial list' : ''}) (load ${l})`,
          );
        } finally {
          await op.stop();
        }
      }
    }
  } finally {
    transport.close();
    await cp.stop();
  }
  return {
    objects: options.backlogObjects,
    editAfterMs: options.editAfterMs,
    editToReconcileMs: ratioed(runs, (r) => r.editToReconcileMs),
    syncedMs: ratioed(runs, (r) => r.syncedMs),
    runs,
  };
}

// -------------------------------------------------------------------------------------- failover

interface FailoverRun {
  readonly side: Side;
  readonly warm: boolean;
  readonly round: number;
  readonly killToLeaderMs: number;
  readonly leaderToReconcileMs: number;
  readonly killToReconcileMs: number;
  readonly load1: number;
}

const FAILOVER_REPLICA = join(ROOT, 'bench/failover-replica.ts');

async function failoverCase(options: ScaleOptions, sides: readonly Side[]) {
  const cp = await startControlPlane();
  const transport = await Transport.fromKubeConfig(cp.kubeConfig);
  const namespace = 'bench';
  const runs: FailoverRun[] = [];
  const replica = (side: Side, warm: boolean): Promise<Operator> =>
    side === 'op-gen'
      ? startOperator(side, cp, [], FAILOVER_REPLICA, { NAMESPACE: namespace, WARMUP: warm ? '1' : '0' })
      : startOperator(side, cp, ['--mode=failover', `--namespace=${namespace}`, `--warmup=${warm}`]);
  try {
    await createNamespace(transport, namespace);
    await createConfigMaps(transport, namespace, options.failoverObjects);
    for (let round = 0; round < options.rounds; round++) {
      for (const side of order(round, sides)) {
        for (const warm of round % 2 === 0 ? [false, true] : [true, false]) {
          await transport
            .request({
              method: 'DELETE',
              path: `/apis/coordination.k8s.io/v1/namespaces/${namespace}/leases/failover-bench`,
            })
            .catch(() => undefined);
          const l = load1();
          const a = await replica(side, warm);
          let b: Operator | undefined;
          try {
            await a.event('first-reconcile');
            b = await replica(side, warm);
            if (warm) await b.event('warm');
            else {
              await b.event('standby');
              await sleep(500);
            }
            const exited = new Promise((r) => a.child.once('exit', r));
            const killedAt = Date.now();
            a.child.kill('SIGKILL');
            await exited;
            const leader = await b.event('leader');
            const first = await b.event('first-reconcile');
            const r: FailoverRun = {
              side,
              warm,
              round,
              killToLeaderMs: leader.at - killedAt,
              leaderToReconcileMs: first.at - leader.at,
              killToReconcileMs: first.at - killedAt,
              load1: l,
            };
            runs.push(r);
            console.log(
              `failover ${side.padEnd(18)} ${warm ? 'warm' : 'cold'} round ${round}: kill → leader ${r.killToLeaderMs} ms, leader → first reconcile ${r.leaderToReconcileMs} ms (load ${l})`,
            );
          } finally {
            await a.stop();
            await b?.stop();
          }
        }
      }
    }
  } finally {
    transport.close();
    await cp.stop();
  }
  const modes = [false, true].map((warm) => {
    const at = runs.filter((r) => r.warm === warm);
    return {
      mode: warm ? 'warm' : 'cold',
      killToLeaderMs: ratioed(at, (r) => r.killToLeaderMs),
      leaderToReconcileMs: ratioed(at, (r) => r.leaderToReconcileMs),
      killToReconcileMs: ratioed(at, (r) => r.killToReconcileMs),
    };
  });
  return { objects: options.failoverObjects, modes, runs };
}

// ------------------------------------------------------------------------------------------ all

export type ScaleComparison = Awaited<ReturnType<typeof compareScale>>;

export async function compareScale(options: ScaleOptions) {
  const sides: Side[] = goBin() ? ['op-gen', 'controller-runtime'] : ['op-gen'];
  const loadStart = loadavg();
  const has = (c: ScaleCase) => options.cases.includes(c);
  const lookup = has('lookup-scale') ? await lookupScale(options, sides) : undefined;
  if (lookup) printLookup(lookup);
  const sync = has('sync') ? await syncCase(options, sides) : undefined;
  if (sync) printSync(sync);
  const backlog = has('backlog') ? await backlogCase(options, sides) : undefined;
  if (backlog) printBacklog(backlog);
  const failover = has('failover') ? await failoverCase(options, sides) : undefined;
  if (failover) printFailover(failover);
  return {
    controllerRuntime: CONTROLLER_RUNTIME_VERSION,
    nodeArgs: benchNodeArgs().join(' '),
    rounds: options.rounds,
    loadAverage: { start: loadStart, end: loadavg() },
    ...(sides.length === 1
      ? { note: 'Go toolchain missing: controller-runtime was not run; no ratio.' }
      : {}),
    lookup,
    sync,
    backlog,
    failover,
  };
}

const fmt = (r: Ratioed, digits = 0): string =>
  `${r.opGen.median.toFixed(digits)} vs ${r.controllerRuntime?.median.toFixed(digits) ?? '–'} (${r.ratio?.toFixed(2) ?? '–'}×)`;

function printLookup(r: Awaited<ReturnType<typeof lookupScale>>): void {
  console.log(
    `\nLookup scale: N parents × ${r.children} children, ${r.workers} workers, controller-runtime's ${r.controllerRuntimePriorityQueue ? 'priority queue' : 'default workqueue'}; op-gen vs controller-runtime (ratio), medians`,
  );
  for (const s of r.sizes)
    console.log(
      `  N=${s.parents} (load ${s.load1.min}–${s.load1.max}): spawn → all reconciled ${fmt(s.totalMs)} ms; started → all reconciled ${fmt(s.startToDoneMs)} ms; synced → all reconciled ${fmt(s.reconcileAllMs)} ms; operator CPU ${fmt(s.cpuTotalS, 2)} s; CPU/reconcile ${fmt(s.cpuPerReconcileUs)} µs; lookup ${fmt(s.lookupUs, 1)} µs; spawn → synced ${fmt(s.syncedMs)} ms; started → synced ${fmt(s.startToSyncedMs)} ms; peak RSS ${fmt(s.peakRssMb)} MB`,
    );
}

function printSync(r: Awaited<ReturnType<typeof syncCase>>): void {
  console.log(`\nSync: ${r.objects} ConfigMaps; op-gen vs controller-runtime (ratio), medians`);
  console.log(
    `  spawn → synced ${fmt(r.syncedMs)} ms; started → synced ${fmt(r.startToSyncedMs)} ms; CPU to synced ${fmt(r.cpuToSyncedS, 2)} s; peak RSS ${fmt(r.peakRssMb)} MB; RSS ${fmt(r.rssMb)} MB; per object ${fmt(r.rssPerObjectBytes)} B`,
  );
}

function printBacklog(r: Awaited<ReturnType<typeof backlogCase>>): void {
  console.log(
    `\nRestart under backlog: ${r.objects} ConfigMaps, edit ${r.editAfterMs} ms after spawn; medians`,
  );
  console.log(`  edit → reconcile ${fmt(r.editToReconcileMs)} ms; spawn → synced ${fmt(r.syncedMs)} ms`);
}

function printFailover(r: Awaited<ReturnType<typeof failoverCase>>): void {
  console.log(`\nFailover: ${r.objects} ConfigMaps, leader SIGKILL; medians`);
  for (const m of r.modes)
    console.log(
      `  ${m.mode}: kill → leader ${fmt(m.killToLeaderMs)} ms; leader → first reconcile ${fmt(m.leaderToReconcileMs)} ms; kill → first reconcile ${fmt(m.killToReconcileMs)} ms`,
    );
}

export const SCALE_OPTION_DEFAULTS = {
  parents: '1000,10000',
  rounds: '3',
  'sync-objects': '100000',
  'sync-strip-managed-fields': 'false',
  'backlog-objects': '20000',
  'failover-objects': '20000',
  workers: '4',
  'edit-after-ms': '1000',
  'cr-priority-queue': 'true',
} as const;

function flag(name: string, value: string): boolean {
  if (value !== 'true' && value !== 'false') throw new Error(`--${name}: true or false, not ${value}`);
  return value === 'true';
}

/** ScaleOptions from parsed command-line values (strings, as parseArgs gives them). */
export function scaleOptions(
  cases: readonly ScaleCase[],
  v: Record<string, string | undefined>,
): ScaleOptions {
  const get = (k: keyof typeof SCALE_OPTION_DEFAULTS): string => v[k] ?? SCALE_OPTION_DEFAULTS[k];
  return {
    cases,
    parents: get('parents').split(',').map(Number),
    rounds: Number(get('rounds')),
    syncObjects: Number(get('sync-objects')),
    syncStripManagedFields: get('sync-strip-managed-fields') === 'true',
    backlogObjects: Number(get('backlog-objects')),
    failoverObjects: Number(get('failover-objects')),
    workers: Number(get('workers')),
    editAfterMs: Number(get('edit-after-ms')),
    crPriorityQueue: flag('cr-priority-queue', get('cr-priority-queue')),
  };
}

/** The cases `--only` names (comma-separated), all when absent; an unknown name throws. */
export function scaleCases(only: string | undefined): ScaleCase[] {
  if (!only) return [...SCALE_CASES];
  return only.split(',').map((c) => {
    if (!(SCALE_CASES as readonly string[]).includes(c))
      throw new Error(`--only: unknown case ${c} (one of ${SCALE_CASES.join(', ')})`);
    return c as ScaleCase;
  });
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({
    options: {
      only: { type: 'string' },
      ...Object.fromEntries(Object.keys(SCALE_OPTION_DEFAULTS).map((k) => [k, { type: 'string' as const }])),
    },
  });
  const cases = scaleCases(values.only);
  const result = await compareScale(scaleOptions(cases, values as Record<string, string | undefined>));
  writeBenchResult(cases.length === 1 ? cases[0] : 'scale', { node: process.version, ...result });
}
