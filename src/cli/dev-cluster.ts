import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import { OpGenError } from '../errors.ts';
import type { CommandModule } from './command-module.ts';
import { contextFor } from './context.ts';
import { stopSignal } from './run.ts';

/** Where `op-gen dev-cluster` writes its kubeconfig, relative to the project (gitignored by the scaffold). */
export const DEV_CLUSTER_KUBECONFIG = '.op-gen/dev-cluster.kubeconfig';

/**
 * `op-gen dev-cluster`: op-gen/testing's control plane (kube-apiserver + etcd, no nodes) kept running
 * until Ctrl-C or SIGTERM, its kubeconfig written to a file, so `op-gen run` has a cluster on a machine
 * without one (docs/run.md).
 */
export const devClusterCommand: CommandModule = {
  register(parent, io) {
    parent
      .command('dev-cluster')
      .description(
        "run a local control plane (op-gen/testing's kube-apiserver + etcd) until Ctrl-C; its kubeconfig goes to a file",
      )
      .option('--kubeconfig <path>', 'where to write the kubeconfig', DEV_CLUSTER_KUBECONFIG)
      .action(async (opts: { kubeconfig: string }, command) => {
        const ctx = contextFor(command, io);
        const { startControlPlane } = await import('../testing/control-plane.ts');
        const { findControlPlaneBinaries } = await import('../testing/binaries.ts');
        const { leaveSignalsToCaller } = await import('../testing/process-registry.ts');
        const lookup = findControlPlaneBinaries();
        if (!lookup.found)
          throw new OpGenError(`op-gen dev-cluster: ${lookup.reason} (npm run setup:envtest in op-gen)`);
        leaveSignalsToCaller(); // this command stops the control plane itself, then removes the kubeconfig
        const stop = stopSignal(process.env);
        // Signal handlers and a pending promise do not keep Node running; this does, until the end.
        const keepAlive = setInterval(() => undefined, 1 << 30);
        const path = resolve(ctx.cwd, opts.kubeconfig);
        try {
          const cp = await startControlPlane();
          try {
            mkdirSync(dirname(path), { recursive: true });
            writeFileSync(path, cp.kubeConfig.exportConfig(), { mode: 0o600 });
            const shown = relative(ctx.cwd, path) || path;
            ctx.stdout.write(
              `op-gen dev-cluster: API server ${cp.kubeConfig.getCurrentCluster()?.server ?? '?'}\n` +
                `  kubeconfig: ${shown}\n` +
                `  in another terminal: export KUBECONFIG=${path}; npm run dev\n` +
                '  Ctrl-C stops it (its data is not kept)\n',
            );
            const why = await stop.requested;
            ctx.stdout.write(`op-gen dev-cluster: stopping (${why})\n`);
          } finally {
            await cp.stop();
            rmSync(path, { force: true });
          }
        } finally {
          clearInterval(keepAlive);
          stop.dispose();
        }
        ctx.stdout.write('op-gen dev-cluster: stopped\n');
      });
  },
};
