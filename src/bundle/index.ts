import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { GenerateResult } from '../generation/contract.ts';
import { emit } from '../generation/emit.ts';
import { buildBundle, type BundleOptions } from './build.ts';
import { readCsvMarkers } from './descriptors.ts';
import { readBundleInputs } from './inputs.ts';

export { validateBundle, type Finding, type Severity, type ValidateOptions } from './validate.ts';
export type { BundleOptions } from './build.ts';
export { checkUpgradeSafety, type UpgradeSafetyOptions } from './upgrade-safety.ts';
export {
  defaultBundleVersion,
  validateRelease,
  type CatalogRelease,
  type ReleaseValidation,
  type ReleaseValidationOptions,
} from './validate-release.ts';

export type GenerateBundleResult = GenerateResult & { readonly warnings: readonly string[] };

/**
 * `op-gen bundle`: reads the project, writes (or with `check`, compares) every bundle file atomically.
 * Files of bundle/manifests/ that the bundle no longer has (a removed kind, a renamed Service) are
 * stale: they are deleted after the write, and `check` reports them.
 */
export async function generateBundle(
  cwd: string,
  options: BundleOptions & { check?: boolean },
): Promise<GenerateBundleResult> {
  const inputs = readBundleInputs(cwd, options.renderer);
  const { files, warnings } = buildBundle(
    cwd,
    inputs,
    options,
    await readCsvMarkers(cwd, inputs.project.apiDir),
  );
  // Everything in bundle/manifests/ is the bundle's: OLM installs the whole folder.
  const manifestsDir = join(cwd, options.outDir ?? 'bundle', 'manifests');
  const owned = existsSync(manifestsDir)
    ? readdirSync(manifestsDir)
        .filter((f) => /\.ya?ml$/.test(f))
        .map((f) => join(manifestsDir, f))
    : [];
  return { ...emit('bundle', { files, owned }, { cwd, check: options.check === true }), warnings };
}
