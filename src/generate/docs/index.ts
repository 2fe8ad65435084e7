/**
 * `op-gen generate docs`: an API reference in Markdown, one page per group version, made from the
 * CRDs `generate crd` makes (its library, run without writing), so the reference says what the API
 * server enforces.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { writeOutput, type OutputFile } from '../../shared/atomic-write.ts';
import { generateCrds, type CustomResourceDefinition } from '../crd/index.ts';
import { DOCS_HEADER, renderGroupVersion, type KindEntry } from './render.ts';
import { readSamples } from './samples.ts';

export { DOCS_HEADER } from './render.ts';

export interface GenerateDocsOptions {
  /** Project root. */
  readonly cwd: string;
  /** API source folder, relative to cwd (default `src/api`). */
  readonly apiDir?: string;
  /** Output folder, relative to cwd (default `docs/api`). */
  readonly outDir?: string;
  /** Sample objects shown as examples, relative to cwd (default `config/samples`; missing: none). */
  readonly samplesDir?: string;
  /** Write nothing; report the files that would change. */
  readonly check?: boolean;
}

export interface GenerateDocsResult {
  /** Every reference page, relative to cwd. */
  readonly files: readonly string[];
  /** Pages whose content changed (with `check`: would change), stale ones too. */
  readonly changed: readonly string[];
  /** Stale pages removed (pages `generate docs` wrote for a group version that is gone). */
  readonly removed: readonly string[];
}

/** Generates `<outDir>/<group>-<version>.md` for every group version; all files or none. */
export async function generateDocs(options: GenerateDocsOptions): Promise<GenerateDocsResult> {
  const { cwd } = options;
  const outDir = resolve(cwd, options.outDir ?? 'docs/api');
  // The CRDs as `generate crd` makes them, written nowhere (its problems fail this run the same way).
  const { crds } = await generateCrds({
    cwd,
    check: true,
    ...(options.apiDir === undefined ? {} : { apiDir: options.apiDir }),
  });
  const samples = readSamples(cwd, options.samplesDir ?? 'config/samples');
  const files: OutputFile[] = [...byGroupVersion(crds)].map(([key, kinds]) => {
    const [group = '', version = ''] = key.split('/');
    return {
      path: join(outDir, `${group}-${version}.md`),
      content: renderGroupVersion(group, version, kinds, samples),
    };
  });
  const wanted = new Set(files.map((f) => f.path));
  const { changed, removed } = writeOutput(files, stalePages(outDir, wanted), options.check === true);
  const rel = (p: string): string => relative(cwd, p);
  return { files: files.map((f) => rel(f.path)), changed: changed.map(rel), removed: removed.map(rel) };
}

/** Kinds per `group/version`, group versions and kinds sorted by name. */
function byGroupVersion(crds: readonly CustomResourceDefinition[]): Map<string, KindEntry[]> {
  const map = new Map<string, KindEntry[]>();
  for (const crd of crds) {
    for (const version of crd.spec.versions) {
      const key = `${crd.spec.group}/${version.name}`;
      const list = map.get(key) ?? [];
      list.push({ crd, version });
      map.set(key, list);
    }
  }
  const sorted = new Map([...map].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  for (const list of sorted.values())
    list.sort((a, b) => (a.crd.spec.names.kind < b.crd.spec.names.kind ? -1 : 1));
  return sorted;
}

/** Pages in the output folder that `generate docs` wrote (they start with its header) and would not write now. */
function stalePages(dir: string, wanted: ReadonlySet<string>): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => f.endsWith('.md'))
    .map((f) => join(dir, f))
    .filter((p) => !wanted.has(p) && readFileSync(p, 'utf8').startsWith(DOCS_HEADER))
    .sort();
}
