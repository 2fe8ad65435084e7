import { ResourceClient, Transport, defineKind } from '../../../src/client/index.ts';
import { pluralize } from '../../../src/k8s-names/index.ts';
import { isClusterScoped } from '../../../src/kustomize/cluster-scoped.ts';
import type { ControlPlane } from '../../../src/testing/index.ts';

/** An object of a manifest, as the tests read it. */
export interface ManifestObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; [k: string]: unknown };
  [k: string]: unknown;
}

function clientFor(transport: Transport, o: ManifestObject): ResourceClient<ManifestObject> {
  const [group, version] = o.apiVersion.includes('/') ? o.apiVersion.split('/') : ['', o.apiVersion];
  const kind = defineKind<ManifestObject>({
    group: group ?? '',
    version: version ?? '',
    kind: o.kind,
    plural: pluralize(o.kind),
    namespaced: !isClusterScoped(o.kind),
  });
  return new ResourceClient<ManifestObject>(transport, kind);
}

/** Server-side applies every object in order (as `kubectl apply --server-side` would). */
export async function applyAll(cp: ControlPlane, objects: readonly ManifestObject[]): Promise<void> {
  const transport = await Transport.fromKubeConfig(cp.kubeConfig);
  try {
    for (const o of objects)
      await clientFor(transport, o).apply(o, { fieldManager: 'op-gen-test', force: true });
  } finally {
    transport.close();
  }
}

/** Reads every object back from the API server (throws on the first missing one). */
export async function getAll(
  cp: ControlPlane,
  objects: readonly ManifestObject[],
): Promise<ManifestObject[]> {
  const transport = await Transport.fromKubeConfig(cp.kubeConfig);
  try {
    const out: ManifestObject[] = [];
    for (const o of objects) {
      const key = {
        name: o.metadata.name,
        ...(o.metadata.namespace ? { namespace: o.metadata.namespace } : {}),
      };
      out.push(await clientFor(transport, o).get(key));
    }
    return out;
  } finally {
    transport.close();
  }
}
