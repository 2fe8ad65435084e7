/**
 * `node bench/metrics-memory.ts --before <dir> [--runs 3]`: the memory cost of the runtime's metrics,
 * without a control plane. Runs a child process per side, alternating: it loads `<dir>/dist/runtime/metrics.js`
 * (before: another checkout's build; after: this one's) metrics module alone, makes the manager's metrics (with the process
 * and Node.js metrics where the build has them), records the series 10,000 reconciles of 2,000
 * objects in 4 controllers would, renders /metrics every 1,000 reconciles (a scrape), and reports its
 * peak RSS. Prints the median of each side and their ratio.
 */
import { spawnSync } from 'node:child_process';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';

const ROOT = resolve(import.meta.dirname, '..');

interface ChildResult {
  readonly peakRssMb: number;
  readonly renderedBytes: number;
}

async function child(dist: string): Promise<void> {
  const runtime = (await import(join(dist, 'runtime/metrics.js'))) as {
    RuntimeMetrics: new () => {
      registry: { render(): string | Promise<string>; collectDefaults?: () => void };
      reconcileTotal: { inc(labels: Record<string, string>): void };
      reconcileTime: { observe(labels: Record<string, string>, v: number): void };
      workqueueAdds: { inc(labels: Record<string, string>): void };
      workqueueDepth: { set(labels: Record<string, string>, v: number): void };
      workqueueLatency: { observe(labels: Record<string, string>, v: number): void };
      workqueueWorkDuration: { observe(labels: Record<string, string>, v: number): void };
    };
  };
  const m = new runtime.RuntimeMetrics();
  m.registry.collectDefaults?.();
  let rendered = 0;
  for (let i = 0; i < 10_000; i++) {
    const c = `controller-${i % 4}`;
    const controller = { controller: c };
    const queue = { name: c };
    m.workqueueAdds.inc(queue);
    m.workqueueDepth.set(queue, i % 2000);
    m.workqueueLatency.observe(queue, (i % 100) / 1000);
    m.reconcileTotal.inc({ controller: c, result: i % 10 === 0 ? 'error' : 'success' });
    m.reconcileTime.observe(controller, (i % 50) / 1000);
    m.workqueueWorkDuration.observe(queue, (i % 50) / 1000);
    if (i % 1000 === 999) {
      rendered = (await m.registry.render()).length;
      await new Promise((r) => setImmediate(r));
    }
  }
  const result: ChildResult = {
    peakRssMb: process.resourceUsage().maxRSS / 1024,
    renderedBytes: rendered,
  };
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

const { values } = parseArgs({
  options: {
    before: { type: 'string' },
    runs: { type: 'string', default: '3' },
    child: { type: 'string' },
  },
});
if (values.child) {
  await child(values.child);
} else {
  if (!values.before) throw new Error('--before <checkout with a dist/ build> is required');
  const sides = { before: join(resolve(values.before), 'dist'), after: join(ROOT, 'dist') };
  const results: Record<keyof typeof sides, ChildResult[]> = { before: [], after: [] };
  for (let run = 0; run < Number(values.runs); run++) {
    for (const side of ['before', 'after'] as const) {
      const r = spawnSync(process.execPath, [import.meta.filename, '--child', sides[side]], {
        encoding: 'utf8',
      });
      if (r.status !== 0) throw new Error(`${side} run failed:\n${r.stderr}`);
      results[side].push(JSON.parse(r.stdout.trim().split('\n').at(-1)!) as ChildResult);
    }
  }
  const before = median(results.before.map((r) => r.peakRssMb));
  const after = median(results.after.map((r) => r.peakRssMb));
  console.log(
    JSON.stringify(
      { runs: results, medianPeakRssMb: { before, after }, ratio: Number((after / before).toFixed(3)) },
      null,
      2,
    ),
  );
}
