import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { OpGenError } from '../../src/errors.ts';
import { generateCrdsWith as generateWithFrontEnd } from '../../src/generate/crd/generate.ts';
import type { CrdFrontEnd } from '../../src/generate/crd/front-end.ts';

/** The CRD front ends a test chooses between (generate crd itself always runs `auto`). */
export type FrontEnd = CrdFrontEnd;

export type CrdOutcome =
  | { readonly ok: true; readonly files: Record<string, string> }
  | { readonly ok: false; readonly error: string; readonly internal: boolean };

/**
 * generate crd through the library with one front end, into `outDir` (removed afterwards): the files
 * written, or the error (`internal` when it is not op-gen's own: the CLI's exit 70, a defect).
 */
export async function generateCrdsWith(
  front: FrontEnd,
  options: {
    readonly cwd: string;
    readonly apiDir: string;
    readonly outDir: string;
    readonly maxDescLen?: 'auto' | number;
  },
): Promise<CrdOutcome> {
  try {
    await generateWithFrontEnd(front, options);
    const files: Record<string, string> = {};
    for (const f of readdirSync(options.outDir).sort())
      files[f] = readFileSync(join(options.outDir, f), 'utf8');
    return { ok: true, files };
  } catch (err) {
    return { ok: false, error: (err as Error).message, internal: !(err instanceof OpGenError) };
  } finally {
    rmSync(options.outDir, { recursive: true, force: true });
  }
}

/**
 * generate crd into the project `dir` (its default output folder) with one front end: the exit code
 * the CLI gives the outcome (0, an OpGenError's code, 70 for a defect), the CRD file `crd` as
 * written, the error's message and the warnings.
 */
export async function generateCrdIn(
  dir: string,
  front: FrontEnd,
  crd: string,
): Promise<{ code: number; crd: string; err: string; warnings: readonly string[] }> {
  rmSync(join(dir, 'config'), { recursive: true, force: true });
  try {
    const result = await generateWithFrontEnd(front, { cwd: dir });
    return { code: 0, crd: readFileSync(join(dir, crd), 'utf8'), err: '', warnings: result.warnings };
  } catch (err) {
    const code = err instanceof OpGenError ? err.exitCode : 70;
    return { code, crd: '', err: (err as Error).message, warnings: [] };
  }
}
