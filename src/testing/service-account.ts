import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';

export interface ServiceAccountConfigOptions {
  /** Token lifetime; default 3600 s. */
  readonly expirationSeconds?: number;
}

function statusCode(err: unknown): number | undefined {
  if (typeof err === 'object' && err !== null && 'code' in err && typeof err.code === 'number')
    return err.code;
  return undefined;
}

async function createIfMissing(create: () => Promise<unknown>): Promise<void> {
  try {
    await create();
  } catch (err) {
    if (statusCode(err) !== 409) throw err;
  }
}

/**
 * Builds a KubeConfig that authenticates as system:serviceaccount:<namespace>:<name> with a token
 * issued by the API server's TokenRequest API (no kube-controller-manager needed).
 */
export async function serviceAccountKubeConfig(
  admin: KubeConfig,
  namespace: string,
  name: string,
  options: ServiceAccountConfigOptions = {},
): Promise<KubeConfig> {
  const core = admin.makeApiClient(CoreV1Api);
  await createIfMissing(() => core.createNamespace({ body: { metadata: { name: namespace } } }));
  await createIfMissing(() =>
    core.createNamespacedServiceAccount({ namespace, body: { metadata: { name, namespace } } }),
  );
  const tokenRequest = await core.createNamespacedServiceAccountToken({
    name,
    namespace,
    body: { spec: { audiences: [], expirationSeconds: options.expirationSeconds ?? 3600 } },
  });
  const token = tokenRequest.status?.token;
  if (!token) throw new Error(`TokenRequest for ${namespace}/${name} returned no token`);
  const cluster = admin.getCurrentCluster();
  if (!cluster) throw new Error('the admin KubeConfig has no current cluster');
  const user = `system:serviceaccount:${namespace}:${name}`;
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [cluster],
    users: [{ name: user, token }],
    contexts: [{ name: user, cluster: cluster.name, user, namespace }],
    currentContext: user,
  });
  return kc;
}
