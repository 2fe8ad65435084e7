import { KubeConfig } from '@kubernetes/client-node';
import { isApiError } from '../../client/api-error.ts';
import { defineKind } from '../../client/kind.ts';
import { ResourceClient } from '../../client/resource-client.ts';
import { checkDefaultKubeConfig } from '../../client/kubeconfig-check.ts';
import { Transport } from '../../client/transport.ts';
import { OpGenError } from '../../errors.ts';
import { asCrd, type CrdDocument } from './read-crds.ts';

const CrdKind = defineKind<{ apiVersion?: string; kind?: string; metadata?: { name?: string } }>({
  group: 'apiextensions.k8s.io',
  version: 'v1',
  kind: 'CustomResourceDefinition',
  plural: 'customresourcedefinitions',
  namespaced: false,
});

/**
 * Reads one CRD by name (`certificates.cert-manager.io`) from the cluster of the current kubeconfig
 * (KUBECONFIG, ~/.kube/config or in-cluster), as raw JSON so schema keys keep their wire names.
 */
export async function fetchCrdFromCluster(name: string, kubeConfig?: KubeConfig): Promise<CrdDocument> {
  const kc = kubeConfig ?? new KubeConfig();
  if (!kubeConfig) {
    checkDefaultKubeConfig();
    kc.loadFromDefault();
  }
  const server = kc.getCurrentCluster()?.server ?? 'the current cluster';
  const source = `cluster:${name}`;
  let transport: Transport | undefined;
  try {
    transport = await Transport.fromKubeConfig(kc, { userAgent: 'op-gen-generate-types', timeoutMs: 30_000 });
    const crd = await new ResourceClient(transport, CrdKind).get({ name });
    return { source, index: 0, line: 1, crd: asCrd(crd, source) };
  } catch (err) {
    if (err instanceof OpGenError) throw err;
    if (isApiError(err) && err.statusCode === 404) {
      throw new OpGenError(
        `--from-cluster ${name}: no such CustomResourceDefinition on ${server}. List them with \`kubectl get crd\`.`,
      );
    }
    throw new OpGenError(
      `--from-cluster ${name}: could not read the CRD from ${server}: ${(err as Error).message.split('\n')[0]}`,
    );
  } finally {
    transport?.close();
  }
}
