// Mutation testing of the modules where a wrong answer is silent (issue 35 item 3).
//
//   npm run test:mutation                       every module, incremental
//   npm run test:mutation -- workqueue sharding  only these modules
//   npm run test:mutation -- --force             every mutant again (what the committed scores are)
//   npm run test:mutation -- --survivors         only the mutants not killed last time (after adding tests)
//   npm run test:mutation -- --timeouts --timeout-ms=30000
//                                                the mutants that timed out again, with a longer time-out
//                                                (on a loaded machine a slow run of the tests is a time-out)
//   npm run test:mutation -- --list              the modules, their source and test files
//   npm run test:mutation -- --show=rbac:226     one mutant of a committed report: where, what, status
//   npm run test:mutation -- --show=rbac         every mutant of the report not detected (survivors)
//
// Each module runs StrykerJS's command runner over `node --test <that module's unit tests>` (in one
// process: --test-isolation=none, half the start-up cost of a mutant) in
// Stryker's sandbox (.stryker-tmp/): the tests import the instrumented src/*.ts there, which
// Node's type stripping runs as it runs the originals. The report of each module is also its
// incremental file (reports/mutation/<module>.json): an unchanged mutant keeps its last result.
// The command runner reports no per-test coverage, so Stryker cannot see a changed test file;
// this script can: when a module's test files differ from the ones of its recorded run (their
// SHA-256 in reports/mutation/runs.json), the whole module runs again.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { Stryker } from '@stryker-mutator/core';

/** Stryker's LogLevel, a string enum of its API package (not a dependency of op-gen). */
type LogLevel = NonNullable<ConstructorParameters<typeof Stryker>[0]['logLevel']>;

interface MutationModule {
  readonly name: string;
  readonly what: string;
  readonly mutate: readonly string[];
  readonly tests: readonly string[];
  /** A slow test of those files left out of each mutant's run (--test-skip-pattern), with why. */
  readonly skip?: string;
  /** Stryker's timeoutMS for this module (added to 1.5 × the tests' own time), with why. */
  readonly timeoutMs?: number;
}

export const MODULES: readonly MutationModule[] = [
  {
    name: 'label-selector',
    what: 'label selector parser and matcher',
    mutate: ['src/client/label-selector.ts'],
    tests: ['test/unit/client/label-selector.test.ts', 'test/unit/client/label-selector-mutants.test.ts'],
  },
  {
    name: 'workqueue',
    what: 'workqueue and rate limiters',
    mutate: ['src/runtime/workqueue.ts', 'src/runtime/rate-limiter.ts'],
    tests: [
      'test/unit/runtime/workqueue.test.ts',
      'test/unit/runtime/priority-queue.test.ts',
      'test/unit/runtime/rate-limiter.test.ts',
      'test/unit/runtime/workqueue-mutants.test.ts',
    ],
  },
  {
    name: 'sharding',
    what: 'sharding slot assignment and the shard hash',
    mutate: ['src/runtime/sharding/assignment.ts', 'src/runtime/sharding/hash.ts'],
    tests: [
      'test/unit/runtime/sharding/assignment.test.ts',
      'test/unit/runtime/sharding/hash.test.ts',
      'test/unit/runtime/sharding/sharding-mutants.test.ts',
    ],
    // 200 assignments of 256 slots: two thirds of a mutant's run. It checks how many slots move
    // on a join; the pinned tables of sharding-mutants.test.ts pin every slot of the same code.
    skip: 'a join or leave moves about 1/N of the slots',
  },
  {
    name: 'shard-ring',
    what: 'the shard ring: claims, handoff and fencing',
    mutate: ['src/runtime/sharding/ring.ts'],
    tests: ['test/unit/runtime/sharding/ring.test.ts', 'test/unit/runtime/sharding/ring-mutants.test.ts'],
  },
  {
    name: 'webhook',
    what: 'webhook admission, JSON patch and conversion',
    mutate: [
      'src/runtime/webhook/admission.ts',
      // The one RFC 6902 module (src/json/) that the webhooks and kustomize share.
      'src/json/json-patch.ts',
      'src/runtime/webhook/conversion.ts',
    ],
    tests: [
      'test/unit/runtime/webhook/admission.test.ts',
      'test/unit/json/json-patch.test.ts',
      'test/unit/runtime/webhook/conversion.test.ts',
      'test/unit/runtime/webhook/webhook-mutants.test.ts',
    ],
  },
  {
    name: 'kustomize',
    what: 'kustomize transformers and patches',
    mutate: ['src/kustomize/transformers.ts', 'src/kustomize/strategic-merge.ts'],
    // Not oracle.test.ts: it needs the kustomize binary (setup:envtest) and would make the score
    // depend on whether it is installed.
    tests: ['test/unit/kustomize/render.test.ts', 'test/unit/kustomize/kustomize-mutants.test.ts'],
    // Under load a run slower than Stryker's default slack counted as a time-out (see crd-diff).
    timeoutMs: 20_000,
  },
  {
    name: 'markers',
    what: "markers' argument parsing",
    mutate: ['src/markers/args.ts'],
    tests: [
      'test/unit/markers/parse.test.ts',
      'test/unit/markers/go-form.test.ts',
      'test/unit/markers/args-mutants.test.ts',
    ],
  },
  {
    name: 'crd-diff',
    what: "crd diff's rules: schema keywords and CRD-level changes, acknowledgements",
    // The rule files and the acknowledgement matching; not load.ts/index.ts/report.ts (reading
    // files and git, printing), which the CLI tests cover.
    mutate: ['src/crd-diff/schema-diff.ts', 'src/crd-diff/diff-crds.ts', 'src/crd-diff/acknowledgements.ts'],
    // Not crdify-verdicts.test.ts (2.8 s a run, three times the others together: per mutant it
    // would triple the run) nor broken-crd-fuzz/cli-git/loader-errors (the CLI and loaders).
    tests: [
      'test/unit/crd-diff/rules.test.ts',
      'test/unit/crd-diff/never-silent.test.ts',
      'test/unit/crd-diff/properties.test.ts',
      'test/unit/crd-diff/acknowledgements.test.ts',
      'test/unit/crd-diff/crd-diff-mutants.test.ts',
    ],
    // Its tests take about 2.5 s a run on a quiet machine; with Stryker's default 5 s of slack, a
    // first run at load 25 timed out 198 of 618 mutants, most of them only slow, not endless.
    timeoutMs: 20_000,
  },
  {
    name: 'rbac',
    what: 'RBAC inference and rule merging',
    mutate: ['src/generate/rbac/infer-rules.ts', 'src/generate/rbac/merge-rules.ts'],
    tests: [
      'test/unit/rbac/infer-rules.test.ts',
      // .dependents([...]) is read in infer-rules.ts too (its verbs, the parent's finalizer).
      'test/unit/rbac/infer-dependents.test.ts',
      'test/unit/rbac/merge-rules.test.ts',
      'test/unit/rbac/rbac-mutants.test.ts',
    ],
    // Its tests build TypeScript programs (1.3 s a run quiet); at load 25, 21 of 26 time-outs were
    // only slow runs (a rerun with 30 s of slack: 15 killed, 6 survived, 5 still timed out).
    timeoutMs: 20_000,
  },
];

/** Each listed module must reach this score (killed + timed out, over all valid mutants). */
const FLOOR = 80;
const REPORT_DIR = 'reports/mutation';
const RUNS_FILE = `${REPORT_DIR}/runs.json`;
/** Kept of a killed mutant's test output in the committed report; the rest is noise for a diff. */
const REASON_CHARS = 160;

interface RunRecord {
  /** testsHash() when its mutants last ran. */
  testsHash: string;
  /** Seconds of the last run that tested every mutant, and its concurrency. */
  fullRunSeconds?: number;
  fullRunConcurrency?: number;
  fullRunAt?: string;
  lastRunSeconds: number;
  lastRunAt: string;
}

interface ReportMutant {
  id: string;
  status: string;
  statusReason?: string;
  location: { start: { line: number; column: number } };
  mutatorName: string;
  replacement?: string;
}
interface Report {
  files: Record<string, { source: string; mutants: ReportMutant[]; language: string }>;
  [key: string]: unknown;
}

const DETECTED = new Set(['Killed', 'Timeout']);
const UNDETECTED = new Set(['Survived', 'NoCoverage']);

export function score(report: Report): {
  mutants: number;
  killed: number;
  timeout: number;
  survived: number;
  noCoverage: number;
  errors: number;
  ignored: number;
  score: number;
} {
  const all = Object.values(report.files).flatMap((f) => f.mutants);
  const count = (s: string): number => all.filter((m) => m.status === s).length;
  const detected = all.filter((m) => DETECTED.has(m.status)).length;
  const undetected = all.filter((m) => UNDETECTED.has(m.status)).length;
  return {
    mutants: all.length,
    killed: count('Killed'),
    timeout: count('Timeout'),
    survived: count('Survived'),
    noCoverage: count('NoCoverage'),
    errors: count('CompileError') + count('RuntimeError'),
    ignored: count('Ignored'),
    score: detected + undetected === 0 ? 0 : (100 * detected) / (detected + undetected),
  };
}

function testCommand(tests: readonly string[], skip?: string): string {
  const skipping = skip === undefined ? '' : ` --test-skip-pattern=${JSON.stringify(skip)}`;
  return `node --test --test-isolation=none --test-reporter=dot${skipping} ${tests.join(' ')}`;
}

/** SHA-256 over the test command and the module's test files (path and content). */
function testsHash(m: MutationModule): string {
  const h = createHash('sha256');
  h.update(
    testCommand(
      m.tests.filter((t) => existsSync(t)),
      m.skip,
    ),
  );
  h.update('\0');
  for (const file of m.tests) {
    h.update(file);
    h.update('\0');
    h.update(existsSync(file) ? readFileSync(file) : '(missing)');
    h.update('\0');
  }
  return h.digest('hex');
}

function readJson<T>(file: string): T | undefined {
  return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as T) : undefined;
}

function writeAtomically(file: string, text: string): void {
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, text);
  renameSync(tmp, file);
}

/** One mutant a line, so that a rerun's diff shows which mutants changed status. */
function serializeReport(report: Report): string {
  const files = Object.entries(report.files).map(([name, file]) => {
    const mutants = file.mutants
      .map((m) => {
        const reason = m.statusReason;
        const trimmed =
          reason === undefined
            ? m
            : { ...m, statusReason: reason.slice(0, REASON_CHARS).replace(/\s+/g, ' ') };
        return `        ${JSON.stringify(trimmed)}`;
      })
      .join(',\n');
    const rest = JSON.stringify({ language: file.language, source: file.source }).slice(1, -1);
    return `    ${JSON.stringify(name)}: {${rest},\n      "mutants": [\n${mutants}\n      ]\n    }`;
  });
  // projectRoot is this machine's path: left out so that a run elsewhere writes the same file.
  const { files: _files, projectRoot: _root, ...top } = report;
  const head = JSON.stringify(top, null, 2).slice(0, -2);
  return `${head},\n  "files": {\n${files.join(',\n')}\n  }\n}\n`;
}

function parseArgs(argv: readonly string[]): {
  names: string[];
  force: boolean;
  survivors: boolean;
  timeouts: boolean;
  timeoutMs: number | undefined;
  list: boolean;
  show: string | undefined;
  concurrency: number;
} {
  const names: string[] = [];
  let force = false;
  let survivors = false;
  let timeouts = false;
  let timeoutMs: number | undefined;
  let list = false;
  let show: string | undefined;
  let concurrency = 2;
  const problems: string[] = [];
  for (const arg of argv) {
    if (arg === '--force') force = true;
    else if (arg === '--survivors') survivors = true;
    else if (arg === '--timeouts') timeouts = true;
    else if (arg === '--list') list = true;
    else if (arg.startsWith('--show=')) show = arg.slice('--show='.length);
    else if (arg.startsWith('--timeout-ms=')) {
      timeoutMs = Number(arg.slice('--timeout-ms='.length));
      if (!Number.isInteger(timeoutMs) || timeoutMs < 1)
        problems.push(`${arg}: a positive integer (milliseconds) is needed`);
    } else if (arg.startsWith('--concurrency=')) {
      concurrency = Number(arg.slice('--concurrency='.length));
      if (!Number.isInteger(concurrency) || concurrency < 1)
        problems.push(`${arg}: a positive integer is needed`);
    } else if (MODULES.some((m) => m.name === arg)) names.push(arg);
    else problems.push(`${arg}: not a module (${MODULES.map((m) => m.name).join(', ')}) nor an option`);
  }
  if (force && (survivors || timeouts)) problems.push('--force excludes --survivors and --timeouts');
  if (problems.length > 0) {
    for (const p of problems) console.error(`test:mutation: ${p}`);
    process.exit(2);
  }
  return {
    names: names.length > 0 ? names : MODULES.map((m) => m.name),
    force,
    survivors,
    timeouts,
    timeoutMs,
    list,
    show,
    concurrency,
  };
}

function writeSummary(runs: Record<string, RunRecord>): void {
  const lines = [
    '# Mutation scores',
    '',
    'Written by `npm run test:mutation` (scripts/mutation.ts); the per-mutant results are in',
    "`<module>.json` next to this file (also Stryker's incremental file).",
    '',
    '| module | mutated files | mutants | killed | timeout | survived | no coverage | errors | ignored | score | full run | last run |',
    '| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
  ];
  for (const m of MODULES) {
    const report = readJson<Report>(`${REPORT_DIR}/${m.name}.json`);
    if (report === undefined) {
      lines.push(
        `| ${m.name} | ${m.mutate.map((f) => f.replace(/^src\//, '')).join(', ')} | not run | | | | | | | | | |`,
      );
      continue;
    }
    const s = score(report);
    const run = runs[m.name];
    const time =
      run?.fullRunSeconds === undefined
        ? 'n/a'
        : `${Math.round(run.fullRunSeconds)} s (concurrency ${run.fullRunConcurrency})`;
    lines.push(
      `| ${m.name} | ${m.mutate.map((f) => f.replace(/^src\//, '')).join(', ')} | ${s.mutants} | ${s.killed} | ${s.timeout} | ${s.survived} | ${s.noCoverage} | ${s.errors} | ${s.ignored} | ${s.score.toFixed(2)} % | ${time} | ${run === undefined ? 'n/a' : `${Math.round(run.lastRunSeconds)} s`} |`,
    );
  }
  writeAtomically(`${REPORT_DIR}/summary.md`, `${lines.join('\n')}\n`);
}

/** How a module runs: which recorded results are dropped so that those mutants run again. */
interface RunOptions {
  readonly mode: 'incremental' | 'force' | 'retest';
  /** With mode retest: the undetected mutants run again. */
  readonly survivors: boolean;
  /** With mode retest: the mutants that timed out run again. */
  readonly timeouts: boolean;
  readonly timeoutMs: number | undefined;
  readonly concurrency: number;
}

async function runModule(m: MutationModule, run: RunOptions, runs: Record<string, RunRecord>): Promise<void> {
  const { mode, concurrency } = run;
  const reportFile = `${REPORT_DIR}/${m.name}.json`;
  const hash = testsHash(m);
  const previous = runs[m.name];
  let force = mode === 'force' || !existsSync(reportFile);
  if (mode === 'incremental' && !force && previous?.testsHash !== hash) {
    console.log(
      `test:mutation: ${m.name}: its test files changed since the recorded run; every mutant runs again`,
    );
    force = true;
  }
  if (mode === 'retest' && !force) {
    // Drop those mutants from the incremental file: Stryker then tests them again.
    const again = (status: string): boolean =>
      (run.survivors && UNDETECTED.has(status)) || (run.timeouts && status === 'Timeout');
    const report = readJson<Report>(reportFile);
    if (report !== undefined) {
      for (const file of Object.values(report.files)) {
        file.mutants = file.mutants.filter((x) => !again(x.status));
      }
      writeAtomically(reportFile, serializeReport(report));
    }
  }
  const missing = m.tests.filter((t) => !existsSync(t));
  const tests = m.tests.filter((t) => existsSync(t));
  if (missing.length > 0)
    console.log(`test:mutation: ${m.name}: not yet written, skipped: ${missing.join(', ')}`);
  const started = performance.now();
  const stryker = new Stryker({
    testRunner: 'command',
    commandRunner: { command: testCommand(tests, m.skip) },
    coverageAnalysis: 'off',
    mutate: [...m.mutate],
    concurrency,
    ...((run.timeoutMs ?? m.timeoutMs) === undefined ? {} : { timeoutMS: run.timeoutMs ?? m.timeoutMs }),
    incremental: true,
    incrementalFile: reportFile,
    force,
    reporters: ['clear-text', 'progress-append-only'],
    clearTextReporter: { allowColor: false, logTests: false, reportScoreTable: true },
    thresholds: { high: 90, low: FLOOR, break: null },
    tempDirName: `.stryker-tmp/${m.name}`,
    cleanTempDir: true,
    // .stryker-tmp: the sandboxes of other modules' runs (Stryker ignores only its own temp dir).
    ignorePatterns: ['dist', 'bench', 'docs', 'reports', '.cache', '.stryker-tmp'],
    plugins: ['@stryker-mutator/*', fileURLToPath(new URL('./mutation-ignore-logs.ts', import.meta.url))],
    ignorers: ['op-gen-log-calls'],
    logLevel: 'warn' as LogLevel,
    fileLogLevel: 'off' as LogLevel,
  });
  await stryker.runMutationTest();
  const seconds = (performance.now() - started) / 1000;
  const report = readJson<Report>(reportFile);
  if (report === undefined) throw new Error(`${reportFile}: Stryker wrote no incremental file`);
  writeAtomically(reportFile, serializeReport(report));
  const now = new Date().toISOString();
  runs[m.name] = {
    testsHash: hash,
    ...(force
      ? { fullRunSeconds: seconds, fullRunConcurrency: concurrency, fullRunAt: now }
      : {
          fullRunSeconds: previous?.fullRunSeconds,
          fullRunConcurrency: previous?.fullRunConcurrency,
          fullRunAt: previous?.fullRunAt,
        }),
    lastRunSeconds: seconds,
    lastRunAt: now,
  };
  const s = score(report);
  console.log(
    `test:mutation: ${m.name}: ${s.score.toFixed(2)} % (${s.killed} killed, ${s.timeout} timed out, ${s.survived} survived, ${s.noCoverage} not covered of ${s.mutants}) in ${Math.round(seconds)} s${force ? '' : ' (incremental)'}`,
  );
}

/** One line per mutant: `file:line:col #id Mutator → replacement: Status (reason)`. */
function showMutants(spec: string): number {
  const [name = '', id] = spec.split(':');
  const report = readJson<Report>(`${REPORT_DIR}/${name}.json`);
  if (report === undefined) {
    console.error(`test:mutation: --show=${spec}: no report ${REPORT_DIR}/${name}.json`);
    return 2;
  }
  let shown = 0;
  for (const [file, { mutants }] of Object.entries(report.files)) {
    for (const m of mutants) {
      if (id === undefined ? DETECTED.has(m.status) || m.status === 'Ignored' : m.id !== id) continue;
      const { line, column } = m.location.start;
      const reason = m.statusReason === undefined ? '' : ` (${m.statusReason})`;
      console.log(
        `${file}:${line}:${column} #${m.id} ${m.mutatorName} → ${JSON.stringify(m.replacement ?? '')}: ${m.status}${reason}`,
      );
      shown++;
    }
  }
  if (id !== undefined && shown === 0) {
    console.error(`test:mutation: --show=${spec}: no mutant ${id} in ${REPORT_DIR}/${name}.json`);
    return 1;
  }
  return 0;
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  if (args.show !== undefined) {
    process.exitCode = showMutants(args.show);
    return;
  }
  if (args.list) {
    for (const m of MODULES)
      console.log(`${m.name}: ${m.what}\n  mutate: ${m.mutate.join(' ')}\n  tests:  ${m.tests.join(' ')}`);
    return;
  }
  mkdirSync(REPORT_DIR, { recursive: true });
  const runs = readJson<Record<string, RunRecord>>(RUNS_FILE) ?? {};
  const mode = args.force ? 'force' : args.survivors || args.timeouts ? 'retest' : 'incremental';
  for (const name of args.names) {
    const m = MODULES.find((x) => x.name === name);
    if (m === undefined) continue;
    await runModule(
      m,
      {
        mode,
        survivors: args.survivors,
        timeouts: args.timeouts,
        timeoutMs: args.timeoutMs,
        concurrency: args.concurrency,
      },
      runs,
    );
    // Re-read: another module may have finished meanwhile in a second `npm run test:mutation`.
    const latest = { ...(readJson<Record<string, RunRecord>>(RUNS_FILE) ?? {}), [m.name]: runs[m.name]! };
    writeAtomically(RUNS_FILE, `${JSON.stringify(latest, null, 2)}\n`);
    writeSummary(latest);
  }
  const below: string[] = [];
  for (const name of args.names) {
    const report = readJson<Report>(`${REPORT_DIR}/${name}.json`);
    const s = report === undefined ? undefined : score(report);
    if (s === undefined || s.score < FLOOR)
      below.push(`${name} ${s === undefined ? 'has no report' : `${s.score.toFixed(2)} %`}`);
  }
  if (below.length > 0) {
    console.error(
      `test:mutation: below the ${FLOOR} % floor: ${below.join('; ')} (survivors: reports/mutation/<module>.json)`,
    );
    process.exitCode = 1;
  }
}

await main();
