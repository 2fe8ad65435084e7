import type { KubeConfig } from '@kubernetes/client-node';
import { checkDefaultKubeConfig } from '../client/kubeconfig-check.ts';
import { OpGenError } from '../errors.ts';

export interface KubeTarget {
  readonly kubeConfig: KubeConfig;
  readonly context: string;
  readonly server: string;
}

/**
 * The cluster `op-gen run` works against: the current context of the default kubeconfig ($KUBECONFIG,
 * else ~/.kube/config). No kubeconfig, or a context without a cluster, is one line (OpGenError).
 */
export async function loadKubeTarget(
  env: Readonly<Record<string, string | undefined>> = process.env,
): Promise<KubeTarget> {
  checkDefaultKubeConfig({ env });
  const { KubeConfig } = await import('@kubernetes/client-node');
  const kubeConfig = new KubeConfig();
  try {
    kubeConfig.loadFromDefault();
  } catch (err) {
    throw new OpGenError(`cannot read the kubeconfig: ${(err as Error).message.split('\n')[0]}`);
  }
  const context = kubeConfig.getCurrentContext();
  const server = kubeConfig.getCurrentCluster()?.server;
  if (!context || !server) {
    throw new OpGenError(
      `the kubeconfig has no current context with a cluster${context ? ` (current-context: ${context})` : ''}; pick one with kubectl config use-context`,
    );
  }
  return { kubeConfig, context, server };
}
