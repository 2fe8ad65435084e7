import { relative } from 'node:path';
import { changedFiles, writeFilesAtomically } from '../shared/atomic-write.ts';
import { buildBundle, type BundleOptions } from './build.ts';
import { readCsvMarkers } from './descriptors.ts';
import { readBundleInputs } from './inputs.ts';

export { validateBundle, type Finding, type Severity, type ValidateOptions } from './validate.ts';
export type { BundleOptions } from './build.ts';

/** `op-gen bundle`: reads the project, writes (or with `check`, compares) every bundle file atomically. */
export async function generateBundle(
  cwd: string,
  options: BundleOptions & { check?: boolean },
): Promise<{ files: string[]; changed: string[] }> {
  const inputs = readBundleInputs(cwd);
  const files = buildBundle(cwd, inputs, options, await readCsvMarkers(cwd, inputs.project.apiDir));
  const rel = (p: string): string => relative(cwd, p);
  const changed = options.check ? changedFiles(files) : writeFilesAtomically(files);
  return { files: files.map((f) => rel(f.path)), changed: changed.map(rel) };
}
