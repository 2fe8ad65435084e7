/**
 * A small SVG line-chart writer for the bench's figures (no dependencies): one or more series of
 * (x, y) points, linear or log-10 x axis, y from 0, ticks, a legend, an optional dashed reference
 * line (a target). Output is deterministic text, so charts diff cleanly in git.
 */

export interface Series {
  readonly name: string;
  readonly points: readonly (readonly [number, number])[];
  /** CSS colour; a palette colour when absent. */
  readonly color?: string;
}

export interface LineChart {
  readonly title: string;
  readonly xLabel: string;
  readonly yLabel: string;
  readonly series: readonly Series[];
  readonly logX?: boolean;
  /** Labels for x values (e.g. dates) instead of numbers. */
  readonly xTickLabels?: ReadonlyMap<number, string>;
  /** A horizontal dashed line, e.g. a target ratio. */
  readonly reference?: { readonly y: number; readonly label: string };
  readonly width?: number;
  readonly height?: number;
}

const PALETTE = ['#1f77b4', '#d62728', '#2ca02c', '#ff7f0e', '#9467bd', '#8c564b'];

function escapeXml(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** A number for SVG attributes: at most 1 decimal, no trailing zeros. */
function n(v: number): string {
  return String(Math.round(v * 10) / 10);
}

/** Round tick steps (1, 2, 5 × 10^k) giving about `count` ticks from 0 to max. */
export function niceTicks(max: number, count = 5): number[] {
  if (!(max > 0)) return [0, 1];
  const raw = max / count;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * mag).find((s) => s >= raw) ?? 10 * mag;
  const ticks: number[] = [];
  for (let t = 0; t <= max + step * 1e-9; t += step) ticks.push(Number(t.toPrecision(12)));
  if (ticks[ticks.length - 1]! < max) ticks.push(Number((ticks[ticks.length - 1]! + step).toPrecision(12)));
  return ticks;
}

function formatTick(v: number): string {
  if (v === 0) return '0';
  if (Math.abs(v) >= 1000) return `${Number((v / 1000).toPrecision(3))}k`;
  return String(Number(v.toPrecision(3)));
}

export function lineChart(chart: LineChart): string {
  const width = chart.width ?? 640;
  // The legend wraps: as many entries per row as fit (about 6.6 px a character), a row each 18 px.
  const legendColumn = Math.max(...chart.series.map((s) => s.name.length * 6.6 + 30), 120);
  const perRow = Math.max(1, Math.floor((width - 80) / legendColumn));
  const legendRows = Math.max(1, Math.ceil(chart.series.length / perRow));
  const height = (chart.height ?? 360) + (legendRows - 1) * 18;
  const m = { left: 64, right: 16, top: 36, bottom: 72 + (legendRows - 1) * 18 };
  const plotW = width - m.left - m.right;
  const plotH = height - m.top - m.bottom;
  const all = chart.series.flatMap((s) => s.points);
  const xs = all.map(([x]) => x);
  const ys = [...all.map(([, y]) => y), chart.reference?.y ?? 0];
  const fx = chart.logX ? (v: number): number => Math.log10(v) : (v: number): number => v;
  const xMin = xs.length > 0 ? Math.min(...xs.map(fx)) : 0;
  const xMax = xs.length > 0 ? Math.max(...xs.map(fx)) : 1;
  const yTicks = niceTicks(Math.max(...ys) * 1.05);
  const yMax = yTicks[yTicks.length - 1]!;
  const px = (x: number): number =>
    m.left + (xMax === xMin ? plotW / 2 : ((fx(x) - xMin) / (xMax - xMin)) * plotW);
  const py = (y: number): number => m.top + plotH - (y / yMax) * plotH;

  const out: string[] = [];
  out.push(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="12">`,
    `<rect width="${width}" height="${height}" fill="white"/>`,
    `<text x="${n(width / 2)}" y="20" text-anchor="middle" font-size="14" font-weight="bold">${escapeXml(chart.title)}</text>`,
  );
  // Grid and y ticks.
  for (const t of yTicks) {
    out.push(
      `<line x1="${m.left}" y1="${n(py(t))}" x2="${m.left + plotW}" y2="${n(py(t))}" stroke="#ddd"/>`,
      `<text x="${m.left - 6}" y="${n(py(t) + 4)}" text-anchor="end">${formatTick(t)}</text>`,
    );
  }
  // X ticks: every distinct x value.
  for (const x of [...new Set(xs)].sort((a, b) => a - b)) {
    const label = chart.xTickLabels?.get(x) ?? formatTick(x);
    out.push(
      `<line x1="${n(px(x))}" y1="${m.top + plotH}" x2="${n(px(x))}" y2="${m.top + plotH + 4}" stroke="#333"/>`,
      `<text x="${n(px(x))}" y="${m.top + plotH + 16}" text-anchor="middle">${escapeXml(label)}</text>`,
    );
  }
  out.push(
    `<line x1="${m.left}" y1="${m.top + plotH}" x2="${m.left + plotW}" y2="${m.top + plotH}" stroke="#333"/>`,
    `<line x1="${m.left}" y1="${m.top}" x2="${m.left}" y2="${m.top + plotH}" stroke="#333"/>`,
    `<text x="${n(m.left + plotW / 2)}" y="${m.top + plotH + 34}" text-anchor="middle">${escapeXml(chart.xLabel)}</text>`,
    `<text x="14" y="${n(m.top + plotH / 2)}" text-anchor="middle" transform="rotate(-90 14 ${n(m.top + plotH / 2)})">${escapeXml(chart.yLabel)}</text>`,
  );
  if (chart.reference) {
    const y = py(chart.reference.y);
    out.push(
      `<line x1="${m.left}" y1="${n(y)}" x2="${m.left + plotW}" y2="${n(y)}" stroke="#555" stroke-dasharray="6 4"/>`,
      `<text x="${m.left + plotW - 4}" y="${n(y - 5)}" text-anchor="end" fill="#555">${escapeXml(chart.reference.label)}</text>`,
    );
  }
  chart.series.forEach((s, i) => {
    const color = s.color ?? PALETTE[i % PALETTE.length]!;
    const pts = [...s.points].sort((a, b) => a[0] - b[0]);
    if (pts.length > 1) {
      out.push(
        `<polyline fill="none" stroke="${color}" stroke-width="2" points="${pts.map(([x, y]) => `${n(px(x))},${n(py(y))}`).join(' ')}"/>`,
      );
    }
    for (const [x, y] of pts) out.push(`<circle cx="${n(px(x))}" cy="${n(py(y))}" r="3.5" fill="${color}"/>`);
    // Legend below the axis label, one entry per series.
    const lx = m.left + (i % perRow) * legendColumn;
    const ly = height - 14 - (legendRows - 1 - Math.floor(i / perRow)) * 18;
    out.push(
      `<rect x="${lx}" y="${ly - 9}" width="14" height="4" fill="${color}"/>`,
      `<text x="${lx + 20}" y="${ly - 3}">${escapeXml(s.name)}</text>`,
    );
  });
  out.push('</svg>');
  return `${out.join('\n')}\n`;
}
