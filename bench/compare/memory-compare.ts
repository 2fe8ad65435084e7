/**
 * `npm run bench:memory`: the runtime's memory beside controller-runtime's, in one run, sides
 * alternating (the first side alternates by round) on one control plane.
 *
 * 1. Per cached object: N BenchApps exist (0, then 1k, 5k, 20k, added between sizes); each operator
 *    (bench/compare/op-gen-operator.mjs and go-operator, `--read-only`: the reconciler only reads the
 *    BenchApp from the cache) starts, syncs and reconciles every object once; 2 s later its RSS is read.
 *    Memory per object = (median RSS at N − median RSS at 0) / N.
 * 2. Peak RSS at 2,000 objects with the full reconcile (runtime-compare.ts: create 2,000 BenchApps at
 *    once, the operator creates their Deployments and sets Ready), 1 worker.
 * With --heap-snapshot, the op-gen operator of the first round at each size also writes a heap
 *    snapshot (after its RSS is read), summarised by constructor (heap-summary.ts).
 * Results: bench/results/memory-<date>.json, with the load average around each run.
 * Options: --sizes 0,1000,5000,20000 --rounds 3 --peak-objects 2000 (0: skip) --heap-snapshot
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { CoreV1Api } from '@kubernetes/client-node';
import { startControlPlane, type ControlPlane } from '../../src/testing/index.ts';
import { freePort } from '../../src/testing/free-port.ts';
import { summarizeHeap, printHeapSummary, type HeapRow } from './heap-summary.ts';
import { metricSum } from '../../test/helpers/prometheus-text.ts';
import { peakRssMb, summarize } from './peak-rss.ts';
import { installBenchCrd, runOnce, type Side } from './runtime-compare.ts';
import { createBenchApps } from './runtime-load.ts';
import {
  benchNodeArgs,
  CONTROLLER_RUNTIME_VERSION,
  goOperator,
  opGenOperatorEntry,
  writeBenchResult,
} from './tools.ts';

const { values } = parseArgs({
  options: {
    sizes: { type: 'string', default: '0,1000,5000,20000' },
    rounds: { type: 'string', default: '3' },
    'peak-objects': { type: 'string', default: '2000' },
    'heap-snapshot': { type: 'boolean', default: false },
  },
});
const sizes = values.sizes.split(',').map(Number);
const rounds = Number(values.rounds);
const peakObjects = Number(values['peak-objects']);
const NAMESPACE = 'bench';

const goBin = goOperator();
if (!goBin) console.log('Go toolchain missing: only op-gen is measured; no ratio is reported.');
const sides: Side[] = goBin ? ['op-gen', 'controller-runtime'] : ['op-gen'];

function currentRssMb(pid: number): number | undefined {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const m = /^VmRSS:\s+(\d+) kB$/m.exec(status);
    return m?.[1] ? Number(m[1]) / 1024 : undefined;
  } catch {
    return undefined;
  }
}

interface CacheRun {
  readonly side: Side;
  readonly objects: number;
  readonly round: number;
  readonly syncedMs: number;
  readonly rssMb: number;
  readonly peakRssMb: number;
  readonly loadavg1: readonly [number, number];
}

/** One operator, read-only, until it reconciled every object; its RSS 2 s later. */
async function cacheRun(
  cp: ControlPlane,
  side: Side,
  objects: number,
  round: number,
  snapshotDir?: string,
): Promise<CacheRun> {
  const port = await freePort();
  const flags = ['--workers=1', '--read-only', `--metrics-bind-address=127.0.0.1:${port}`];
  const nodeArgs = benchNodeArgs();
  const [cmd, args] =
    side === 'op-gen'
      ? [
          process.execPath,
          [
            ...nodeArgs,
            ...(snapshotDir ? ['--heapsnapshot-signal=SIGUSR2'] : []),
            await opGenOperatorEntry(),
            ...flags,
          ],
        ]
      : [goBin!, flags];
  const load0 = loadavg()[0]!;
  const child = spawn(cmd, args, {
    env: { ...process.env, KUBECONFIG: cp.kubeconfigPath },
    stdio: ['ignore', 'ignore', 'pipe'],
    ...(snapshotDir ? { cwd: snapshotDir } : {}),
  });
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-4000)));
  const t0 = performance.now();
  try {
    for (;;) {
      if (child.exitCode !== null) throw new Error(`${side} exited early:\n${stderr}`);
      const n = await metricSum(port, 'controller_runtime_reconcile_total');
      if (n !== undefined && n >= objects && (objects > 0 || performance.now() - t0 > 3_000)) break;
      if (performance.now() - t0 > 300_000)
        throw new Error(`${side}: ${n}/${objects} reconciled after 300 s`);
      await new Promise((r) => setTimeout(r, 100));
    }
    const syncedMs = performance.now() - t0;
    await new Promise((r) => setTimeout(r, 2_000));
    const rssMb = currentRssMb(child.pid!) ?? NaN;
    const peak = peakRssMb(child.pid!) ?? NaN;
    if (snapshotDir) {
      child.kill('SIGUSR2');
      for (let i = 0; i < 600 && !readdirSync(snapshotDir).some((f) => f.endsWith('.heapsnapshot')); i++)
        await new Promise((r) => setTimeout(r, 100));
      // Written once the file is complete: wait until its size stops growing.
      await new Promise((r) => setTimeout(r, 3_000));
    }
    return {
      side,
      objects,
      round,
      syncedMs,
      rssMb,
      peakRssMb: peak,
      loadavg1: [load0, loadavg()[0]!],
    };
  } finally {
    child.kill('SIGTERM');
    if (child.exitCode === null) await new Promise((r) => child.once('exit', r));
  }
}

const cp = await startControlPlane();
const cacheRuns: CacheRun[] = [];
const heaps: { objects: number; totalBytes: number; top: HeapRow[] }[] = [];
try {
  await installBenchCrd(cp.kubeConfig);
  await cp.kubeConfig.makeApiClient(CoreV1Api).createNamespace({ body: { metadata: { name: NAMESPACE } } });
  let created = 0;
  for (const size of sizes) {
    if (size > created) {
      const t = performance.now();
      await createBenchApps(cp.kubeConfig, NAMESPACE, size - created, 32, created);
      console.log(`created ${size - created} BenchApps in ${((performance.now() - t) / 1000).toFixed(1)} s`);
      created = size;
    }
    for (let round = 0; round < rounds; round++) {
      const order = round % 2 === 0 ? sides : [...sides].reverse();
      for (const side of order) {
        const snapshotDir =
          values['heap-snapshot'] && side === 'op-gen' && round === 0
            ? mkdtempSync(join(tmpdir(), 'op-gen-heap-'))
            : undefined;
        const run = await cacheRun(cp, side, size, round, snapshotDir);
        cacheRuns.push(run);
        console.log(
          `${String(size).padStart(6)} ${side.padEnd(19)} round ${round}: RSS ${run.rssMb.toFixed(1)} MB, peak ${run.peakRssMb.toFixed(1)} MB, synced in ${run.syncedMs.toFixed(0)} ms (load ${run.loadavg1[0].toFixed(1)})`,
        );
        if (snapshotDir) {
          const file = readdirSync(snapshotDir).find((f) => f.endsWith('.heapsnapshot'));
          if (file) {
            const s = summarizeHeap(join(snapshotDir, file));
            heaps.push({ objects: size, totalBytes: s.totalBytes, top: s.rows.slice(0, 25) });
            printHeapSummary(s, 15);
          }
          rmSync(snapshotDir, { recursive: true, force: true });
        }
      }
    }
  }
} finally {
  await cp.stop();
}

const median = (side: Side, objects: number, pick: (r: CacheRun) => number) => {
  const xs = cacheRuns.filter((r) => r.side === side && r.objects === objects).map(pick);
  return xs.length > 0 ? summarize(xs).median : undefined;
};
const curve = sizes.map((objects) => {
  const row = Object.fromEntries(
    sides.map((side) => {
      const rss = median(side, objects, (r) => r.rssMb)!;
      const base = median(side, 0, (r) => r.rssMb);
      const perObjectBytes =
        objects > 0 && base !== undefined ? ((rss - base) * 2 ** 20) / objects : undefined;
      return [side, { rssMb: rss, peakRssMb: median(side, objects, (r) => r.peakRssMb)!, perObjectBytes }];
    }),
  ) as Record<Side, { rssMb: number; peakRssMb: number; perObjectBytes?: number }>;
  const og = row['op-gen'];
  const cr = row['controller-runtime'];
  return {
    objects,
    ...row,
    ...(cr
      ? {
          rssRatio: og.rssMb / cr.rssMb,
          ...(og.perObjectBytes !== undefined && cr.perObjectBytes !== undefined
            ? { perObjectRatio: og.perObjectBytes / cr.perObjectBytes }
            : {}),
        }
      : {}),
  };
});

console.log(
  `\nMemory with N BenchApps cached (read-only reconciler), medians of ${rounds} alternating rounds`,
);
console.log('objects  op-gen RSS MB  c-r RSS MB  ratio   op-gen B/object  c-r B/object  ratio');
for (const c of curve) {
  const og = c['op-gen'];
  const cr = c['controller-runtime'];
  console.log(
    `${String(c.objects).padStart(7)}  ${og.rssMb.toFixed(1).padStart(13)}  ${(cr?.rssMb.toFixed(1) ?? '-').padStart(10)}  ${(c.rssRatio?.toFixed(2) ?? '-').padStart(5)}   ${(og.perObjectBytes?.toFixed(0) ?? '-').padStart(15)}  ${(cr?.perObjectBytes?.toFixed(0) ?? '-').padStart(12)}  ${(c.perObjectRatio?.toFixed(2) ?? '-').padStart(5)}`,
  );
}

// Peak RSS with the full reconcile at peakObjects (fresh control plane per run, sides alternating).
const peakRuns: { side: Side; round: number; peakRssMb: number; allReadyMs: number; loadavg1: number[] }[] =
  [];
if (peakObjects > 0) {
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 === 0 ? sides : [...sides].reverse();
    for (const side of order) {
      const load0 = loadavg()[0]!;
      const r = await runOnce(side, 1, peakObjects);
      peakRuns.push({
        side,
        round,
        peakRssMb: r.peakRssMb,
        allReadyMs: r.allReadyMs,
        loadavg1: [load0, loadavg()[0]!],
      });
      console.log(
        `peak ${side.padEnd(19)} round ${round}: ${r.peakRssMb.toFixed(1)} MB, all Ready in ${r.allReadyMs.toFixed(0)} ms (load ${load0.toFixed(1)})`,
      );
    }
  }
}
const peakMedian = (side: Side) => {
  const xs = peakRuns.filter((r) => r.side === side).map((r) => r.peakRssMb);
  return xs.length > 0 ? summarize(xs).median : undefined;
};
const peak =
  peakObjects > 0
    ? {
        objects: peakObjects,
        opGenMb: peakMedian('op-gen'),
        controllerRuntimeMb: peakMedian('controller-runtime'),
        ratio:
          goBin && peakMedian('controller-runtime')
            ? peakMedian('op-gen')! / peakMedian('controller-runtime')!
            : undefined,
      }
    : undefined;
if (peak)
  console.log(
    `\nPeak RSS at ${peakObjects} objects (full reconcile, 1 worker): op-gen ${peak.opGenMb?.toFixed(1)} MB, controller-runtime ${peak.controllerRuntimeMb?.toFixed(1) ?? '-'} MB, ratio ${peak.ratio?.toFixed(2) ?? '-'}`,
  );

writeBenchResult('memory', {
  node: process.version,
  nodeArgs: benchNodeArgs().join(' '),
  controllerRuntime: CONTROLLER_RUNTIME_VERSION,
  rounds,
  curve,
  peak,
  heaps,
  cacheRuns,
  peakRuns,
});
