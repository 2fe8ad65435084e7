/**
 * CLI latency as a user feels it: `op-gen --help`, each `generate` command on a freshly scaffolded
 * project (`op-gen init` + `create api`, no npm install), and `create api` itself (which runs its
 * generators), each a fresh `node bin/op-gen.js` process on the built dist/ with a warm compile
 * cache. The commands take turns within each round (the order rotates), so machine load hits them
 * alike; `node -e 0` is measured in the same rounds as the floor any Node CLI pays.
 * Run alone: `node bench/compare/cli-latency.ts [--runs 7]`.
 */
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { summarize, type Summary } from './peak-rss.ts';
import { measure, ROOT, type Measured } from './tools.ts';

export interface LatencyRow {
  readonly command: string;
  readonly targetMs?: number;
  readonly wallMs: Summary;
  readonly peakRssMb: Summary;
  readonly met?: boolean;
  /** Median minus the median of `node -e 0` in the same rounds: what the command costs beyond Node's start. */
  readonly overFloorMs?: number;
}

export interface CliLatency {
  readonly runs: number;
  readonly rows: readonly LatencyRow[];
}

const OP_GEN = join(ROOT, 'bin/op-gen.js');

interface Case {
  readonly command: string;
  readonly targetMs?: number;
  /** Runs once; `project` is a fresh copy of the scaffold when `fresh`, else the shared one. */
  readonly args: readonly string[];
  readonly fresh?: 'initialized';
  readonly node?: boolean;
}

const CREATE_API = ['create', 'api', '--group', 'cache', '--version', 'v1alpha1', '--kind', 'Memcached'];

const CASES: readonly Case[] = [
  { command: 'node -e 0 (floor)', args: ['-e', '0'], node: true },
  { command: 'op-gen --help', targetMs: 100, args: ['--help'] },
  { command: 'op-gen generate crd', targetMs: 300, args: ['generate', 'crd'] },
  { command: 'op-gen generate rbac', targetMs: 300, args: ['generate', 'rbac'] },
  { command: 'op-gen generate client', targetMs: 300, args: ['generate', 'client'] },
  { command: 'op-gen generate webhook', targetMs: 300, args: ['generate', 'webhook'] },
  {
    command: 'op-gen generate types',
    targetMs: 300,
    args: ['generate', 'types', '--from', 'config/crd/bases', '--out', 'src/types'],
  },
  { command: 'op-gen create api', targetMs: 1000, args: CREATE_API, fresh: 'initialized' },
];

async function op(args: readonly string[], cwd: string): Promise<Measured> {
  return measure(process.execPath, [OP_GEN, ...args], cwd);
}

export async function measureCliLatency(options: { runs: number }): Promise<CliLatency> {
  const work = mkdtempSync(join(tmpdir(), 'op-gen-bench-cli-'));
  try {
    const initialized = join(work, 'initialized');
    await op(['init', 'memcached-operator', '--domain', 'example.com', '--skip-install'], work);
    cpSync(join(work, 'memcached-operator'), initialized, { recursive: true });
    const project = join(work, 'memcached-operator');
    await op(CREATE_API, project);

    const runCase = async (c: Case, i: number): Promise<Measured> => {
      if (c.node) return measure(process.execPath, c.args, work);
      if (c.fresh === 'initialized') {
        const dir = join(work, `fresh-${i}`);
        cpSync(initialized, dir, { recursive: true });
        try {
          return await op(c.args, dir);
        } finally {
          rmSync(dir, { recursive: true, force: true });
        }
      }
      return op(c.args, project);
    };
    // One untimed round: the compile cache and the file cache.
    for (const c of CASES) await runCase(c, -1);
    const results = new Map<Case, Measured[]>(CASES.map((c) => [c, []]));
    for (let i = 0; i < options.runs; i++) {
      for (let j = 0; j < CASES.length; j++) {
        const c = CASES[(i + j) % CASES.length]!;
        results.get(c)!.push(await runCase(c, i));
      }
    }
    const floor = summarize(results.get(CASES.find((c) => c.node)!)!.map((m) => m.wallMs)).median;
    return {
      runs: options.runs,
      rows: CASES.map((c) => {
        const wallMs = summarize(results.get(c)!.map((m) => m.wallMs));
        return {
          command: c.command,
          ...(c.targetMs === undefined ? {} : { targetMs: c.targetMs, met: wallMs.median <= c.targetMs }),
          wallMs,
          peakRssMb: summarize(results.get(c)!.map((m) => m.peakRssMb)),
          ...(c.node ? {} : { overFloorMs: Math.round(wallMs.median - floor) }),
        };
      }),
    };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

export function printCliLatency(r: CliLatency): void {
  console.log(
    `\nCLI latency on a fresh scaffold, ${r.runs} rounds, commands alternating (wall ms min / median / max)`,
  );
  for (const row of r.rows) {
    const target =
      row.targetMs === undefined ? '' : `  target ≤ ${row.targetMs}: ${row.met ? 'met' : 'NOT met'}`;
    const own = row.overFloorMs === undefined ? '' : `  (+${row.overFloorMs} over Node's start)`;
    console.log(
      `  ${row.command.padEnd(26)} ${row.wallMs.min.toFixed(0)} / ${row.wallMs.median.toFixed(0)} / ${row.wallMs.max.toFixed(0)}   RSS ${row.peakRssMb.median.toFixed(0)} MB${target}${own}`,
    );
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({ options: { runs: { type: 'string', default: '7' } } });
  printCliLatency(await measureCliLatency({ runs: Number(values.runs) }));
}
