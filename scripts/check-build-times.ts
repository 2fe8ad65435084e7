// Keeps the README's cold build figures (tools/envtest/cold-build-seconds.json, quoted by the README and
// by setup:envtest's progress lines) honest: .ci/run runs this after `npm run setup:envtest`. It reads
// the builds setup:envtest recorded (build-times.json in the envtest cache, or $OP_GEN_ENVTEST_DIR) and
// fails only when a build that the figures describe took more than twice the stated range's top, or
// (on 2 cores or fewer) less than half its bottom. Every other build is listed and not judged: a warm
// or partly filled Go cache (seconds, or only compiling), a busy machine (mean load average above 2
// per core while it built), a tool without a figure. No recorded build (a warm CI cache: nothing was
// built) passes. `--since <unix seconds>` judges only the builds recorded from then on (.ci/run passes
// its start, so builds recorded by an earlier run that filled a restored cache are not judged again).
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** How far outside the stated range a build may fall before the check fails. */
export const MARGIN = 2;
/** Mean 1-minute load average per core above which a build says nothing about the figures. */
export const BUSY_LOAD_PER_CORE = 2;

/** One build as setup:envtest records it (scripts/setup-envtest.mjs, recordBuild). */
export interface RecordedBuild {
  readonly name: string;
  readonly version?: string;
  readonly seconds: number;
  /** Go's caches when the run started: `cold` (build and module caches empty), `modules-cached` or `warm`. */
  readonly goCaches?: string;
  readonly cores?: number;
  /** Mean 1-minute load average per core while it built. */
  readonly loadPerCore?: number;
  readonly at: string;
}

/** The stated cold ranges, seconds: tools/envtest/cold-build-seconds.json's `seconds`. */
export type Figures = Readonly<Record<string, readonly [number, number]>>;

export interface Verdict {
  readonly verdict: 'ok' | 'skip' | 'fail';
  readonly line: string;
}

/**
 * Judges recorded builds against the stated cold ranges (`{ name: [low, high] }`, seconds).
 * Returns one line per build: `fail` lines make the check fail; `ok` and `skip` lines say why not.
 */
export function judgeBuilds(builds: readonly RecordedBuild[], figures: Figures): Verdict[] {
  return builds.map((b): Verdict => {
    const what = `${b.name} ${b.version ?? ''}`.trim();
    const took = `${b.seconds} s`;
    const range = figures[b.name];
    if (!range) return { verdict: 'skip', line: `${what}: ${took}; no stated figure` };
    if (b.goCaches !== 'cold')
      return {
        verdict: 'skip',
        line: `${what}: ${took}; Go caches ${b.goCaches ?? 'unknown'} at the start, not a cold build`,
      };
    if (b.loadPerCore === undefined || b.loadPerCore > BUSY_LOAD_PER_CORE)
      return {
        verdict: 'skip',
        line: `${what}: ${took}; busy machine (load ${b.loadPerCore ?? 'unknown'} per core), not judged`,
      };
    const [low, high] = range;
    const stated = low === high ? `about ${low} s` : `${low}-${high} s`;
    if (b.seconds > high * MARGIN)
      return {
        verdict: 'fail',
        line: `${what}: a cold build took ${took}, more than ${MARGIN}x the stated ${stated}: measure again and update tools/envtest/cold-build-seconds.json and the README`,
      };
    if (b.cores !== undefined && b.cores <= 2 && b.seconds < low / MARGIN)
      return {
        verdict: 'fail',
        line: `${what}: a cold build on ${b.cores} cores took ${took}, under half the stated ${stated}: measure again and update tools/envtest/cold-build-seconds.json and the README`,
      };
    return { verdict: 'ok', line: `${what}: a cold build took ${took}; stated ${stated}` };
  });
}

/** build-times.json as setup:envtest writes it (scripts/setup-envtest.mjs, recordBuild). */
export function buildTimesFile(env: NodeJS.ProcessEnv = process.env): string {
  return join(
    env.OP_GEN_ENVTEST_DIR ?? join(env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'op-gen', 'envtest'),
    'build-times.json',
  );
}

if (import.meta.main) {
  const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
  const figures = (
    JSON.parse(readFileSync(join(root, 'tools', 'envtest', 'cold-build-seconds.json'), 'utf8')) as {
      seconds: Figures;
    }
  ).seconds;
  const file = buildTimesFile();
  const args = process.argv.slice(2);
  const since = args[0] === '--since' ? Number(args[1]) * 1000 : 0;
  if (args.length > 0 && (args[0] !== '--since' || !Number.isFinite(since))) {
    process.stderr.write('usage: node scripts/check-build-times.ts [--since <unix seconds>]\n');
    process.exit(2);
  }
  const recorded = existsSync(file)
    ? ((JSON.parse(readFileSync(file, 'utf8')) as { builds?: RecordedBuild[] }).builds ?? [])
    : [];
  const builds = recorded.filter((b) => Date.parse(b.at) >= since);
  if (builds.length === 0) {
    process.stdout.write(
      `check-build-times: no build recorded in ${file}${since ? ' by this run' : ''} (a warm cache); nothing to judge\n`,
    );
    process.exit(0);
  }
  const verdicts = judgeBuilds(builds, figures);
  for (const v of verdicts) process.stdout.write(`check-build-times: ${v.verdict.toUpperCase()} ${v.line}\n`);
  const failed = verdicts.filter((v) => v.verdict === 'fail').length;
  if (failed > 0) {
    process.stderr.write(`check-build-times: ${failed} cold build(s) outside the README's figures\n`);
    process.exit(1);
  }
}
