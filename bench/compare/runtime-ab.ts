/**
 * A/B of op-gen operator variants against controller-runtime on the runtime bench (runOnce of
 * runtime-compare.ts: N BenchApps created at once, time until all Ready, peak RSS, CPU seconds),
 * variants alternating in one run, the order reversed every round. A variant is Node flags for the
 * op-gen operator (OP_GEN_BENCH_NODE_ARGS) and/or environment for it (e.g. OP_GEN_HTTP_CLIENT=node);
 * `null` is controller-runtime. Prints every run and the medians with ratios to controller-runtime.
 *
 *   node bench/compare/runtime-ab.ts --rounds 4 --workers 4 --objects 2000 \
 *     --variants '{"op-gen-http":{},"node-http":{"env":{"OP_GEN_HTTP_CLIENT":"node"}},"controller-runtime":null}'
 */
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { summarize } from './peak-rss.ts';
import { runOnce, type RuntimeRun } from './runtime-compare.ts';

interface Variant {
  readonly nodeArgs?: string;
  readonly env?: Readonly<Record<string, string>>;
}

const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '4' },
    workers: { type: 'string', default: '4' },
    objects: { type: 'string', default: '2000' },
    variants: { type: 'string' },
    out: { type: 'string' },
  },
});
if (!values.variants)
  throw new Error('--variants is required (a JSON object: name → {nodeArgs?, env?} or null)');
const variants = JSON.parse(values.variants) as Record<string, Variant | null>;
const names = Object.keys(variants);
const runs: (RuntimeRun & { variant: string })[] = [];
const saved = { ...process.env };

for (let round = 0; round < Number(values.rounds); round++) {
  for (const name of round % 2 === 0 ? names : [...names].reverse()) {
    const variant = variants[name];
    process.env = { ...saved, ...variant?.env };
    if (variant?.nodeArgs !== undefined) process.env.OP_GEN_BENCH_NODE_ARGS = variant.nodeArgs;
    const run = await runOnce(
      variant === null ? 'controller-runtime' : 'op-gen',
      Number(values.workers),
      Number(values.objects),
    );
    process.env = saved;
    runs.push({ ...run, variant: name });
    console.log(
      `${name.padEnd(20)} all Ready ${run.allReadyMs.toFixed(0)} ms  created ${run.createdMs.toFixed(0)} ms  CPU ${run.cpuSeconds?.toFixed(2) ?? '–'} s  peak RSS ${run.peakRssMb.toFixed(1)} MB`,
    );
  }
}

const medians = Object.fromEntries(
  names.map((name) => {
    const of = runs.filter((r) => r.variant === name);
    return [
      name,
      {
        allReadyMs: summarize(of.map((r) => r.allReadyMs)).median,
        cpuSeconds: summarize(of.map((r) => r.cpuSeconds ?? Number.NaN)).median,
        peakRssMb: summarize(of.map((r) => r.peakRssMb)).median,
      },
    ];
  }),
);
const anchor = names.find((n) => variants[n] === null);
console.log(
  '\nmedians                all Ready ms   CPU s   peak RSS MB   ratios to controller-runtime (time / CPU / RSS)',
);
for (const name of names) {
  const m = medians[name]!;
  const a = anchor ? medians[anchor]! : undefined;
  const ratios = a
    ? `${(m.allReadyMs / a.allReadyMs).toFixed(2)} / ${(m.cpuSeconds / a.cpuSeconds).toFixed(2)} / ${(m.peakRssMb / a.peakRssMb).toFixed(2)}`
    : '';
  console.log(
    `${name.padEnd(23)}${m.allReadyMs.toFixed(0).padEnd(15)}${m.cpuSeconds.toFixed(2).padEnd(8)}${m.peakRssMb.toFixed(1).padEnd(14)}${ratios}`,
  );
}
if (values.out) writeFileSync(values.out, `${JSON.stringify({ variants, runs, medians }, null, 2)}\n`);
