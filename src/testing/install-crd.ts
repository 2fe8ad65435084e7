import { setTimeout as sleep } from 'node:timers/promises';
import { parse } from 'yaml';
import { isNotFound } from '../client/api-error.ts';
import { defineKind, type Kind } from '../client/kind.ts';
import { ResourceClient, type ObjectLike } from '../client/resource-client.ts';
import type { Transport } from '../client/transport.ts';

interface CrdObject extends ObjectLike {
  spec?: { group: string; names: { plural: string } };
  status?: { conditions?: { type: string; status: string }[] };
}

const CrdKind = defineKind<CrdObject>({
  group: 'apiextensions.k8s.io',
  version: 'v1',
  kind: 'CustomResourceDefinition',
  plural: 'customresourcedefinitions',
  namespaced: false,
});

/**
 * Creates a CRD (YAML text or object) as raw JSON and waits until its resource answers a list:
 * Established and served. (client-node's typed CRD model would drop `enum` and rename the
 * x-kubernetes-* keys.)
 */
export async function installCrd(
  transport: Transport,
  crd: string | object,
  served: Kind<ObjectLike>,
): Promise<void> {
  const crds = new ResourceClient(transport, CrdKind);
  await crds.create((typeof crd === 'string' ? parse(crd) : crd) as CrdObject);
  const resources = new ResourceClient(transport, served);
  for (let i = 0; i < 200; i++) {
    try {
      await resources.list({ limit: 1 });
      return;
    } catch (err) {
      if (!isNotFound(err)) throw err;
      await sleep(50);
    }
  }
  throw new Error(`${served.plural}.${served.group} was never served`);
}
