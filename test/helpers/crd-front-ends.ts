import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { main } from '../../src/cli/main.ts';
import { OpGenError } from '../../src/errors.ts';
import { generateCrds } from '../../src/generate/crd/index.ts';
import { sink } from './io.ts';

/** The CRD front ends OP_GEN_CRD_FRONT_END chooses between. */
export type FrontEnd = 'checker' | 'syntax' | 'auto';

/** Runs `run` with OP_GEN_CRD_FRONT_END set to `front`, then puts the variable back as it was. */
async function withFrontEnd<T>(front: FrontEnd, run: () => Promise<T>): Promise<T> {
  const before = process.env.OP_GEN_CRD_FRONT_END;
  process.env.OP_GEN_CRD_FRONT_END = front;
  try {
    return await run();
  } finally {
    if (before === undefined) delete process.env.OP_GEN_CRD_FRONT_END;
    else process.env.OP_GEN_CRD_FRONT_END = before;
  }
}

export type CrdOutcome =
  | { readonly ok: true; readonly files: Record<string, string> }
  | { readonly ok: false; readonly error: string; readonly internal: boolean };

/**
 * generate crd through the library with one front end, into `outDir` (removed afterwards): the files
 * written, or the error (`internal` when it is not op-gen's own: the CLI's exit 70, a defect).
 */
export function generateCrdsWith(
  front: FrontEnd,
  options: {
    readonly cwd: string;
    readonly apiDir: string;
    readonly outDir: string;
    readonly maxDescLen?: 'auto' | number;
  },
): Promise<CrdOutcome> {
  return withFrontEnd(front, async () => {
    try {
      await generateCrds(options);
      const files: Record<string, string> = {};
      for (const f of readdirSync(options.outDir).sort())
        files[f] = readFileSync(join(options.outDir, f), 'utf8');
      return { ok: true, files };
    } catch (err) {
      return { ok: false, error: (err as Error).message, internal: !(err instanceof OpGenError) };
    } finally {
      rmSync(options.outDir, { recursive: true, force: true });
    }
  });
}

/** `op-gen generate crd --cwd dir` with one front end: its exit code, the CRD file `crd` as written, stderr. */
export function generateCrdCli(
  dir: string,
  front: FrontEnd,
  crd: string,
): Promise<{ code: number; crd: string; err: string }> {
  return withFrontEnd(front, async () => {
    const err = sink();
    rmSync(join(dir, 'config'), { recursive: true, force: true });
    const code = await main(['generate', 'crd', '--cwd', dir], { stdout: sink().stream, stderr: err.stream });
    return { code, crd: code === 0 ? readFileSync(join(dir, crd), 'utf8') : '', err: err.text() };
  });
}
