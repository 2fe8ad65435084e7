import { KubeConfig } from '@kubernetes/client-node';
import { isNotFound } from '../../client/api-error.ts';
import { Transport } from '../../client/transport.ts';
import { OpGenError } from '../../errors.ts';
import type { CrdDocument, CrdSource } from './read-crds.ts';

/**
 * Reads CRDs by name from the cluster of the current kubeconfig context, as raw JSON (client-node's
 * typed models would rename `enum` and the x-kubernetes-* keys).
 */
export async function readCrdsFromCluster(names: readonly string[]): Promise<CrdSource[]> {
  const kc = new KubeConfig();
  kc.loadFromDefault();
  const transport = await Transport.fromKubeConfig(kc);
  try {
    const out: CrdSource[] = [];
    for (const name of names) {
      try {
        const crd = await transport.request<CrdDocument>({
          method: 'GET',
          path: `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${encodeURIComponent(name)}`,
        });
        out.push({ origin: `cluster CRD ${name}`, crd });
      } catch (err) {
        throw new OpGenError(
          isNotFound(err)
            ? `CRD ${name} is not in the cluster of the current kubeconfig context. Check the name with \`kubectl get crd\`.`
            : `could not read CRD ${name} from the cluster: ${(err as Error).message}`,
        );
      }
    }
    return out;
  } finally {
    transport.close();
  }
}
