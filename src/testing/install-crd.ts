import { setTimeout as sleep } from 'node:timers/promises';
import type { KubeConfig } from '@kubernetes/client-node';
import { yamlPackage } from '../shared/yaml-package.ts';
import { isNotFound } from '../client/api-error.ts';
import { defineKind, type Kind } from '../client/kind.ts';
import { ResourceClient, type ObjectLike } from '../client/resource-client.ts';
import { isTransport, Transport } from '../client/transport.ts';

interface CrdObject extends ObjectLike {
  spec?: {
    group: string;
    names: { plural: string; kind: string };
    scope?: string;
    versions?: { name: string; served?: boolean; storage?: boolean }[];
  };
}

const CrdKind = defineKind<CrdObject>({
  group: 'apiextensions.k8s.io',
  version: 'v1',
  kind: 'CustomResourceDefinition',
  plural: 'customresourcedefinitions',
  namespaced: false,
});

/** The resource a CRD serves (its storage version, else the first served one), to wait on. */
function servedKind(crd: CrdObject): Kind<ObjectLike> {
  const spec = crd.spec;
  const version =
    spec?.versions?.find((v) => v.storage && v.served !== false) ??
    spec?.versions?.find((v) => v.served !== false);
  if (!spec || !version) {
    throw new Error(`installCrd: ${crd.metadata?.name ?? 'the CRD'} has no served version`);
  }
  return defineKind<ObjectLike>({
    group: spec.group,
    version: version.name,
    kind: spec.names.kind,
    plural: spec.names.plural,
    namespaced: spec.scope !== 'Cluster',
  });
}

/**
 * Creates a CRD (YAML text or object) as raw JSON and waits until its resource answers a list:
 * Established and served. (client-node's typed CRD model would drop `enum` and the
 * x-kubernetes-* keys: a CRD created through it loses validations.) `target` is a Transport or a
 * KubeConfig such as `ControlPlane.kubeConfig`; `served` defaults to the CRD's storage version.
 */
export async function installCrd(
  target: Transport | KubeConfig,
  crd: string | object,
  served?: Kind<ObjectLike>,
): Promise<void> {
  const transport = isTransport(target) ? target : await Transport.fromKubeConfig(target);
  try {
    const object = (typeof crd === 'string' ? yamlPackage().parse(crd) : crd) as CrdObject;
    const kind = served ?? servedKind(object);
    await new ResourceClient(transport, CrdKind).create(object);
    const resources = new ResourceClient(transport, kind);
    for (let i = 0; i < 200; i++) {
      try {
        await resources.list({ limit: 1 });
        return;
      } catch (err) {
        if (!isNotFound(err)) throw err;
        await sleep(50);
      }
    }
    throw new Error(`${kind.plural}.${kind.group} was never served`);
  } finally {
    if (transport !== target) transport.close();
  }
}
