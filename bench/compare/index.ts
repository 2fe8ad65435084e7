/**
 * `npm run bench:compare`: op-gen next to what a Go author would use, on the same work in one run
 * (only ratios from one run count on this noisy machine). CRD generation against controller-gen
 * v0.23.0 and the runtime against controller-runtime v0.22; both built from Go modules on first use.
 * Writes bench/results/<date>.json. Options: --kinds --fields --crd-runs --objects --runtime-runs --workers.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { compareCrdGeneration, printCrdComparison } from './crd-compare.ts';
import { compareRuntimes, printRuntimeComparison } from './runtime-compare.ts';
import { ENVTEST_K8S_VERSION } from '../../src/testing/binaries.ts';
import { CONTROLLER_GEN_VERSION, hasGo, ROOT } from './tools.ts';

const { values } = parseArgs({
  options: {
    kinds: { type: 'string', default: '100' },
    fields: { type: 'string', default: '20' },
    'crd-runs': { type: 'string', default: '5' },
    objects: { type: 'string', default: '2000' },
    'runtime-runs': { type: 'string', default: '3' },
    workers: { type: 'string', default: '1,4' },
    'skip-runtime': { type: 'boolean', default: false },
  },
});

const build = spawnSync('npm', ['run', 'build'], { cwd: ROOT, stdio: 'inherit' });
if (build.status !== 0) process.exit(build.status ?? 1);
if (!hasGo()) console.log('Go toolchain missing: only op-gen is measured; no ratio is reported.');

const crd = await compareCrdGeneration({
  kinds: Number(values.kinds),
  fields: Number(values.fields),
  runs: Number(values['crd-runs']),
});
printCrdComparison(crd);
const runtime = values['skip-runtime']
  ? undefined
  : await compareRuntimes({
      objects: Number(values.objects),
      runs: Number(values['runtime-runs']),
      workers: values.workers.split(',').map(Number),
    });
if (runtime) printRuntimeComparison(runtime);

const date = new Date().toISOString().slice(0, 10);
const out = join(ROOT, 'bench/results', `${date}.json`);
mkdirSync(join(ROOT, 'bench/results'), { recursive: true });
const go = spawnSync('go', ['version'], { encoding: 'utf8' });
writeFileSync(
  out,
  `${JSON.stringify(
    {
      date: new Date().toISOString(),
      machine: {
        cpus: cpus().length,
        cpuModel: cpus()[0]?.model,
        memoryGiB: Math.round(totalmem() / 2 ** 30),
      },
      versions: {
        node: process.version,
        go: go.stdout?.trim() || 'missing',
        controllerGen: CONTROLLER_GEN_VERSION,
        controllerRuntime: 'v0.22.5',
        // The release the control plane ran (OP_GEN_K8S_VERSION, default tools/envtest/versions.json).
        kubernetes: `v${ENVTEST_K8S_VERSION}`,
      },
      crd,
      runtime,
    },
    null,
    2,
  )}\n`,
);
console.log(`\nresults written to ${out}`);
if (crd.equivalent === false) process.exitCode = 1;
