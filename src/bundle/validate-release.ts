import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { UsageError } from '../errors.ts';
import type { CrdDocument } from '../crd-diff/index.ts';
import { checkUpgradeSafety } from './upgrade-safety.ts';
import { validateBundle, type Finding } from './validate.ts';

/** The project's package.json version, the default bundle version (as operator-sdk's VERSION). */
export function defaultBundleVersion(cwd: string): string | undefined {
  const path = join(cwd, 'package.json');
  if (!existsSync(path)) return undefined;
  const pkg = JSON.parse(readFileSync(path, 'utf8')) as { version?: unknown };
  return typeof pkg.version === 'string' ? pkg.version : undefined;
}

export interface ReleaseValidationOptions {
  /** The project root; `dir`, `previous` and `acknowledgements` are relative to it. */
  readonly cwd: string;
  /** The bundle folder; default `bundle`. */
  readonly dir?: string;
  readonly optionalSuites?: readonly string[];
  readonly olmV1?: boolean;
  /** The previous release: a bundle folder (it has manifests/) or a file-based catalog. */
  readonly previous?: string;
  /** With a catalog as `previous`: the bundle to compare with instead of the default channel head. */
  readonly previousBundle?: string;
  /** With `previous`: breaking CRD changes accepted on purpose. */
  readonly acknowledgements?: string;
}

/** The previous release found in a catalog (catalog/previous.ts), passed in: catalog/ sits above bundle/. */
export type CatalogRelease = (
  cwd: string,
  catalog: string,
  bundle: string | undefined,
) => Promise<{ readonly bundle: string; readonly crds: readonly CrdDocument[] }>;

export interface ReleaseValidation {
  readonly findings: readonly Finding[];
  readonly errors: number;
  readonly warnings: number;
}

/**
 * `op-gen bundle validate`: the bundle against the operator-framework validators' rules, and with
 * `previous`, the upgrade safety of its CRDs against the previous release (a bundle folder, or a
 * catalog's bundle read by `fromCatalog`). Returns every finding with the counts.
 */
export async function validateRelease(
  options: ReleaseValidationOptions,
  fromCatalog: CatalogRelease,
): Promise<ReleaseValidation> {
  const bundleDir = resolve(options.cwd, options.dir ?? 'bundle');
  const findings = validateBundle(bundleDir, {
    ...(options.optionalSuites ? { optionalSuites: options.optionalSuites } : {}),
    ...(options.olmV1 ? { olmV1: true } : {}),
  });
  if (options.previous)
    findings.push(...(await upgradeFindings(options, options.previous, bundleDir, fromCatalog)));
  const errors = findings.filter((f) => f.severity === 'error').length;
  return { findings, errors, warnings: findings.length - errors };
}

/** The CRD upgrade-safety findings against `previous`, a bundle folder or a catalog. */
async function upgradeFindings(
  options: ReleaseValidationOptions,
  previous: string,
  current: string,
  fromCatalog: CatalogRelease,
): Promise<Finding[]> {
  // A folder with manifests/ is a bundle; anything else is read as a file-based catalog.
  const isBundle = existsSync(join(resolve(options.cwd, previous), 'manifests'));
  if (isBundle && options.previousBundle)
    throw new UsageError('--previous-bundle names a bundle in a catalog; --previous is a bundle folder');
  const release = isBundle ? undefined : await fromCatalog(options.cwd, previous, options.previousBundle);
  return checkUpgradeSafety({
    cwd: options.cwd,
    previous: release ? `${previous} (bundle ${release.bundle})` : previous,
    ...(release ? { previousCrds: release.crds } : {}),
    current,
    ...(options.acknowledgements ? { acknowledgements: options.acknowledgements } : {}),
  });
}
