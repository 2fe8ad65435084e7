/**
 * `bundle validate --previous <bundle dir or catalog>`: the CRD upgrade safety check OLM v1 runs against the
 * installed CRDs before every upgrade, run before release instead: `op-gen crd diff` (src/crd-diff,
 * its rules and acknowledgements file unchanged) from the previous release's bundle CRDs to this one's.
 * A breaking change that is not acknowledged is an error; a risky one a warning. From a catalog, the
 * caller reads the previous CRDs (src/catalog/previous.ts) and passes them as `previousCrds`.
 */
import { existsSync } from 'node:fs';
import { relative, resolve } from 'node:path';
import { crdDiff, type CrdDocument, type ReportedFinding } from '../crd-diff/index.ts';
import { showValue } from '../crd-diff/report.ts';
import { OpGenError } from '../errors.ts';
import type { Finding } from './validate.ts';

export interface UpgradeSafetyOptions {
  /** The project root: paths and the default acknowledgements file (.op-gen/crd-diff.yaml) are relative to it. */
  readonly cwd: string;
  /** The previous release's bundle folder, or (with `previousCrds`) how to name it in messages. */
  readonly previous: string;
  /** The previous release's CRDs already read (from a catalog); then `previous` is not read. */
  readonly previousCrds?: readonly CrdDocument[];
  /** This release's bundle folder. */
  readonly current: string;
  /** The acknowledgements file, when not the default. */
  readonly acknowledgements?: string;
}

export async function checkUpgradeSafety(options: UpgradeSafetyOptions): Promise<Finding[]> {
  const { cwd } = options;
  const manifests = (dir: string, what: string): string => {
    const path = resolve(cwd, dir, 'manifests');
    if (!existsSync(path))
      throw new OpGenError(`--previous: ${what} ${dir} has no manifests/ folder: give a bundle folder`);
    return relative(cwd, path) || '.';
  };
  const report = await crdDiff({
    cwd,
    ...(options.previousCrds === undefined
      ? { old: manifests(options.previous, 'the previous bundle') }
      : { oldCrds: options.previousCrds }),
    new: manifests(options.current, 'the bundle'),
    ...(options.acknowledgements === undefined ? {} : { acknowledgements: options.acknowledgements }),
  });
  const findings: Finding[] = [];
  for (const f of report.findings) {
    if (f.severity === 'breaking' && f.acknowledged === undefined)
      findings.push({
        severity: 'error',
        rule: 'upgrade-crd-breaking',
        message:
          `${showFinding(f)}: an upgrade from ${options.previous} breaks existing objects or clients, and OLM v1's ` +
          'CRD upgrade safety preflight stops it. Keep the old behaviour, serve a new version, or acknowledge it with a ' +
          'reason in .op-gen/crd-diff.yaml (docs/crd-diff.md)',
      });
    else if (f.severity === 'risky')
      findings.push({
        severity: 'warning',
        rule: 'upgrade-crd-risky',
        message: `${showFinding(f)}: may break existing objects or clients on upgrade from ${options.previous}`,
      });
  }
  return findings;
}

/** One finding of the diff on one line: CRD, version, path, what changed, old → new, [rule]. */
function showFinding(f: ReportedFinding): string {
  const where = [f.crd, f.version, f.path].filter((x) => x !== undefined).join(' ');
  const change =
    f.old === undefined && f.new === undefined ? '' : ` (${showValue(f.old)} → ${showValue(f.new)})`;
  return `${where}: ${f.message}${change} [${f.rule}]`;
}
