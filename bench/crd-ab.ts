/**
 * A/B of two built op-gen checkouts on `op-gen generate crd` (e.g. a commit before a change and the
 * change): each side's bin/op-gen.js as a child process, the sides alternating with the order
 * reversed every round, each with its own warm compile cache (one untimed run each first). Per side
 * the median (min–max) of wall time, CPU time (user + system of the child, from its resource usage,
 * steadier than wall time on a loaded machine) and peak RSS, and the ratio B ÷ A of the medians.
 * Checks that both sides wrote the same bytes. Workloads: the synthetic API (bench/synthetic-api.ts,
 * --kinds × --fields) and, with --corpus, every project of test/corpus (the real operator APIs, the
 * flags bench/compare/crd-corpus.ts runs them with).
 *
 *   node bench/crd-ab.ts --a /path/to/before --b . [--rounds 11] [--kinds 100] [--fields 20] [--corpus]
 *
 * Both checkouts must be built (`npm run build`: bin/op-gen.js runs dist/).
 */
import { spawn } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { CORPUS_DIR, corpusProjects } from './compare/corpus-go.ts';
import { summarize, type Summary } from './compare/peak-rss.ts';
import { renderTypeScript, syntheticApi, writeFiles } from './synthetic-api.ts';

const USAGE = new URL('report-usage.mjs', import.meta.url).pathname;

interface Usage {
  readonly wallMs: number;
  readonly cpuMs: number;
  readonly peakRssMb: number;
}

interface Workload {
  readonly name: string;
  readonly dir: string;
  readonly args: readonly string[];
  /** Where the CRDs are written, relative to `dir` (each side gets its own). */
  readonly out: (side: 'a' | 'b') => string;
}

/** One `op-gen generate crd` of `checkout` in `cwd`: wall time, CPU time and peak RSS of the child. */
function runOnce(checkout: string, cwd: string, args: readonly string[], cache: string): Promise<Usage> {
  return new Promise((done, fail) => {
    const started = performance.now();
    const child = spawn(
      process.execPath,
      ['--import', USAGE, join(checkout, 'bin/op-gen.js'), 'generate', 'crd', ...args],
      {
        cwd,
        stdio: ['ignore', 'ignore', 'pipe', 'pipe'],
        env: { ...process.env, NODE_COMPILE_CACHE: cache },
      },
    );
    let usage = '';
    let stderr = '';
    child.stdio[3]?.on('data', (d: Buffer) => (usage += d.toString()));
    child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', fail);
    child.on('close', (code) => {
      const wallMs = performance.now() - started;
      if (code !== 0)
        return fail(new Error(`${checkout}: generate crd exited ${code} in ${cwd}:\n${stderr}`));
      const u = JSON.parse(usage) as { maxRssKb: number; cpuMs: number };
      done({ wallMs, cpuMs: u.cpuMs, peakRssMb: u.maxRssKb / 1024 });
    });
  });
}

/** Every file under `dir`, path and bytes, in name order (to compare the sides' outputs). */
function tree(dir: string): string {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name))
    .sort()
    .map((p) => `${p.slice(dir.length)}\n${readFileSync(p, 'utf8')}`)
    .join('\n');
}

function workloads(work: string, kinds: number, fields: number, corpus: boolean): Workload[] {
  const synthetic = join(work, 'synthetic');
  writeFiles(synthetic, renderTypeScript(syntheticApi({ kinds, fields })));
  const list: Workload[] = [
    {
      name: `synthetic ${kinds}×${fields}`,
      dir: synthetic,
      args: [],
      out: (side) => `out-${side}`,
    },
  ];
  if (!corpus) return list;
  for (const [project, entry] of Object.entries(corpusProjects())) {
    const dir = join(work, project);
    cpSync(join(CORPUS_DIR, project, 'api'), join(dir, 'api'), { recursive: true });
    list.push({
      name: project,
      dir,
      args: [
        '--api-dir',
        'api',
        '--max-description-length',
        '0',
        ...(entry.generateEmbeddedObjectMeta ? ['--generate-embedded-object-meta'] : []),
      ],
      out: (side) => `out-${side}`,
    });
  }
  return list;
}

const { values } = parseArgs({
  options: {
    a: { type: 'string' },
    b: { type: 'string', default: '.' },
    rounds: { type: 'string', default: '11' },
    kinds: { type: 'string', default: '100' },
    fields: { type: 'string', default: '20' },
    corpus: { type: 'boolean', default: false },
  },
});
if (!values.a) throw new Error('--a <checkout> is required (a built op-gen checkout to compare with)');
const checkouts = { a: resolve(values.a), b: resolve(values.b) } as const;
for (const c of Object.values(checkouts))
  if (!existsSync(join(c, 'dist/cli/main.js'))) throw new Error(`${c}: not built (run npm run build there)`);

const work = mkdtempSync(join(tmpdir(), 'op-gen-crd-ab-'));
const caches = { a: join(work, 'cc-a'), b: join(work, 'cc-b') } as const;
const fmt = (s: Summary, digits = 0): string =>
  `${s.median.toFixed(digits)} (${s.min.toFixed(digits)}–${s.max.toFixed(digits)})`;
try {
  const rounds = Number(values.rounds);
  console.log(
    `A = ${checkouts.a}\nB = ${checkouts.b}\n${rounds} rounds, alternating; load average at start ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
  const total: Record<'a' | 'b', Usage[][]> = { a: [], b: [] };
  for (const w of workloads(work, Number(values.kinds), Number(values.fields), values.corpus)) {
    const run = (side: 'a' | 'b'): Promise<Usage> => {
      rmSync(join(w.dir, w.out(side)), { recursive: true, force: true });
      return runOnce(checkouts[side], w.dir, [...w.args, '--out', w.out(side)], caches[side]);
    };
    await run('a');
    await run('b');
    const runs: Record<'a' | 'b', Usage[]> = { a: [], b: [] };
    for (let i = 0; i < rounds; i++)
      for (const side of i % 2 === 0 ? (['a', 'b'] as const) : (['b', 'a'] as const))
        runs[side].push(await run(side));
    const same = tree(join(w.dir, w.out('a'))) === tree(join(w.dir, w.out('b')));
    console.log(`\n${w.name}${same ? '' : '  OUTPUTS DIFFER'}`);
    const stat = (side: 'a' | 'b', k: keyof Usage): Summary => summarize(runs[side].map((r) => r[k]));
    for (const [k, label, digits] of [
      ['wallMs', 'wall ms', 0],
      ['cpuMs', 'CPU ms', 0],
      ['peakRssMb', 'peak RSS MB', 1],
    ] as const) {
      const ratio = stat('b', k).median / stat('a', k).median;
      console.log(
        `  ${label.padEnd(12)} A ${fmt(stat('a', k), digits).padEnd(22)} B ${fmt(stat('b', k), digits).padEnd(22)} B/A ${ratio.toFixed(3)}`,
      );
    }
    total.a.push(runs.a);
    total.b.push(runs.b);
    if (!same) process.exitCode = 1;
  }
  if (total.a.length > 1) {
    // The corpus as a whole: per round, the sum over the workloads (synthetic excluded).
    const sums = (side: 'a' | 'b', k: keyof Usage): number =>
      summarize(
        Array.from({ length: rounds }, (_, i) => total[side].slice(1).reduce((s, r) => s + r[i]![k], 0)),
      ).median;
    console.log('\ncorpus (sum over its projects per round, median)');
    for (const k of ['wallMs', 'cpuMs'] as const)
      console.log(
        `  ${k.padEnd(12)} A ${sums('a', k).toFixed(0)}  B ${sums('b', k).toFixed(0)}  B/A ${(sums('b', k) / sums('a', k)).toFixed(3)}`,
      );
  }
  console.log(
    `\nload average at end ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
} finally {
  rmSync(work, { recursive: true, force: true });
}
