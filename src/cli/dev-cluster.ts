import type { CommandModule } from './command-module.ts';
import { contextFor } from './context.ts';
import { stopSignal } from './run.ts';

/** `op-gen dev-cluster`: a local control plane for `op-gen run` (docs/run.md). Loads only when run. */
export const devClusterCommand: CommandModule = {
  register(parent, io) {
    parent
      .command('dev-cluster')
      .description(
        "run a local control plane (op-gen/testing's kube-apiserver + etcd) until Ctrl-C; its kubeconfig goes to a file",
      )
      .option('--kubeconfig <path>', 'where to write the kubeconfig', '.op-gen/dev-cluster.kubeconfig')
      .action(async (opts: { kubeconfig: string }, command) => {
        const ctx = contextFor(command, io);
        const { runDevCluster } = await import('../dev-loop/dev-cluster.ts');
        const stop = stopSignal(process.env);
        try {
          await runDevCluster({
            cwd: ctx.cwd,
            stdout: ctx.stdout,
            kubeconfig: opts.kubeconfig,
            stopRequested: stop.requested,
          });
        } finally {
          stop.dispose();
        }
      });
  },
};
