import { existsSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { writeOutput } from '../shared/atomic-write.ts';
import { buildBundle, type BundleOptions } from './build.ts';
import { readCsvMarkers } from './descriptors.ts';
import { readBundleInputs } from './inputs.ts';

export { validateBundle, type Finding, type Severity, type ValidateOptions } from './validate.ts';
export type { BundleOptions } from './build.ts';

/**
 * `op-gen bundle`: reads the project, writes (or with `check`, compares) every bundle file atomically.
 * Files of bundle/manifests/ that the bundle no longer has (a removed kind, a renamed Service) are
 * stale: they are deleted after the write, and `check` counts them as changed.
 */
export async function generateBundle(
  cwd: string,
  options: BundleOptions & { check?: boolean },
): Promise<{ files: string[]; changed: string[]; removed: string[]; warnings: string[] }> {
  const inputs = readBundleInputs(cwd);
  const { files, warnings } = buildBundle(
    cwd,
    inputs,
    options,
    await readCsvMarkers(cwd, inputs.project.apiDir),
  );
  const manifestsDir = join(cwd, options.outDir ?? 'bundle', 'manifests');
  const wanted = new Set(files.map((f) => f.path));
  const stale = existsSync(manifestsDir)
    ? readdirSync(manifestsDir)
        .map((f) => join(manifestsDir, f))
        .filter((p) => /\.ya?ml$/.test(p) && !wanted.has(p))
    : [];
  const rel = (p: string): string => relative(cwd, p);
  const { changed, removed } = writeOutput(files, stale, options.check === true);
  return {
    files: files.map((f) => rel(f.path)),
    changed: changed.map(rel),
    removed: removed.map(rel),
    warnings,
  };
}
