import { relative, resolve } from 'node:path';
import { readProjectFile } from '../shared/project-file.ts';
import type { CrdManifest } from './crd-sync.ts';

export interface GenerateOutcome {
  /** The generated CRDs, as objects. */
  readonly crds: readonly CrdManifest[];
  /** Files the generators wrote (content changed), relative to the project. */
  readonly written: readonly string[];
}

/**
 * What the scaffold's `npm run generate` does (CRDs, RBAC, typed clients), in this process: the
 * generators load once and stay warm for every later round, where three `op-gen` processes would each
 * load the TypeScript compiler again.
 */
export async function generateAll(cwd: string): Promise<GenerateOutcome> {
  const apiDir = readProjectFile(cwd)?.apiDir ?? 'src/api';
  const [{ generateCrds }, { generateRbac }, { generateClients }] = await Promise.all([
    import('../generate/crd/index.ts'),
    import('../generate/rbac/generate-rbac.ts'),
    import('../generate/client/index.ts'),
  ]);
  const crd = await generateCrds({ cwd, apiDir });
  const rbac = generateRbac({ cwd });
  const clients = await generateClients({ cwd, apiDir });
  const rel = (p: string): string => relative(cwd, resolve(cwd, p));
  const written = [...crd.changed, ...rbac.changed, ...clients.changed].map(rel);
  return { crds: crd.crds as unknown as readonly CrdManifest[], written: [...new Set(written)].sort() };
}
