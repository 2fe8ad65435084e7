/**
 * `npm run bench:scaffold`: how long `op-gen init` + `op-gen create api` take without npm install,
 * as a user runs them (`node bin/op-gen.js`, a fresh process each, on the built dist/). Target: < 2 s.
 * Prints the median and the worst of a few runs, for the two commands together and for each.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const BIN = join(ROOT, 'bin/op-gen.js');
const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const TARGET_MS = 2_000;

if (!existsSync(join(ROOT, 'dist/cli/main.js'))) {
  console.error('bench:scaffold: op-gen is not built; run `npm run build` first.');
  process.exit(1);
}

function timed(args: string[], cwd: string): number {
  const started = performance.now();
  const result = spawnSync(process.execPath, [BIN, ...args], { cwd, encoding: 'utf8' });
  const ms = performance.now() - started;
  if (result.status !== 0) {
    console.error(`op-gen ${args.join(' ')} failed (${result.status}):\n${result.stdout}${result.stderr}`);
    process.exit(1);
  }
  return ms;
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
const fmt = (ms: number): string => `${Math.round(ms)} ms`;

const init: number[] = [];
const create: number[] = [];
const total: number[] = [];
for (let i = 0; i < RUNS; i++) {
  const dir = mkdtempSync(join(tmpdir(), 'op-gen-bench-'));
  try {
    const a = timed(['init', 'memcached-operator', '--domain', 'example.com', '--skip-install'], dir);
    const b = timed(
      ['create', 'api', '--group', 'cache', '--version', 'v1alpha1', '--kind', 'Memcached'],
      join(dir, 'memcached-operator'),
    );
    init.push(a);
    create.push(b);
    total.push(a + b);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

console.log(`bench:scaffold (${RUNS} runs, fresh process each, no npm install)`);
console.log(`  init:               median ${fmt(median(init))}, max ${fmt(Math.max(...init))}`);
console.log(
  `  create api:         median ${fmt(median(create))}, max ${fmt(Math.max(...create))} (runs the generators op-gen has)`,
);
console.log(
  `  init + create api:  median ${fmt(median(total))}, max ${fmt(Math.max(...total))} (target < ${fmt(TARGET_MS)})`,
);
if (median(total) >= TARGET_MS) {
  console.error(`bench:scaffold: over the ${fmt(TARGET_MS)} target`);
  process.exitCode = 1;
}
