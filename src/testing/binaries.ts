import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

/** The Kubernetes version the test control plane is built at (see tools/envtest). */
export const ENVTEST_K8S_VERSION = '1.34.3';

export interface ControlPlaneBinaries {
  readonly dir: string;
  readonly kubeApiServer: string;
  readonly etcd: string;
}

export type BinaryLookup =
  | { readonly found: true; readonly binaries: ControlPlaneBinaries }
  | { readonly found: false; readonly reason: string };

/** Directories searched for kube-apiserver and etcd, in order. */
export function binaryDirCandidates(explicit?: string): string[] {
  const dirs: string[] = [];
  if (explicit) dirs.push(explicit);
  if (process.env.KUBEBUILDER_ASSETS) dirs.push(process.env.KUBEBUILDER_ASSETS);
  if (process.env.OP_GEN_ENVTEST_DIR) dirs.push(process.env.OP_GEN_ENVTEST_DIR);
  dirs.push(envtestCacheDir());
  return dirs;
}

/** Where `npm run setup:envtest` builds the binaries (shared by every checkout on the machine). */
export function envtestCacheDir(): string {
  const base = process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache');
  return join(base, 'op-gen', 'envtest', `v${ENVTEST_K8S_VERSION}`);
}

export function findControlPlaneBinaries(explicit?: string): BinaryLookup {
  const tried: string[] = [];
  for (const dir of binaryDirCandidates(explicit)) {
    const kubeApiServer = join(dir, 'kube-apiserver');
    const etcd = join(dir, 'etcd');
    if (existsSync(kubeApiServer) && existsSync(etcd)) {
      return { found: true, binaries: { dir, kubeApiServer, etcd } };
    }
    tried.push(dir);
  }
  return {
    found: false,
    reason:
      `kube-apiserver and etcd were not found in ${tried.join(', ')}. ` +
      'Build them with `npm run setup:envtest` in op-gen (from a project: `npm explore op-gen -- npm run setup:envtest`; needs Go), ' +
      'or set KUBEBUILDER_ASSETS to a directory that holds both binaries.',
  };
}
