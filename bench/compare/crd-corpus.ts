/**
 * CRD generation on the corpus of real operator APIs (test/corpus/README.md): per project,
 * `op-gen generate crd --max-description-length 0` on its TS form and controller-gen v0.23.0
 * (`crd:maxDescLen=0`) on its original Go packages, run alternately; wall time and peak RSS
 * (min/median/max), the ratio of medians per project and for the corpus as a whole (sum of the
 * medians), and the CRD front end op-gen took. Needs Go and checkouts of the projects' repositories at
 * the commits corpus.json names, one folder per repository under OP_GEN_CORPUS_SRC (or --src):
 * kubebuilder, lws, jobset, kueue, notification-controller. Without them no ratio is reported.
 * Run alone: `node bench/compare/crd-corpus.ts --src <dir> [--runs 5]`.
 */
import { cpSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import {
  checkoutModuleDir,
  checkoutName,
  corpusControllerGenArgs,
  corpusProjects,
  CORPUS_DIR,
  writeCorpusGoModule,
} from './corpus-go.ts';
import { compareCrdDirs } from './crd-compare.ts';
import { summarize, type Summary } from './peak-rss.ts';
import { controllerGen, measure, ROOT, type Measured } from './tools.ts';

export interface CorpusProjectRun {
  readonly project: string;
  readonly frontEnd: 'syntax' | 'checker';
  readonly opGen: { readonly wallMs: Summary; readonly peakRssMb: Summary };
  readonly controllerGen: { readonly wallMs: Summary; readonly peakRssMb: Summary };
  readonly wallRatio: number;
  readonly rssRatio: number;
  /** Schema differences beyond the known ones of corpus.json (must be none). */
  readonly unexpected: readonly string[];
}

export interface CorpusComparison {
  readonly runs: number;
  readonly projects: readonly CorpusProjectRun[];
  /** Sum of op-gen's medians over the sum of controller-gen's. */
  readonly wallRatio?: number;
  readonly note?: string;
}

export async function compareCrdCorpus(options: {
  runs: number;
  src: string | undefined;
}): Promise<CorpusComparison> {
  const cg = controllerGen();
  const projects = corpusProjects();
  if (!cg || !options.src) {
    return {
      runs: options.runs,
      projects: [],
      note: !cg
        ? 'Go toolchain missing: controller-gen was not run; no ratio is reported.'
        : 'OP_GEN_CORPUS_SRC (or --src) not set: no checkouts of the corpus projects; no ratio is reported.',
    };
  }
  const results: CorpusProjectRun[] = [];
  for (const [project, entry] of Object.entries(projects)) {
    const checkout = join(options.src, checkoutName(entry.source));
    if (!existsSync(checkout)) throw new Error(`${project}: no checkout at ${checkout}`);
    const work = mkdtempSync(join(tmpdir(), `op-gen-bench-corpus-${project}-`));
    try {
      const goDir = join(work, 'go');
      writeCorpusGoModule(project, checkoutModuleDir(checkout, entry.source), goDir);
      const tsDir = join(work, 'ts');
      cpSync(join(CORPUS_DIR, project, 'api'), join(tsDir, 'api'), { recursive: true });
      const cacheDir = join(work, 'compile-cache');
      const opGenRun = (): Promise<Measured> =>
        measure(
          process.execPath,
          [
            join(ROOT, 'bin/op-gen.js'),
            'generate',
            'crd',
            '--api-dir',
            'api',
            '--out',
            'out',
            '--max-description-length',
            '0',
            ...(entry.generateEmbeddedObjectMeta ? ['--generate-embedded-object-meta'] : []),
          ],
          tsDir,
          { ...process.env, NODE_COMPILE_CACHE: cacheDir },
        );
      const cgRun = (): Promise<Measured> => measure(cg, corpusControllerGenArgs('out', entry), goDir);
      // One untimed run each: fills Node's compile cache and Go's package cache alike.
      await opGenRun();
      await cgRun();
      const ours: Measured[] = [];
      const theirs: Measured[] = [];
      for (let i = 0; i < options.runs; i++) {
        ours.push(await opGenRun());
        theirs.push(await cgRun());
      }
      const known = new Set(entry.differences.map((d) => d.difference));
      const unexpected = compareCrdDirs(join(tsDir, 'out'), join(goDir, 'out'), Infinity).filter(
        (d) => !known.has(d),
      );
      const side = (runs: Measured[]): { wallMs: Summary; peakRssMb: Summary } => ({
        wallMs: summarize(runs.map((r) => r.wallMs)),
        peakRssMb: summarize(runs.map((r) => r.peakRssMb)),
      });
      const opGen = side(ours);
      const controllerGenSide = side(theirs);
      results.push({
        project,
        frontEnd: entry.frontEnd,
        opGen,
        controllerGen: controllerGenSide,
        wallRatio: opGen.wallMs.median / controllerGenSide.wallMs.median,
        rssRatio: opGen.peakRssMb.median / controllerGenSide.peakRssMb.median,
        unexpected,
      });
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  }
  const sum = (f: (r: CorpusProjectRun) => number): number => results.reduce((a, r) => a + f(r), 0);
  return {
    runs: options.runs,
    projects: results,
    wallRatio: sum((r) => r.opGen.wallMs.median) / sum((r) => r.controllerGen.wallMs.median),
  };
}

export function printCrdCorpus(r: CorpusComparison): void {
  console.log(`\nCRD generation on the corpus (test/corpus), ${r.runs} runs each, alternating`);
  if (r.note) {
    console.log(r.note);
    return;
  }
  console.log(
    'project                    front end  op-gen ms (median)  controller-gen ms (median)  wall ratio  RSS ratio',
  );
  for (const p of r.projects) {
    console.log(
      `${p.project.padEnd(27)}${p.frontEnd.padEnd(11)}${p.opGen.wallMs.median.toFixed(0).padEnd(20)}` +
        `${p.controllerGen.wallMs.median.toFixed(0).padEnd(28)}${p.wallRatio.toFixed(2).padEnd(12)}${p.rssRatio.toFixed(2)}`,
    );
    if (p.unexpected.length)
      console.log(`  differences beyond the known ones:\n  ${p.unexpected.join('\n  ')}`);
  }
  console.log(`corpus as a whole (sum of medians): wall ratio ${r.wallRatio!.toFixed(2)}`);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({
    options: {
      src: { type: 'string', default: process.env.OP_GEN_CORPUS_SRC },
      runs: { type: 'string', default: '5' },
    },
  });
  const result = await compareCrdCorpus({ runs: Number(values.runs), src: values.src });
  printCrdCorpus(result);
  if (result.projects.some((p) => p.unexpected.length > 0)) process.exitCode = 1;
}
