/**
 * `generate types` side by side with `cdk8s import` (cdk8s-cli) and `crd-generate`
 * (@kubernetes-models/crd-generate), the npm tools that turn CRDs into TypeScript, on the same
 * inputs, run alternately (the order rotates each round): the largest real CRD in
 * test/fixtures/types, a 2 MB CRD with four embedded pod specs (test/fixtures/types-bench, turned
 * into a CRD by `op-gen generate crd`), and a batch of 20 CRDs in one file.
 * Run alone: `node bench/compare/types-compare.ts [--runs 3]`.
 */
import {
  copyFileSync,
  cpSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { renderTypeScript, syntheticApi, writeFiles } from '../synthetic-api.ts';
import { summarize, type Summary } from './peak-rss.ts';
import { npmTools, NPM_TOOLS } from './npm-tools.ts';
import { measure, ROOT, type Measured } from './tools.ts';

export type TypesTool = 'op-gen' | 'cdk8s import' | 'crd-generate';

export interface TypesSide {
  readonly tool: TypesTool;
  readonly wallMs: Summary;
  readonly peakRssMb: Summary;
  readonly outputBytes: number;
}

export interface TypesCase {
  readonly name: string;
  readonly crds: number;
  readonly inputBytes: number;
  readonly sides: readonly TypesSide[];
  /** op-gen's median wall time over cdk8s import's. */
  readonly wallRatioVsCdk8s?: number;
  readonly wallRatioVsCrdGenerate?: number;
}

export interface TypesComparison {
  readonly runs: number;
  readonly versions: typeof NPM_TOOLS;
  readonly cases: readonly TypesCase[];
  readonly note?: string;
}

const OP_GEN = join(ROOT, 'bin/op-gen.js');

function dirBytes(dir: string): number {
  let total = 0;
  for (const e of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (e.isFile()) total += statSync(join(e.parentPath, e.name)).size;
  }
  return total;
}

/** The CRD files of a `generate crd` run over `apiDir` (a folder holding src/api/...). */
async function generateCrdFiles(projectDir: string): Promise<string[]> {
  await measure(process.execPath, [OP_GEN, 'generate', 'crd', '--out', 'crds'], projectDir);
  return readdirSync(join(projectDir, 'crds'))
    .sort()
    .map((f) => join(projectDir, 'crds', f));
}

export async function compareTypesGeneration(options: { runs: number }): Promise<TypesComparison> {
  const tools = npmTools();
  const work = mkdtempSync(join(tmpdir(), 'op-gen-bench-types-'));
  try {
    // Inputs.
    const fixtures = join(ROOT, 'test/fixtures/types');
    const real = readdirSync(fixtures)
      .filter((f) => f.endsWith('.yaml'))
      .map((f) => join(fixtures, f))
      .sort((a, b) => statSync(b).size - statSync(a).size);
    const pipelineProject = join(work, 'pipeline');
    cpSync(join(ROOT, 'test/fixtures/types-bench/api'), join(pipelineProject, 'src/api'), {
      recursive: true,
    });
    const [pipeline] = await generateCrdFiles(pipelineProject);
    const syntheticProject = join(work, 'synthetic');
    writeFiles(syntheticProject, renderTypeScript(syntheticApi({ kinds: 16, fields: 20 })));
    const synthetic = await generateCrdFiles(syntheticProject);
    const batchFiles = [...real, pipeline!, ...synthetic];
    const batch = join(work, 'batch-20.yaml');
    writeFileSync(batch, batchFiles.map((f) => readFileSync(f, 'utf8').replace(/^---\n/, '')).join('---\n'));
    const single = join(work, 'pipeline.yaml');
    copyFileSync(pipeline!, single);

    const inputs: { name: string; file: string; crds: number }[] = [
      { name: `largest real CRD (${real[0]!.split('/').pop()})`, file: real[0]!, crds: 1 },
      { name: 'Pipeline CRD, 4 embedded pod specs (2 MB)', file: single, crds: 1 },
      { name: '20 CRDs in one file', file: batch, crds: batchFiles.length },
    ];

    const commands: Record<TypesTool, ((file: string, out: string) => [string, string[]]) | undefined> = {
      'op-gen': (file, out) => [
        process.execPath,
        [OP_GEN, 'generate', 'types', '--from', file, '--out', out],
      ],
      'cdk8s import': tools
        ? (file, out) => [
            process.execPath,
            [tools.cdk8s, 'import', file, '--language', 'typescript', '--output', out],
          ]
        : undefined,
      'crd-generate': tools
        ? (file, out) => [process.execPath, [tools.crdGenerate, '--input', file, '--output', out]]
        : undefined,
    };
    const active = (Object.keys(commands) as TypesTool[]).filter((t) => commands[t]);

    const cases: TypesCase[] = [];
    for (const input of inputs) {
      const runs = new Map<TypesTool, Measured[]>(active.map((t) => [t, []]));
      const bytes = new Map<TypesTool, number>();
      const runOnce = async (tool: TypesTool): Promise<Measured> => {
        const out = join(work, 'out', tool.replace(/\W/g, '-'));
        rmSync(out, { recursive: true, force: true });
        const [cmd, args] = commands[tool]!(input.file, out);
        const m = await measure(cmd, args, work);
        bytes.set(tool, dirBytes(out));
        return m;
      };
      // One untimed run each: compile caches, file cache.
      for (const tool of active) await runOnce(tool);
      for (let i = 0; i < options.runs; i++) {
        const order = active.map((_, j) => active[(i + j) % active.length]!);
        for (const tool of order) runs.get(tool)!.push(await runOnce(tool));
      }
      const sides: TypesSide[] = active.map((tool) => ({
        tool,
        wallMs: summarize(runs.get(tool)!.map((r) => r.wallMs)),
        peakRssMb: summarize(runs.get(tool)!.map((r) => r.peakRssMb)),
        outputBytes: bytes.get(tool) ?? 0,
      }));
      const median = (tool: TypesTool): number | undefined =>
        sides.find((s) => s.tool === tool)?.wallMs.median;
      const ours = median('op-gen')!;
      const cdk8s = median('cdk8s import');
      const crdGen = median('crd-generate');
      cases.push({
        name: input.name,
        crds: input.crds,
        inputBytes: statSync(input.file).size,
        sides,
        ...(cdk8s ? { wallRatioVsCdk8s: ours / cdk8s } : {}),
        ...(crdGen ? { wallRatioVsCrdGenerate: ours / crdGen } : {}),
      });
    }
    return {
      runs: options.runs,
      versions: NPM_TOOLS,
      cases,
      ...(tools ? {} : { note: 'cdk8s-cli and crd-generate could not be installed; op-gen measured alone.' }),
    };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

export function printTypesComparison(r: TypesComparison): void {
  console.log(
    `\ngenerate types, ${r.runs} runs each, alternating (wall ms min / median / max; peak RSS MB median)`,
  );
  for (const c of r.cases) {
    console.log(`  ${c.name}: ${c.crds} CRD(s), ${(c.inputBytes / 1024).toFixed(0)} KiB`);
    for (const s of c.sides) {
      console.log(
        `    ${s.tool.padEnd(14)} ${s.wallMs.min.toFixed(0)} / ${s.wallMs.median.toFixed(0)} / ${s.wallMs.max.toFixed(0)}   RSS ${s.peakRssMb.median.toFixed(0)}   output ${(s.outputBytes / 1024).toFixed(0)} KiB`,
      );
    }
    if (c.wallRatioVsCdk8s !== undefined) {
      console.log(
        `    ratio op-gen / cdk8s import ${c.wallRatioVsCdk8s.toFixed(2)} (target ≤ 0.50); / crd-generate ${c.wallRatioVsCrdGenerate?.toFixed(2)}`,
      );
    }
  }
  if (r.note) console.log(r.note);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({ options: { runs: { type: 'string', default: '3' } } });
  const result = await compareTypesGeneration({ runs: Number(values.runs) });
  printTypesComparison(result);
}
