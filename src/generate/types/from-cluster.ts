import { ApiextensionsV1Api, KubeConfig } from '@kubernetes/client-node';
import { OpGenError } from '../../errors.ts';
import type { CrdDocument, CrdSource } from './read-crds.ts';

/** Reads CRDs by name from the cluster of the current kubeconfig context. */
export async function readCrdsFromCluster(names: readonly string[]): Promise<CrdSource[]> {
  const kc = new KubeConfig();
  kc.loadFromDefault();
  const api = kc.makeApiClient(ApiextensionsV1Api);
  const out: CrdSource[] = [];
  for (const name of names) {
    try {
      const crd = await api.readCustomResourceDefinition({ name });
      out.push({
        origin: `cluster CRD ${name}`,
        crd: {
          ...(crd as unknown as CrdDocument),
          apiVersion: 'apiextensions.k8s.io/v1',
          kind: 'CustomResourceDefinition',
        },
      });
    } catch (err) {
      const code = (err as { code?: number }).code;
      throw new OpGenError(
        code === 404
          ? `CRD ${name} is not in the cluster of the current kubeconfig context. Check the name with \`kubectl get crd\`.`
          : `could not read CRD ${name} from the cluster: ${(err as Error).message}`,
      );
    }
  }
  return out;
}
