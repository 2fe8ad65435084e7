import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import { OpGenError } from '../errors.ts';
import type { ProgressStream } from '../shared/progress.ts';

/** Where `op-gen dev-cluster` writes its kubeconfig, relative to the project (gitignored by the scaffold). */
export const DEV_CLUSTER_KUBECONFIG = '.op-gen/dev-cluster.kubeconfig';

export interface DevClusterOptions {
  readonly cwd: string;
  readonly stdout: ProgressStream;
  /** Where the kubeconfig goes, relative to `cwd` (default DEV_CLUSTER_KUBECONFIG). */
  readonly kubeconfig?: string;
  /** Resolves when the user asks to stop (Ctrl-C, SIGTERM), with why (printed). */
  readonly stopRequested: Promise<string>;
}

/**
 * `op-gen dev-cluster`: op-gen/testing's control plane (kube-apiserver + etcd, no nodes) kept running
 * until `stopRequested`, its admin kubeconfig written to a file (removed on stop), so `op-gen run` has a
 * cluster on a machine without one (docs/run.md).
 */
export async function runDevCluster(options: DevClusterOptions): Promise<void> {
  const { findControlPlaneBinaries } = await import('../testing/binaries.ts');
  const lookup = findControlPlaneBinaries();
  if (!lookup.found)
    throw new OpGenError(`op-gen dev-cluster: ${lookup.reason} (npm run setup:envtest in op-gen)`);
  const { startControlPlane } = await import('../testing/control-plane.ts');
  const { leaveSignalsToCaller } = await import('../testing/process-registry.ts');
  leaveSignalsToCaller(); // this command stops the control plane itself, then removes the kubeconfig
  const log = (line: string): void => void options.stdout.write(`${line}\n`);
  // Signal handlers and a pending promise do not keep Node running; this does, until the end.
  const keepAlive = setInterval(() => undefined, 1 << 30);
  const path = resolve(options.cwd, options.kubeconfig ?? DEV_CLUSTER_KUBECONFIG);
  try {
    const cp = await startControlPlane();
    try {
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, cp.kubeConfig.exportConfig(), { mode: 0o600 });
      log(`op-gen dev-cluster: API server ${cp.server}`);
      log(`  kubeconfig: ${relative(options.cwd, path) || path}`);
      log(`  in another terminal: export KUBECONFIG=${path}; npm run dev`);
      log('  Ctrl-C stops it (its data is not kept)');
      log(`op-gen dev-cluster: stopping (${await options.stopRequested})`);
    } finally {
      await cp.stop();
      rmSync(path, { force: true });
    }
  } finally {
    clearInterval(keepAlive);
  }
  log('op-gen dev-cluster: stopped');
}
