import type { KubeConfig } from '@kubernetes/client-node';
import { defineKind, type Kind } from '../client/kind.ts';
import { ResourceClient, type ObjectLike } from '../client/resource-client.ts';
import { Transport } from '../client/transport.ts';
import type { CrdApplier, CrdManifest } from './crd-sync.ts';

/** The field manager of op-gen's server-side applies (`kubectl get crd -o yaml --show-managed-fields`). */
export const FIELD_MANAGER = 'op-gen';

interface CrdObject extends ObjectLike {
  status?: { conditions?: { type: string; status: string; message?: string }[] };
}

const crdKind: Kind<CrdObject> = defineKind<CrdObject>({
  group: 'apiextensions.k8s.io',
  version: 'v1',
  kind: 'CustomResourceDefinition',
  plural: 'customresourcedefinitions',
  namespaced: false,
});

export interface KubeCrdApplier extends CrdApplier {
  close(): void;
}

/**
 * Applies CRDs server-side (field manager `op-gen`, forced: the generated CRD is the truth while
 * developing) and waits until the API server serves the kind (Established), so the manager started
 * next finds it.
 */
export async function kubeCrdApplier(
  kubeConfig: KubeConfig,
  options: { establishTimeoutMs?: number } = {},
): Promise<KubeCrdApplier> {
  const transport = await Transport.fromKubeConfig(kubeConfig, { userAgent: 'op-gen-run' });
  const client = new ResourceClient(transport, crdKind);
  const timeoutMs = options.establishTimeoutMs ?? 30_000;
  return {
    async apply(crd: CrdManifest): Promise<void> {
      const name = crd.metadata.name;
      let got = await client.apply(crd as CrdObject, { fieldManager: FIELD_MANAGER, force: true });
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const conditions = got.status?.conditions ?? [];
        if (conditions.some((c) => c.type === 'Established' && c.status === 'True')) return;
        const refused = conditions.find((c) => c.type === 'NamesAccepted' && c.status === 'False');
        if (refused) throw new Error(`names not accepted: ${refused.message ?? 'conflict'}`);
        if (Date.now() > deadline) throw new Error(`not Established after ${timeoutMs} ms`);
        await new Promise((r) => setTimeout(r, 50));
        got = await client.get({ name });
      }
    },
    close: () => transport.close(),
  };
}
