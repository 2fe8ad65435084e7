/**
 * `op-gen generate types`: TypeScript types for the CRDs of anyone (cert-manager, Prometheus operator, ...),
 * written by write-interface.ts (json-schema-to-typescript for what it does not cover). See docs/generate-types.md.
 */
import { join, resolve } from 'node:path';
import { OpGenError } from '../../errors.ts';
import type { OutputFile } from '../../shared/atomic-write.ts';
import type { GenerateOptions, GenerateResult, Generator } from '../../generation/contract.ts';
import { filesWithHeader } from '../../generation/emit.ts';
import { runGenerator } from '../../generation/run.ts';
import { readCrdInput, type CrdDocument } from './read-crds.ts';
import { DEFAULT_IMPORTS, renderKindVersion, TYPES_HEADER, type ImportModules } from './render-types.ts';

export { parseCrdDocuments, readCrdInput, type CrdDocument, type CrdV1 } from './read-crds.ts';
export { renderKindVersion, DEFAULT_IMPORTS, TYPES_HEADER, type ImportModules } from './render-types.ts';
export { toJsonSchema } from './k8s-schema.ts';

export interface GenerateTypesOptions extends GenerateOptions {
  /** Files, directories or `-` (stdin). */
  readonly from?: readonly string[];
  /** CRD names (`certificates.cert-manager.io`) read from the cluster of the current kubeconfig. */
  readonly fromCluster?: readonly string[];
  readonly imports?: ImportModules;
  /** Reads stdin for `-` (tests). */
  readonly stdin?: () => string;
}

/** Output folder of `generate types`, relative to the project. */
export const DEFAULT_TYPES_DIR = 'src/types';

/**
 * `op-gen generate types`: `<outDir>/<group>/<version>/<kind>.ts` for every version of every CRD.
 * Generated modules of the CRDs' groups that the input no longer has (a kind or version gone from the
 * CRD) are stale; other groups' folders are never touched, so types of several sources can share
 * one output folder.
 */
export const typesGenerator: Generator<GenerateTypesOptions> = {
  name: 'types',
  markers: [],
  async plan(ctx, options) {
    const outDir = resolve(ctx.cwd, options.outDir ?? DEFAULT_TYPES_DIR);
    const { files, groups } = await planTypes(options, outDir);
    return {
      files,
      owned: groups.flatMap((g) =>
        filesWithHeader(join(outDir, g), TYPES_HEADER, { match: /\.ts$/, recursive: true }),
      ),
      outDir,
    };
  },
};

/** Renders every version of every CRD; nothing is written when any input is bad. */
export async function renderTypes(options: GenerateTypesOptions): Promise<OutputFile[]> {
  return (await planTypes(options, resolve(options.cwd, options.outDir ?? DEFAULT_TYPES_DIR))).files;
}

export function generateTypes(options: GenerateTypesOptions): Promise<GenerateResult> {
  return runGenerator(typesGenerator, options);
}

async function planTypes(
  options: GenerateTypesOptions,
  outDir: string,
): Promise<{ files: OutputFile[]; groups: string[] }> {
  const docs: CrdDocument[] = [];
  for (const from of options.from ?? []) docs.push(...readCrdInput(from, options.cwd, options.stdin));
  if (options.fromCluster?.length) {
    // Loads @kubernetes/client-node (about 870 modules): only when a CRD comes from the cluster.
    const { fetchCrdFromCluster } = await import('./from-cluster.ts');
    for (const name of options.fromCluster) docs.push(await fetchCrdFromCluster(name));
  }
  if (docs.length === 0) {
    throw new OpGenError('no CRD found: pass --from <crd.yaml|dir|-> or --from-cluster <crd-name>.');
  }
  const files = new Map<string, { content: string; source: string }>();
  const groups = new Set<string>();
  for (const doc of docs) {
    for (const version of doc.crd.spec.versions) {
      const r = await renderKindVersion(doc, version, options.imports ?? DEFAULT_IMPORTS);
      const path = join(outDir, r.group, r.version, `${r.kind.toLowerCase()}.ts`);
      const prior = files.get(path);
      if (prior && prior.content !== r.content) {
        throw new OpGenError(
          `${r.kind} ${r.group}/${r.version} is defined twice with different schemas (${prior.source} and ${doc.source}). Pass each CRD once.`,
        );
      }
      files.set(path, { content: r.content, source: doc.source });
      groups.add(r.group);
    }
  }
  return {
    files: [...files.entries()]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([path, f]) => ({ path, content: f.content })),
    groups: [...groups].sort(),
  };
}
