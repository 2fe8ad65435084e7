import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

interface EnvtestRelease {
  readonly kubernetes: string;
  readonly etcd: string;
}

interface EnvtestVersions {
  readonly default: string;
  readonly releases: Readonly<Record<string, EnvtestRelease>>;
}

// tools/envtest/versions.json sits two folders up from both src/testing and dist/testing.
const versionsFile = resolve(
  dirname(fileURLToPath(import.meta.url)),
  '..',
  '..',
  'tools',
  'envtest',
  'versions.json',
);
const versions = JSON.parse(readFileSync(versionsFile, 'utf8')) as EnvtestVersions;

/** The Kubernetes minor releases the test control plane can be built at (`setup:envtest --k8s-version`). */
export const SUPPORTED_K8S_MINORS: readonly string[] = Object.keys(versions.releases);

/** The release selected by OP_GEN_K8S_VERSION (a minor such as `1.35`), else the default. */
function selectedRelease(): EnvtestRelease {
  const wanted = (process.env.OP_GEN_K8S_VERSION || versions.default).replace(/^v/, '');
  const minor = wanted.split('.').slice(0, 2).join('.');
  const release = versions.releases[minor];
  if (!release) {
    throw new Error(
      `OP_GEN_K8S_VERSION=${wanted} is not a supported Kubernetes release; supported: ${SUPPORTED_K8S_MINORS.join(', ')}`,
    );
  }
  return release;
}

/** The Kubernetes version the test control plane is built at (see tools/envtest/versions.json). */
export const ENVTEST_K8S_VERSION = selectedRelease().kubernetes;

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
  // An explicit directory is the only one looked at: a caller who names one must not get others.
  if (explicit) return [explicit];
  const dirs: string[] = [];
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
