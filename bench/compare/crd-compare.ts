/**
 * CRD generation side by side: the same synthetic API as Go types for controller-gen v0.23.0 and as
 * TypeScript for `op-gen generate crd`, run alternately; prints wall time and peak RSS (min/median/max)
 * and the ratio of medians, and fails if the two CRDs are not equivalent schemas.
 * Run alone: `node bench/compare/crd-compare.ts [--kinds 100] [--fields 20] [--runs 5]`.
 */
import { copyFileSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { isDeepStrictEqual } from 'node:util';
import { parse } from 'yaml';
import { renderTypeScript, syntheticApi, writeFiles } from '../synthetic-api.ts';
import { summarize, type Summary } from './peak-rss.ts';
import { renderGo } from './synthetic-go.ts';
import { controllerGen, measure, ROOT, type Measured } from './tools.ts';

export interface CrdSide {
  readonly wallMs: Summary;
  readonly peakRssMb: Summary;
  readonly runs: readonly Measured[];
}

export interface CrdComparison {
  readonly kinds: number;
  readonly fields: number;
  readonly runs: number;
  readonly opGen: CrdSide;
  readonly controllerGen?: CrdSide;
  readonly wallRatio?: number;
  readonly rssRatio?: number;
  readonly equivalent?: boolean;
  readonly differences: readonly string[];
  readonly note?: string;
}

function side(runs: Measured[]): CrdSide {
  return {
    wallMs: summarize(runs.map((r) => r.wallMs)),
    peakRssMb: summarize(runs.map((r) => r.peakRssMb)),
    runs,
  };
}

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

/** What may differ between the two: tool annotations and whitespace inside descriptions. */
function normalize(value: Json, path: string): Json {
  if (Array.isArray(value)) return value.map((v, i) => normalize(v, `${path}[${i}]`));
  if (value !== null && typeof value === 'object') {
    const out: { [k: string]: Json } = {};
    for (const key of Object.keys(value).sort()) {
      if (path === '.metadata' && key === 'annotations') continue;
      const v = value[key] as Json;
      out[key] =
        key === 'description' && typeof v === 'string'
          ? v.replace(/\s+/g, ' ').trim()
          : normalize(v, `${path}.${key}`);
    }
    return out;
  }
  return value;
}

function diff(a: Json, b: Json, path: string, out: string[], limit: number): void {
  if (out.length >= limit || isDeepStrictEqual(a, b)) return;
  if (a && b && typeof a === 'object' && typeof b === 'object' && !Array.isArray(a) && !Array.isArray(b)) {
    for (const key of new Set([...Object.keys(a), ...Object.keys(b)])) {
      diff(a[key] ?? null, b[key] ?? null, `${path}.${key}`, out, limit);
    }
    return;
  }
  if (Array.isArray(a) && Array.isArray(b) && a.length === b.length) {
    a.forEach((v, i) => diff(v, b[i] ?? null, `${path}[${i}]`, out, limit));
    return;
  }
  out.push(
    `${path}: controller-gen ${JSON.stringify(b)?.slice(0, 120)} vs op-gen ${JSON.stringify(a)?.slice(0, 120)}`,
  );
}

/**
 * The schema differences between two folders of CRDs (tool annotations and description whitespace
 * aside), one line per differing node, at most `limit` of them.
 */
export function compareCrdDirs(opGenDir: string, controllerGenDir: string, limit = 20): string[] {
  const differences: string[] = [];
  const ours = readdirSync(opGenDir).sort();
  const theirs = readdirSync(controllerGenDir).sort();
  if (!isDeepStrictEqual(ours, theirs)) {
    differences.push(`file sets differ: controller-gen ${theirs.join(',')} vs op-gen ${ours.join(',')}`);
  }
  for (const file of ours.filter((f) => theirs.includes(f))) {
    const a = normalize(parse(readFileSync(join(opGenDir, file), 'utf8')) as Json, '');
    const b = normalize(parse(readFileSync(join(controllerGenDir, file), 'utf8')) as Json, '');
    diff(a, b, file, differences, limit);
  }
  return differences;
}

export async function compareCrdGeneration(options: {
  kinds: number;
  fields: number;
  runs: number;
}): Promise<CrdComparison> {
  const api = syntheticApi({ kinds: options.kinds, fields: options.fields });
  const work = mkdtempSync(join(tmpdir(), 'op-gen-bench-crd-'));
  try {
    const tsDir = join(work, 'ts');
    const goDir = join(work, 'go');
    writeFiles(tsDir, renderTypeScript(api));
    writeFiles(goDir, renderGo(api));
    for (const f of ['go.mod', 'go.sum']) copyFileSync(join(ROOT, 'bench/compare/go-api', f), join(goDir, f));
    const cacheDir = join(work, 'compile-cache');
    const opGenRun = (): Promise<Measured> =>
      measure(process.execPath, [join(ROOT, 'bin/op-gen.js'), 'generate', 'crd', '--out', 'out'], tsDir, {
        ...process.env,
        NODE_COMPILE_CACHE: cacheDir,
      });
    const cg = controllerGen();
    const cgRun = (): Promise<Measured> =>
      measure(cg!, ['crd', 'paths=./api/...', 'output:crd:dir=out'], goDir);

    // One untimed run each: fills Node's compile cache and Go's package cache alike.
    await opGenRun();
    if (cg) await cgRun();
    const ours: Measured[] = [];
    const theirs: Measured[] = [];
    for (let i = 0; i < options.runs; i++) {
      ours.push(await opGenRun());
      if (cg) theirs.push(await cgRun());
    }
    const opGen = side(ours);
    if (!cg) {
      return {
        ...options,
        opGen,
        differences: [],
        note: 'Go toolchain missing: controller-gen was not run; no ratio is reported.',
      };
    }
    const controllerGenSide = side(theirs);
    const differences = compareCrdDirs(join(tsDir, 'out'), join(goDir, 'out'));
    return {
      ...options,
      opGen,
      controllerGen: controllerGenSide,
      wallRatio: opGen.wallMs.median / controllerGenSide.wallMs.median,
      rssRatio: opGen.peakRssMb.median / controllerGenSide.peakRssMb.median,
      equivalent: differences.length === 0,
      differences,
    };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

function fmt(s: Summary, digits = 0): string {
  return `${s.min.toFixed(digits)} / ${s.median.toFixed(digits)} / ${s.max.toFixed(digits)}`;
}

export function printCrdComparison(r: CrdComparison): void {
  console.log(`\nCRD generation: ${r.kinds} kinds × ${r.fields} fields, ${r.runs} runs each, alternating`);
  console.log('                    wall ms (min / median / max)   peak RSS MB (min / median / max)');
  console.log(`op-gen              ${fmt(r.opGen.wallMs).padEnd(31)}${fmt(r.opGen.peakRssMb)}`);
  if (r.controllerGen) {
    console.log(
      `controller-gen      ${fmt(r.controllerGen.wallMs).padEnd(31)}${fmt(r.controllerGen.peakRssMb)}`,
    );
    console.log(
      `ratio of medians    wall ${r.wallRatio!.toFixed(2)} (target ≤ 0.50)   RSS ${r.rssRatio!.toFixed(2)} (target ≤ 1.20)`,
    );
    console.log(
      r.equivalent ? 'schemas: equivalent' : `schemas: NOT equivalent:\n  ${r.differences.join('\n  ')}`,
    );
  } else {
    console.log(r.note);
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({
    options: {
      kinds: { type: 'string', default: '100' },
      fields: { type: 'string', default: '20' },
      runs: { type: 'string', default: '5' },
    },
  });
  const result = await compareCrdGeneration({
    kinds: Number(values.kinds),
    fields: Number(values.fields),
    runs: Number(values.runs),
  });
  printCrdComparison(result);
  if (result.equivalent === false) process.exitCode = 1;
}
