/**
 * `npm run bench:compare`: op-gen next to what a Go or TypeScript author would use, on the same work
 * in one run (only ratios from one run count on this noisy machine): CRD generation against
 * controller-gen v0.23.0 at several API sizes (a scaling curve) and on the corpus of real operator
 * APIs (test/corpus; needs checkouts of its projects under OP_GEN_CORPUS_SRC or --corpus-src, see
 * crd-corpus.ts), `generate types` against
 * `cdk8s import` and crd-generate (npm, installed into ~/.cache/op-gen/bench-npm on first use), CLI
 * latency on a fresh scaffold, and the runtime against controller-runtime v0.22 (Go tools built from
 * Go modules on first use). Writes bench/results/<date>.json (with the load average) and the charts
 * in docs/perf/. Then the runtime at scale beside controller-runtime (scale-compare.ts: lookup-scale,
 * sync, backlog, failover on the real API server) at small sizes: 1,000 parents, 20,000 objects.
 * Options: --crd-kinds 10,100,500 --fields --crd-runs --types-runs --latency-runs
 * --corpus-src --objects --runtime-runs --workers --skip-runtime --skip-types --skip-latency;
 * --only <sections> (comma-separated: crd, corpus, types, latency, runtime, lookup-scale, sync,
 * backlog, failover; default all) --scale-parents 1000 --scale-rounds 3 --sync-objects 20000
 * --backlog-objects 20000 --failover-objects 20000 --scale-workers 4; and --dependents (optional:
 * dependents-compare.ts, a 4-dependent workflow against the same hand-written in controller-runtime;
 * --dependents-parents 2000 --dependents-runs 3).
 */
import { spawnSync } from 'node:child_process';
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { writeCharts } from './charts.ts';
import { measureCliLatency, printCliLatency } from './cli-latency.ts';
import { compareCrdGeneration, printCrdComparison, type CrdComparison } from './crd-compare.ts';
import { compareCrdCorpus, printCrdCorpus } from './crd-corpus.ts';
import { compareTypesGeneration, printTypesComparison } from './types-compare.ts';
import { compareRuntimes, printRuntimeComparison } from './runtime-compare.ts';
import { compareDependents, printDependentsComparison } from './dependents-compare.ts';
import { compareScale, SCALE_CASES, scaleOptions, type ScaleCase } from './scale-compare.ts';
import { ENVTEST_K8S_VERSION } from '../../src/testing/binaries.ts';
import {
  CONTROLLER_GEN_VERSION,
  CONTROLLER_RUNTIME_VERSION,
  hasGo,
  ROOT,
  writeBenchResult,
} from './tools.ts';

const { values } = parseArgs({
  options: {
    'crd-kinds': { type: 'string', default: '10,100,500' },
    fields: { type: 'string', default: '20' },
    'crd-runs': { type: 'string', default: '5' },
    'corpus-src': { type: 'string', default: process.env.OP_GEN_CORPUS_SRC },
    'types-runs': { type: 'string', default: '3' },
    'latency-runs': { type: 'string', default: '5' },
    'skip-types': { type: 'boolean', default: false },
    'skip-latency': { type: 'boolean', default: false },
    objects: { type: 'string', default: '2000' },
    'runtime-runs': { type: 'string', default: '3' },
    workers: { type: 'string', default: '1,4' },
    'skip-runtime': { type: 'boolean', default: false },
    dependents: { type: 'boolean', default: false },
    'dependents-parents': { type: 'string', default: '2000' },
    'dependents-runs': { type: 'string', default: '3' },
    only: { type: 'string' },
    'scale-parents': { type: 'string', default: '1000' },
    'scale-rounds': { type: 'string', default: '3' },
    'sync-objects': { type: 'string', default: '20000' },
    'backlog-objects': { type: 'string', default: '20000' },
    'failover-objects': { type: 'string', default: '20000' },
    'scale-workers': { type: 'string', default: '4' },
  },
});

const SECTIONS = ['crd', 'corpus', 'types', 'latency', 'runtime', ...SCALE_CASES] as const;
type Section = (typeof SECTIONS)[number];
const only = values.only?.split(',');
const unknown = only?.filter((s) => !(SECTIONS as readonly string[]).includes(s)) ?? [];
if (unknown.length > 0) {
  console.error(`--only: unknown section ${unknown.join(', ')} (sections: ${SECTIONS.join(', ')})`);
  process.exit(2);
}
const runs = (section: Section): boolean => !only || only.includes(section);

const build = spawnSync('npm', ['run', 'build'], { cwd: ROOT, stdio: 'inherit' });
if (build.status !== 0) process.exit(build.status ?? 1);
if (!hasGo()) console.log('Go toolchain missing: only op-gen is measured; no ratio is reported.');

const loadBefore = loadavg();
const crdScaling: CrdComparison[] = [];
for (const kinds of runs('crd') ? values['crd-kinds'].split(',').map(Number) : []) {
  const result = await compareCrdGeneration({
    kinds,
    fields: Number(values.fields),
    // The largest API takes seconds a run: fewer runs there.
    runs: kinds > 200 ? Math.max(3, Math.ceil(Number(values['crd-runs']) / 2)) : Number(values['crd-runs']),
  });
  printCrdComparison(result);
  crdScaling.push(result);
}
const crd = crdScaling.find((c) => c.kinds === 100) ?? crdScaling[0];
const crdCorpus = runs('corpus')
  ? await compareCrdCorpus({ runs: Number(values['crd-runs']), src: values['corpus-src'] })
  : undefined;
if (crdCorpus) printCrdCorpus(crdCorpus);
const types =
  values['skip-types'] || !runs('types')
    ? undefined
    : await compareTypesGeneration({ runs: Number(values['types-runs']) });
if (types) printTypesComparison(types);
const cliLatency =
  values['skip-latency'] || !runs('latency')
    ? undefined
    : await measureCliLatency({ runs: Number(values['latency-runs']) });
if (cliLatency) printCliLatency(cliLatency);
const runtime =
  values['skip-runtime'] || !runs('runtime')
    ? undefined
    : await compareRuntimes({
        objects: Number(values.objects),
        runs: Number(values['runtime-runs']),
        workers: values.workers.split(',').map(Number),
      });
if (runtime) printRuntimeComparison(runtime);
const scaleCases = SCALE_CASES.filter((c: ScaleCase) => runs(c));
const scale =
  scaleCases.length === 0
    ? undefined
    : await compareScale(
        scaleOptions(scaleCases, {
          parents: values['scale-parents'],
          rounds: values['scale-rounds'],
          'sync-objects': values['sync-objects'],
          'backlog-objects': values['backlog-objects'],
          'failover-objects': values['failover-objects'],
          workers: values['scale-workers'],
        }),
      );
const dependents = values.dependents
  ? await compareDependents({
      parents: Number(values['dependents-parents']),
      runs: Number(values['dependents-runs']),
      workers: 4,
    })
  : undefined;
if (dependents) printDependentsComparison(dependents);

const go = spawnSync('go', ['version'], { encoding: 'utf8' });
writeBenchResult(
  // A partial run (--only) gets its own name: the dated file of a whole run is what charts.ts reads.
  only ? only.join('+') : undefined,
  {
    versions: {
      node: process.version,
      go: go.stdout?.trim() || 'missing',
      controllerGen: CONTROLLER_GEN_VERSION,
      controllerRuntime: CONTROLLER_RUNTIME_VERSION,
      // The release the control plane ran (OP_GEN_K8S_VERSION, default tools/envtest/versions.json).
      kubernetes: `v${ENVTEST_K8S_VERSION}`,
    },
    crd,
    crdScaling,
    crdCorpus,
    types,
    cliLatency,
    runtime,
    dependents,
    scale,
  },
  // The machine is shared: 1/5/15-minute load averages when the run started and ended.
  { loadAverage: { start: loadBefore, end: loadavg() } },
);
if (!only) for (const chart of writeCharts()) console.log(`chart written to ${chart}`);
if (crdScaling.some((c) => c.equivalent === false)) process.exitCode = 1;
if (crdCorpus?.projects.some((p) => p.unexpected.length > 0)) process.exitCode = 1;
