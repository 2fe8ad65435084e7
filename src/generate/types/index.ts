/**
 * `op-gen generate types`: TypeScript types for the CRDs of anyone (cert-manager, Prometheus operator, ...),
 * through json-schema-to-typescript. See docs/generate-types.md.
 */
import { join, resolve } from 'node:path';
import { OpGenError } from '../../errors.ts';
import { changedFiles, writeFilesAtomically, type OutputFile } from '../../shared/atomic-write.ts';
import { fetchCrdFromCluster } from './from-cluster.ts';
import { readCrdInput, type CrdDocument } from './read-crds.ts';
import { DEFAULT_IMPORTS, renderKindVersion, type ImportModules } from './render-types.ts';

export { parseCrdDocuments, readCrdInput, type CrdDocument, type CrdV1 } from './read-crds.ts';
export { renderKindVersion, DEFAULT_IMPORTS, type ImportModules } from './render-types.ts';
export { toJsonSchema } from './k8s-schema.ts';

export interface GenerateTypesOptions {
  readonly cwd: string;
  /** Files, directories or `-` (stdin). */
  readonly from?: readonly string[];
  /** CRD names (`certificates.cert-manager.io`) read from the cluster of the current kubeconfig. */
  readonly fromCluster?: readonly string[];
  /** Output directory, relative to cwd. Default `src/types`. */
  readonly out?: string;
  /** Compare instead of writing. */
  readonly check?: boolean;
  readonly imports?: ImportModules;
  /** Reads stdin for `-` (tests). */
  readonly stdin?: () => string;
}

export interface GenerateTypesResult {
  readonly files: readonly OutputFile[];
  /** Written (or, with check, differing) paths. */
  readonly changed: readonly string[];
}

/** Renders every version of every CRD; nothing is written when any input is bad. */
export async function renderTypes(options: GenerateTypesOptions): Promise<OutputFile[]> {
  const docs: CrdDocument[] = [];
  for (const from of options.from ?? []) docs.push(...readCrdInput(from, options.cwd, options.stdin));
  for (const name of options.fromCluster ?? []) docs.push(await fetchCrdFromCluster(name));
  if (docs.length === 0) {
    throw new OpGenError('no CRD found: pass --from <crd.yaml|dir|-> or --from-cluster <crd-name>.');
  }
  const outDir = resolve(options.cwd, options.out ?? 'src/types');
  const files = new Map<string, { content: string; source: string }>();
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
    }
  }
  return [...files.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([path, f]) => ({ path, content: f.content }));
}

export async function generateTypes(options: GenerateTypesOptions): Promise<GenerateTypesResult> {
  const files = await renderTypes(options);
  const changed = options.check ? changedFiles(files) : writeFilesAtomically(files);
  return { files, changed };
}
