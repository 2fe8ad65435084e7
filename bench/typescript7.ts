/**
 * `npm run bench:typescript7 [-- <scaffolded project>]`: TypeScript 6 (`tsc`, JavaScript) against
 * TypeScript 7 (`tsc`, native) on the same project and command, alternating run by run (6, 7, 6, 7,
 * ...) so both see the same machine load; prints medians and the 7/6 ratio and writes
 * bench/results/typescript7-<date>.json. Measured: op-gen's own typecheck and build, and, when a
 * project made by `op-gen init` + `op-gen create api` (with node_modules) is given, its typecheck and
 * build. Both compilers come from op-gen's node_modules (`@typescript/old`, the TypeScript 6 that
 * `@typescript/typescript6` wraps, and `typescript7`), so the project's own versions do not matter.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { ROOT, writeBenchResult } from './compare/tools.ts';

const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const compilers = {
  ts6: join(ROOT, 'node_modules/@typescript/old/bin/tsc'),
  ts7: join(ROOT, 'node_modules/typescript7/bin/tsc'),
} as const;
for (const [name, bin] of Object.entries(compilers)) {
  if (!existsSync(bin)) {
    console.error(`bench:typescript7: ${name} not found at ${bin}; run npm ci`);
    process.exit(1);
  }
}

interface Task {
  readonly name: string;
  readonly cwd: string;
  readonly args: (outDir: string) => string[];
}

const tasks: Task[] = [
  { name: 'op-gen typecheck', cwd: ROOT, args: () => ['-p', 'tsconfig.json', '--noEmit'] },
  { name: 'op-gen build', cwd: ROOT, args: (out) => ['-p', 'tsconfig.build.json', '--outDir', out] },
];
const project = process.argv[2] ? resolve(process.argv[2]) : undefined;
if (project) {
  tasks.push(
    { name: 'scaffold typecheck', cwd: project, args: () => ['-p', 'tsconfig.json', '--noEmit'] },
    { name: 'scaffold build', cwd: project, args: (out) => ['-p', 'tsconfig.build.json', '--outDir', out] },
  );
}

const median = (xs: readonly number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? (s[mid] ?? 0) : ((s[mid - 1] ?? 0) + (s[mid] ?? 0)) / 2;
};

function timed(compiler: string, task: Task): number {
  const out = mkdtempSync(join(tmpdir(), 'op-gen-tsbench-'));
  try {
    const started = performance.now();
    const r = spawnSync(process.execPath, [compiler, ...task.args(out)], { cwd: task.cwd, encoding: 'utf8' });
    const ms = performance.now() - started;
    if (r.status !== 0) {
      console.error(`${task.name} with ${compiler} failed (${r.status}):\n${r.stdout}${r.stderr}`);
      process.exit(1);
    }
    return ms;
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

const runs: Record<string, { ts6: number[]; ts7: number[] }> = {};
const loadBefore = loadavg()[0];
for (const task of tasks) {
  const r: { ts6: number[]; ts7: number[] } = { ts6: [], ts7: [] };
  runs[task.name] = r;
  for (let i = 0; i < RUNS; i++) {
    // Alternate which goes first so neither always runs on a warmer cache.
    const order = i % 2 === 0 ? (['ts6', 'ts7'] as const) : (['ts7', 'ts6'] as const);
    for (const c of order) r[c].push(timed(compilers[c], task));
  }
  const m6 = median(r.ts6);
  const m7 = median(r.ts7);
  console.log(
    `${task.name.padEnd(20)} TypeScript 6 ${Math.round(m6)} ms, TypeScript 7 ${Math.round(m7)} ms (median of ${RUNS}); 7/6 = ${(m7 / m6).toFixed(2)} (${(m6 / m7).toFixed(1)}x faster)`,
  );
}
const summary = Object.fromEntries(
  Object.entries(runs).map(([name, r]) => [
    name,
    {
      ts6MedianMs: Math.round(median(r.ts6)),
      ts7MedianMs: Math.round(median(r.ts7)),
      ratio7to6: Number((median(r.ts7) / median(r.ts6)).toFixed(3)),
    },
  ]),
);
writeBenchResult(
  'typescript7',
  {
    versions: { node: process.version, ts6: '6.0.3 (@typescript/typescript6 6.0.2)', ts7: '7.0.2' },
    settings: {
      runs: RUNS,
      alternating: true,
      project: project ? 'op-gen init + create api (Memcached)' : null,
    },
    runs,
    summary,
  },
  { loadavg1mBefore: loadBefore, loadavg1mAfter: loadavg()[0] },
);
