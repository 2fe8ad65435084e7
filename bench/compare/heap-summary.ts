/**
 * A V8 heap snapshot (.heapsnapshot, as `node --heapsnapshot-signal` or v8.writeHeapSnapshot write it)
 * summarised by constructor: count and self size of the objects of each, largest first. Run alone:
 * `node bench/compare/heap-summary.ts <file> [--top 25]`.
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

interface Snapshot {
  snapshot: { meta: { node_fields: string[]; node_types: [string[], ...unknown[]] } };
  nodes: number[];
  strings: string[];
}

export interface HeapRow {
  /** Constructor name, or the node type in parentheses for strings, code, arrays, closures. */
  readonly name: string;
  readonly count: number;
  readonly selfBytes: number;
}

export function summarizeHeap(file: string): { totalBytes: number; rows: HeapRow[] } {
  const snap = JSON.parse(readFileSync(file, 'utf8')) as Snapshot;
  const fields = snap.snapshot.meta.node_fields;
  const types = snap.snapshot.meta.node_types[0];
  const width = fields.length;
  const typeAt = fields.indexOf('type');
  const nameAt = fields.indexOf('name');
  const sizeAt = fields.indexOf('self_size');
  const byName = new Map<string, { count: number; selfBytes: number }>();
  let totalBytes = 0;
  for (let i = 0; i < snap.nodes.length; i += width) {
    const type = types[snap.nodes[i + typeAt]!]!;
    const size = snap.nodes[i + sizeAt]!;
    totalBytes += size;
    // Objects by constructor; everything else by its node type (strings, arrays, code, closures...).
    const name = type === 'object' ? snap.strings[snap.nodes[i + nameAt]!]! : `(${type})`;
    const row = byName.get(name) ?? { count: 0, selfBytes: 0 };
    row.count++;
    row.selfBytes += size;
    byName.set(name, row);
  }
  const rows = [...byName].map(([name, r]) => ({ name, ...r })).sort((a, b) => b.selfBytes - a.selfBytes);
  return { totalBytes, rows };
}

export function printHeapSummary(summary: { totalBytes: number; rows: readonly HeapRow[] }, top = 25): void {
  console.log(`heap: ${(summary.totalBytes / 2 ** 20).toFixed(1)} MiB in objects`);
  console.log('constructor / kind                         count      self MiB   share');
  for (const r of summary.rows.slice(0, top)) {
    console.log(
      `${r.name.slice(0, 40).padEnd(40)}${String(r.count).padStart(9)}${(r.selfBytes / 2 ** 20).toFixed(2).padStart(14)}${`${((100 * r.selfBytes) / summary.totalBytes).toFixed(1)}%`.padStart(8)}`,
    );
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: { top: { type: 'string', default: '25' } },
  });
  if (!positionals[0]) throw new Error('usage: heap-summary.ts <file.heapsnapshot> [--top N]');
  printHeapSummary(summarizeHeap(positionals[0]), Number(values.top));
}
