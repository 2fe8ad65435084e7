/**
 * The charts docs/performance.md embeds, written from bench/results/*.json by `npm run bench:compare`
 * (or alone: `node bench/compare/charts.ts`): CRD generation time and peak RSS against the number
 * of kinds for op-gen and controller-gen, and the ratios to the anchors over time.
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { lineChart, type Series } from './svg-chart.ts';
import { ROOT } from './tools.ts';

interface SummaryJson {
  readonly median: number;
}
interface CrdJson {
  readonly kinds: number;
  readonly opGen: { readonly wallMs: SummaryJson; readonly peakRssMb: SummaryJson };
  readonly controllerGen?: { readonly wallMs: SummaryJson; readonly peakRssMb: SummaryJson };
  readonly wallRatio?: number;
  readonly rssRatio?: number;
}
interface ResultJson {
  readonly date: string;
  readonly crd?: CrdJson;
  readonly crdScaling?: readonly CrdJson[];
  readonly types?: {
    readonly cases: readonly { readonly name: string; readonly wallRatioVsCdk8s?: number }[];
  };
  readonly runtime?: {
    readonly summary: readonly {
      readonly workers: number;
      readonly timeRatio?: number;
      readonly rssRatio?: number;
    }[];
  };
}

export const CHART_DIR = join(ROOT, 'docs/perf');

function readResults(dir: string): ResultJson[] {
  return readdirSync(dir)
    .filter((f) => /^\d{4}-\d{2}-\d{2}.*\.json$/.test(f))
    .map((f) => JSON.parse(readFileSync(join(dir, f), 'utf8')) as ResultJson)
    .filter((r) => r.crd !== undefined && typeof r.date === 'string')
    .sort((a, b) => a.date.localeCompare(b.date));
}

/** Writes the SVG files; returns their paths relative to the repository. */
export function writeCharts(resultsDir = join(ROOT, 'bench/results'), outDir = CHART_DIR): string[] {
  const results = readResults(resultsDir);
  mkdirSync(outDir, { recursive: true });
  const written: string[] = [];
  const write = (name: string, svg: string): void => {
    writeFileSync(join(outDir, name), svg);
    written.push(`docs/perf/${name}`);
  };

  const latestScaling = [...results].reverse().find((r) => r.crdScaling && r.crdScaling.length > 1);
  if (latestScaling?.crdScaling) {
    const rows = latestScaling.crdScaling;
    const curve = (metric: 'wallMs' | 'peakRssMb'): Series[] => [
      { name: 'op-gen generate crd', points: rows.map((r) => [r.kinds, r.opGen[metric].median]) },
      {
        name: 'controller-gen v0.23.0',
        points: rows.flatMap((r) =>
          r.controllerGen ? [[r.kinds, r.controllerGen[metric].median] as const] : [],
        ),
      },
    ];
    const when = latestScaling.date.slice(0, 16).replace('T', ' ');
    write(
      'crd-scaling-wall.svg',
      lineChart({
        title: `CRD generation time by number of kinds (20 fields each), ${when} UTC`,
        xLabel: 'kinds (log scale)',
        yLabel: 'wall ms (median)',
        logX: true,
        series: curve('wallMs'),
      }),
    );
    write(
      'crd-scaling-rss.svg',
      lineChart({
        title: `CRD generation peak RSS by number of kinds, ${when} UTC`,
        xLabel: 'kinds (log scale)',
        yLabel: 'peak RSS MB (median)',
        logX: true,
        series: curve('peakRssMb'),
      }),
    );
  }

  const times = results.map((r) => Date.parse(r.date));
  const labels = new Map(results.map((r, i) => [times[i]!, r.date.slice(5, 16).replace('T', ' ')]));
  const ratioSeries: Series[] = [
    {
      name: 'generate crd / controller-gen, wall',
      points: results.flatMap((r, i) => (r.crd?.wallRatio ? [[times[i]!, r.crd.wallRatio] as const] : [])),
    },
    {
      name: 'generate crd / controller-gen, RSS',
      points: results.flatMap((r, i) => (r.crd?.rssRatio ? [[times[i]!, r.crd.rssRatio] as const] : [])),
    },
    {
      name: 'generate types / cdk8s import (2 MB CRD)',
      points: results.flatMap((r, i) => {
        const ratio = r.types?.cases.find((c) => c.name.startsWith('Pipeline'))?.wallRatioVsCdk8s;
        return ratio ? [[times[i]!, ratio] as const] : [];
      }),
    },
    ...(['timeRatio', 'rssRatio'] as const).map((field) => ({
      name: `runtime / controller-runtime, ${field === 'timeRatio' ? 'time' : 'RSS'} (1 worker)`,
      points: results.flatMap((r, i) => {
        const ratio = r.runtime?.summary.find((s) => s.workers === 1)?.[field];
        return ratio ? [[times[i]!, ratio] as const] : [];
      }),
    })),
  ].filter((s) => s.points.length > 0);
  write(
    'ratios-over-time.svg',
    lineChart({
      title: 'op-gen / anchor, ratio of medians per bench:compare run',
      xLabel: 'run (UTC)',
      yLabel: 'ratio (lower is better)',
      xTickLabels: labels,
      reference: { y: 0.5, label: 'target 0.5' },
      series: ratioSeries,
      width: 720,
    }),
  );
  return written;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const f of writeCharts()) console.log(`wrote ${f}`);
}
