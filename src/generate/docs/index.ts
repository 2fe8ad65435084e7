/**
 * `op-gen generate docs`: an API reference in Markdown, one page per group version, made from the
 * CRDs `generate crd` makes (its library, run without writing), so the reference says what the API
 * server enforces.
 */
import { join, resolve } from 'node:path';
import type { OutputFile } from '../../shared/atomic-write.ts';
import type { GenerateOptions, GenerateResult, Generator } from '../../generation/contract.ts';
import { filesWithHeader } from '../../generation/emit.ts';
import { runGenerator } from '../../generation/run.ts';
import { crdGenerator, type CustomResourceDefinition } from '../crd/index.ts';
import { DOCS_HEADER, renderGroupVersion, type KindEntry } from './render.ts';
import { readSamples } from './samples.ts';

export { DOCS_HEADER } from './render.ts';

export interface GenerateDocsOptions extends GenerateOptions {
  /** Sample objects shown as examples, relative to cwd (default `config/samples`; missing: none). */
  readonly samplesDir?: string;
}

/** Output folder of `generate docs`, relative to the project. */
export const DEFAULT_DOCS_DIR = 'docs/api';

/**
 * `op-gen generate docs`: `<outDir>/<group>-<version>.md` for every group version. Pages it wrote
 * (they start with its header) for a group version that is gone are stale.
 */
export const docsGenerator: Generator<GenerateDocsOptions> = {
  name: 'docs',
  markers: [],
  async plan(ctx, options) {
    const outDir = resolve(ctx.cwd, options.outDir ?? DEFAULT_DOCS_DIR);
    // The CRDs as `generate crd` makes them, written nowhere (its problems fail this run the same way).
    const { crds } = await crdGenerator.plan(ctx, { cwd: ctx.cwd, apiDir: ctx.apiDir });
    const samples = readSamples(ctx.cwd, options.samplesDir ?? 'config/samples');
    const files: OutputFile[] = [...byGroupVersion(crds)].map(([key, kinds]) => {
      const [group = '', version = ''] = key.split('/');
      return {
        path: join(outDir, `${group}-${version}.md`),
        content: renderGroupVersion(group, version, kinds, samples),
      };
    });
    return { files, owned: filesWithHeader(outDir, DOCS_HEADER, { match: /\.md$/ }) };
  },
};

/** Generates `<outDir>/<group>-<version>.md` for every group version; all files or none. */
export function generateDocs(options: GenerateDocsOptions): Promise<GenerateResult> {
  return runGenerator(docsGenerator, options);
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
