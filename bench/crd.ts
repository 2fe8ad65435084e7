/**
 * `npm run bench:crd`: one `op-gen generate crd` on a synthetic API (default 100 kinds × 20 fields),
 * run as a child process of bin/op-gen.js. Prints the cold wall time (empty compile cache), warm
 * times, and the peak RSS of each run. Options: --kinds N --fields N --runs N.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { renderTypeScript, syntheticApi, writeFiles } from './synthetic-api.ts';

const root = new URL('..', import.meta.url).pathname;
const { values } = parseArgs({
  options: {
    kinds: { type: 'string', default: '100' },
    fields: { type: 'string', default: '20' },
    runs: { type: 'string', default: '3' },
  },
});
const kinds = Number(values.kinds);
const fields = Number(values.fields);
const warmRuns = Number(values.runs);

if (!existsSync(join(root, 'dist/cli/main.js'))) {
  console.log('building dist/ (bin/op-gen.js runs the built CLI) ...');
  const build = spawnSync('npm', ['run', 'build'], { cwd: root, stdio: 'inherit' });
  if (build.status !== 0) process.exit(build.status ?? 1);
}

export interface RunResult {
  readonly wallMs: number;
  readonly peakRssMb: number;
  readonly exitCode: number;
}

/** One `op-gen generate crd` in a child process; wall time from spawn to exit, peak RSS from the child. */
export function runGenerate(projectDir: string, compileCacheDir: string): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(
      process.execPath,
      [
        '--import',
        join(root, 'bench/report-rss.mjs'),
        join(root, 'bin/op-gen.js'),
        'generate',
        'crd',
        '--cwd',
        projectDir,
      ],
      {
        stdio: ['ignore', 'ignore', 'pipe', 'pipe'],
        env: { ...process.env, NODE_COMPILE_CACHE: compileCacheDir },
      },
    );
    let rss = '';
    let stderr = '';
    child.stdio[3]?.on('data', (d: Buffer) => (rss += d.toString()));
    child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      const wallMs = performance.now() - started;
      if (code !== 0) reject(new Error(`op-gen generate crd exited ${code}: ${stderr}`));
      else resolve({ wallMs, peakRssMb: Number(rss) / 1024, exitCode: code });
    });
  });
}

const project = mkdtempSync(join(tmpdir(), 'op-gen-bench-crd-'));
const cache = mkdtempSync(join(tmpdir(), 'op-gen-bench-cc-'));
try {
  writeFiles(project, renderTypeScript(syntheticApi({ kinds, fields })));
  const fmt = (r: RunResult): string =>
    `${r.wallMs.toFixed(0).padStart(6)} ms  ${r.peakRssMb.toFixed(0).padStart(4)} MB peak RSS`;
  console.log(
    `op-gen generate crd: ${kinds} kinds × ${fields} fields (node ${process.version}, ${process.platform}/${process.arch})`,
  );
  const cold = await runGenerate(project, cache);
  console.log(`cold (empty compile cache): ${fmt(cold)}`);
  const files = readdirSync(join(project, 'config/crd/bases'));
  if (files.length !== kinds) throw new Error(`expected ${kinds} CRD files, found ${files.length}`);
  const warm: RunResult[] = [];
  for (let i = 0; i < warmRuns; i++) {
    rmSync(join(project, 'config'), { recursive: true, force: true });
    warm.push(await runGenerate(project, cache));
    console.log(`warm run ${i + 1}:                ${fmt(warm[warm.length - 1] as RunResult)}`);
  }
  const sorted = [...warm].sort((a, b) => a.wallMs - b.wallMs);
  const median = sorted[Math.floor(sorted.length / 2)];
  if (median) console.log(`warm median:               ${fmt(median)}`);
} finally {
  rmSync(project, { recursive: true, force: true });
  rmSync(cache, { recursive: true, force: true });
}
