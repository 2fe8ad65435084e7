import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, join } from 'node:path';
import { OpGenError } from '../errors.ts';

/** Where in-cluster credentials live (client-go's rest.InClusterConfig). */
const SERVICE_ACCOUNT_TOKEN = '/var/run/secrets/kubernetes.io/serviceaccount/token';

/** No usable kubeconfig: a one-line error for the user (exit 1), not a connection attempt to localhost. */
export class KubeConfigNotFoundError extends OpGenError {
  constructor(message: string) {
    super(message);
    this.name = 'KubeConfigNotFoundError';
  }
}

export interface KubeConfigEnvironment {
  readonly env?: Readonly<Record<string, string | undefined>>;
  readonly home?: string;
  readonly exists?: (path: string) => boolean;
}

/**
 * Checks that the default kubeconfig loading (client-node's loadFromDefault: $KUBECONFIG, else
 * ~/.kube/config, else in-cluster) has something to load. Without this check client-node falls back
 * to http://localhost:8080 and the user reads "HTTP protocol is not allowed when skipTLSVerify is not
 * set"; client-go says "no configuration has been provided". Throws KubeConfigNotFoundError.
 */
export function checkDefaultKubeConfig(environment: KubeConfigEnvironment = {}): void {
  const env = environment.env ?? process.env;
  const exists = environment.exists ?? existsSync;
  const fromEnv = env.KUBECONFIG;
  if (fromEnv !== undefined && fromEnv !== '') {
    const paths = fromEnv.split(delimiter).filter((p) => p !== '');
    if (paths.some((p) => exists(p))) return;
    throw new KubeConfigNotFoundError(
      `no kubeconfig found: KUBECONFIG=${fromEnv} names no file that exists; point KUBECONFIG at a kubeconfig file or unset it to use ~/.kube/config`,
    );
  }
  const home = environment.home ?? homedir();
  if (exists(join(home, '.kube', 'config'))) return;
  if (env.KUBERNETES_SERVICE_HOST && env.KUBERNETES_SERVICE_PORT && exists(SERVICE_ACCOUNT_TOKEN)) return;
  throw new KubeConfigNotFoundError('no kubeconfig found: set KUBECONFIG or create ~/.kube/config');
}
