/**
 * `npm run bench:faults`: the fault suite's faults (test/faults/scenarios.ts) side by side, in one
 * run, for the op-gen scaffolded Memcached operator and the controller-runtime v0.22 operator doing
 * the same (bench/compare/go-operator, `memcached` mode: finalizer, server-side apply, Ready with
 * observedGeneration, no adoption). Sides alternate (the first side alternates by round), a fresh
 * control plane per side and round. Prints medians over the rounds and ratios of medians (op-gen /
 * controller-runtime) and writes bench/results/faults-<date>.json with the load average around each
 * side's run. Options: --objects (150) --rounds (3) --faults (all).
 */
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { startControlPlane } from '../../src/testing/index.ts';
import { Cluster } from '../../test/faults/cluster.ts';
import { OperatorProcess, scaffoldOperator, type ScaffoldedProject } from '../../test/faults/operator.ts';
import {
  apiServerRestart,
  conflictStorm,
  leaderHandoff,
  sigtermUnderLoad,
  watchGap,
  type FaultEnv,
  type Figures,
} from '../../test/faults/scenarios.ts';
import { summarize } from './peak-rss.ts';
import { CONTROLLER_RUNTIME_VERSION, goOperator, writeBenchResult } from './tools.ts';

type Side = 'op-gen' | 'controller-runtime';
type Scenario = (env: FaultEnv, ns: string) => Promise<Figures>;

const FAULTS: Readonly<Record<string, { run: Scenario; noWatchCache?: boolean }>> = {
  'api-server-restart': { run: apiServerRestart },
  'conflict-storm': { run: conflictStorm },
  'sigterm-under-load': { run: sigtermUnderLoad },
  'leader-handoff': { run: leaderHandoff },
  'watch-gap': { run: watchGap, noWatchCache: true },
};

const { values } = parseArgs({
  options: {
    objects: { type: 'string', default: '150' },
    rounds: { type: 'string', default: '3' },
    faults: { type: 'string', default: Object.keys(FAULTS).join(',') },
  },
});
const objects = Number(values.objects);
const rounds = Number(values.rounds);
const faults = values.faults.split(',');

async function runSide(side: Side, project: ScaffoldedProject, goBin: string | undefined) {
  const out: Record<string, Figures> = {};
  for (const noWatchCache of [false, true]) {
    const selected = faults.filter((f) => (FAULTS[f]?.noWatchCache ?? false) === noWatchCache);
    if (selected.length === 0) continue;
    const cp = await startControlPlane({ apiServerFlags: noWatchCache ? ['--watch-cache=false'] : [] });
    const cluster = await Cluster.connect(cp, project.crd);
    const operators: OperatorProcess[] = [];
    const env: FaultEnv = {
      cp,
      cluster,
      objects,
      start: async (name, namespace, leaderElect = false) => {
        const op = await OperatorProcess.start(project, {
          name: `${side}-${name}`,
          namespace,
          kubeconfig: cp.kubeconfigPath,
          leaderElect,
          ...(side === 'controller-runtime' ? { command: [goBin!, 'memcached'] } : {}),
        });
        operators.push(op);
        return op;
      },
    };
    try {
      for (const fault of selected) {
        const figures = await FAULTS[fault]!.run(env, fault);
        console.log(`${side.padEnd(19)} ${fault.padEnd(19)} ${JSON.stringify(figures)}`);
        out[fault] = figures;
      }
    } finally {
      await Promise.all(operators.map((op) => op.stop(5_000)));
      cluster.close();
      await cp.stop();
    }
  }
  return out;
}

const goBin = goOperator();
if (!goBin) console.log('Go toolchain missing: only op-gen is measured; no ratio is reported.');
const project = scaffoldOperator();
const results: {
  side: Side;
  round: number;
  loadavg1: [number, number];
  figures: Record<string, Figures>;
}[] = [];
try {
  const sides: Side[] = goBin ? ['op-gen', 'controller-runtime'] : ['op-gen'];
  for (let round = 0; round < rounds; round++) {
    for (const side of round % 2 === 0 ? sides : [...sides].reverse()) {
      const load0 = loadavg()[0]!;
      const figures = await runSide(side, project, goBin);
      results.push({ side, round, loadavg1: [load0, loadavg()[0]!], figures });
    }
  }
} finally {
  project.remove();
}

interface Row {
  fault: string;
  figure: string;
  opGen: number;
  controllerRuntime?: number;
  ratio?: number;
}
const rows: Row[] = [];
for (const fault of faults) {
  const keys = Object.keys(results.find((r) => r.figures[fault])?.figures[fault] ?? {}).filter((k) =>
    k.endsWith('Ms'),
  );
  for (const figure of keys) {
    const median = (side: Side) => {
      const xs = results
        .filter((r) => r.side === side)
        .map((r) => r.figures[fault]?.[figure])
        .filter((x): x is number => x !== undefined);
      return xs.length > 0 ? summarize(xs).median : undefined;
    };
    const opGen = median('op-gen')!;
    const cr = median('controller-runtime');
    rows.push({
      fault,
      figure,
      opGen,
      ...(cr !== undefined ? { controllerRuntime: cr, ratio: opGen / cr } : {}),
    });
  }
}
const loads = results.flatMap((r) => r.loadavg1);
console.log(
  `\nFaults, ${objects} Memcacheds, ${rounds} alternating round(s); medians in ms; load average ${Math.min(...loads).toFixed(1)}–${Math.max(...loads).toFixed(1)}`,
);
console.log('fault               figure                      op-gen   controller-runtime   ratio');
for (const r of rows) {
  console.log(
    `${r.fault.padEnd(20)}${r.figure.padEnd(28)}${String(Math.round(r.opGen)).padStart(6)}   ${String(r.controllerRuntime === undefined ? '-' : Math.round(r.controllerRuntime)).padStart(18)}   ${r.ratio === undefined ? '-' : r.ratio.toFixed(2)}`,
  );
}
writeBenchResult('faults', {
  node: process.version,
  controllerRuntime: CONTROLLER_RUNTIME_VERSION,
  objects,
  rounds,
  loadavg1: { min: Math.min(...loads), max: Math.max(...loads) },
  runs: results,
  medians: rows,
});
