/** `op-gen crd diff` as a library: what changed between two sets of CRDs, and is it safe to upgrade. */
import { OpGenError, UsageError } from '../errors.ts';
import { matches, readAcknowledgements } from './acknowledgements.ts';
import { diffCrds } from './diff-crds.ts';
import { crdsAtRef, crdsFromPath } from './load.ts';
import type { DiffReport, ReportedFinding } from './report.ts';
import type { CrdDocument } from './types.ts';

export { diffCrds, diffCrd } from './diff-crds.ts';
export { diffSchemas, type SchemaChange } from './schema-diff.ts';
export { crdsFromYaml } from './load.ts';
export { ACKNOWLEDGEMENTS_FILE, type Acknowledgement } from './acknowledgements.ts';
export { renderJson, renderText, type DiffReport, type ReportedFinding } from './report.ts';
export type { CrdDocument, DiffRule, Finding, Severity } from './types.ts';

export interface CrdDiffOptions {
  /** Project root; paths are relative to it. */
  readonly cwd: string;
  /** The old CRDs: a file or a folder (not with `base`). */
  readonly old?: string;
  /** The old CRDs already read (e.g. from a catalog's olm.bundle.object properties), instead of `old`. */
  readonly oldCrds?: readonly CrdDocument[];
  /** The new CRDs: a file or a folder (not with `base` or `generate`). */
  readonly new?: string;
  /** A git ref: the old CRDs are `dir` as committed there. */
  readonly base?: string;
  /** The generated CRDs' folder (default `config/crd/bases`): the new side with `base`. */
  readonly dir?: string;
  /** The new side is generated from the API sources now (nothing is written). */
  readonly generate?: boolean;
  readonly apiDir?: string;
  /** The acknowledgements file (default `.op-gen/crd-diff.yaml`, optional). */
  readonly acknowledgements?: string;
}

/** Loads both sides, compares them and applies the acknowledgements. */
export async function crdDiff(options: CrdDiffOptions): Promise<DiffReport> {
  const { cwd } = options;
  const dir = options.dir ?? 'config/crd/bases';
  let oldCrds: CrdDocument[];
  if (options.base !== undefined) {
    if (options.old !== undefined || options.new !== undefined)
      throw new UsageError(
        'with --base, give no <old> <new>: the old CRDs come from the ref, the new from --dir',
      );
    oldCrds = crdsAtRef(cwd, options.base, dir);
  } else if (options.oldCrds !== undefined) {
    oldCrds = [...options.oldCrds];
  } else {
    if (options.old === undefined)
      throw new UsageError('give <old> and <new> (CRD files or folders), or --base <git-ref>');
    oldCrds = crdsFromPath(cwd, options.old);
  }
  let newCrds: CrdDocument[];
  if (options.generate) {
    if (options.new !== undefined)
      throw new UsageError('with --generate, give no <new>: the API sources are the new side');
    const { generateCrds } = await import('../generate/crd/index.ts');
    const generated = await generateCrds({
      cwd,
      outDir: dir,
      check: true,
      ...(options.apiDir === undefined ? {} : { apiDir: options.apiDir }),
    });
    newCrds = generated.crds as unknown as CrdDocument[];
  } else if (options.base !== undefined) {
    newCrds = crdsFromPath(cwd, dir);
  } else {
    if (options.new === undefined)
      throw new UsageError('give <new> too (a CRD file or folder), or --generate');
    newCrds = crdsFromPath(cwd, options.new);
  }
  if (oldCrds.length === 0 && newCrds.length === 0)
    throw new OpGenError('no CustomResourceDefinitions found on either side: check the paths');
  const acks = readAcknowledgements(cwd, options.acknowledgements);
  return applyAcknowledgements(diffCrds(oldCrds, newCrds), acks);
}

/** Marks the breaking findings an acknowledgement accepts and lists the acknowledgements that accept none. */
export function applyAcknowledgements(
  findings: readonly ReportedFinding[],
  acks: ReturnType<typeof readAcknowledgements>,
): DiffReport {
  const used = new Set<number>();
  const reported = findings.map((f): ReportedFinding => {
    if (f.severity !== 'breaking') return f;
    const ack = acks.find((a) => matches(a, f));
    if (!ack) return f;
    used.add(ack.index);
    return { ...f, acknowledged: ack.reason };
  });
  const count = (s: string): number => reported.filter((f) => f.severity === s).length;
  const acknowledged = reported.filter((f) => f.acknowledged !== undefined).length;
  return {
    findings: reported,
    unmatchedAcknowledgements: acks.filter((a) => !used.has(a.index)),
    counts: { breaking: count('breaking'), risky: count('risky'), safe: count('safe'), acknowledged },
    failed: reported.some((f) => f.severity === 'breaking' && f.acknowledged === undefined),
  };
}
