import { isAbsolute, relative, resolve, sep } from 'node:path';
import { generatorContext } from '../generation/context.ts';
import type { CrdManifest } from './crd-sync.ts';

export interface GenerateOutcome {
  /** The generated CRDs, as objects. */
  readonly crds: readonly CrdManifest[];
  /** Files the generators wrote (content changed), relative to the project. */
  readonly written: readonly string[];
}

/** Runs the generators for a round; `changed` (absolute paths) is undefined for the first round. */
export type Generate = (changed?: readonly string[]) => Promise<GenerateOutcome>;

/** Whether `path` (absolute) lies in `dir` (absolute). */
function isInside(path: string, dir: string): boolean {
  const rel = relative(dir, path);
  return rel !== '' && !rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel);
}

/**
 * What the scaffold's `npm run generate` does (CRDs, RBAC, typed clients), in this process, through the
 * registry: the generators load once and stay warm for every later round, where three `op-gen`
 * processes would each load the TypeScript compiler again, and the generators of a round share one
 * context, so the round reads its sources once (generation/context.ts). CRDs and clients come from
 * the API folder only, so a round whose changes are all outside it (a controller edit) regenerates
 * only the RBAC (markers and builders can be anywhere under src/) and reuses the CRDs of the last round.
 */
export function projectGenerator(cwd: string): Generate {
  let lastCrds: readonly CrdManifest[] | undefined;
  return async (changed) => {
    const apiRoot = resolve(cwd, generatorContext({ cwd }).apiDir);
    const apiChanged =
      lastCrds === undefined || changed === undefined || changed.some((p) => isInside(p, apiRoot));
    const rel = (p: string): string => relative(cwd, resolve(cwd, p));
    const { generateAll } = await import('../generate/registry.ts');
    const results = await generateAll(apiChanged ? ['crd', 'client', 'rbac'] : ['rbac'], { cwd });
    if (results.crd) lastCrds = results.crd.crds as unknown as readonly CrdManifest[];
    const written = Object.values(results).flatMap((r) => r.written);
    return { crds: lastCrds ?? [], written: [...new Set(written.map(rel))].sort() };
  };
}
