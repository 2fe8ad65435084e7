import { setTimeout as sleep } from 'node:timers/promises';
import {
  ApiextensionsV1Api,
  AuthorizationV1Api,
  KubernetesObjectApi,
  PatchStrategy,
  type KubeConfig,
  type KubernetesObject,
  type V1CustomResourceDefinition,
} from '@kubernetes/client-node';
import { parseAllDocuments } from 'yaml';
import type { OutputFile } from '../../../src/shared/atomic-write.ts';

/** The Memcached CRD (any spec; status subresource), as the samples need it. */
export const memcachedCrd = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'memcacheds.cache.example.com' },
  spec: {
    group: 'cache.example.com',
    names: { kind: 'Memcached', listKind: 'MemcachedList', plural: 'memcacheds', singular: 'memcached' },
    scope: 'Namespaced',
    versions: [
      {
        name: 'v1alpha1',
        served: true,
        storage: true,
        subresources: { status: {} },
        schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
      },
    ],
  },
};

/** Creates a CRD (default: the Memcached CRD above) and waits until it is Established. */
export async function installMemcachedCrd(
  admin: KubeConfig,
  crd: V1CustomResourceDefinition = memcachedCrd,
): Promise<void> {
  const ext = admin.makeApiClient(ApiextensionsV1Api);
  await ext.createCustomResourceDefinition({ body: crd });
  for (let i = 0; ; i++) {
    const current = await ext.readCustomResourceDefinition({ name: crd.metadata?.name ?? '' });
    if (current.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True')) return;
    if (i > 100) throw new Error('CRD not established');
    await sleep(100);
  }
}

/** Every object of the generated manifests (kustomization.yaml left out). */
export function manifestObjects(files: readonly OutputFile[]): KubernetesObject[] {
  return files
    .filter((f) => !f.path.endsWith('kustomization.yaml'))
    .flatMap((f) => parseAllDocuments(f.content).map((d) => d.toJS() as KubernetesObject));
}

/** Server-side applies the objects as the admin (replacing rule lists on a second apply). */
export async function apply(admin: KubeConfig, objects: readonly KubernetesObject[]): Promise<void> {
  const client = KubernetesObjectApi.makeApiClient(admin);
  for (const object of objects) {
    await client.patch(object, undefined, undefined, 'op-gen-test', true, PatchStrategy.ServerSideApply);
  }
}

export interface ResourceAttributes {
  readonly group: string;
  readonly resource: string;
  readonly verb: string;
  readonly namespace?: string;
  readonly subresource?: string;
}

/** Waits until the RBAC authorizer gives the expected decision for a ServiceAccount. */
export async function waitForDecision(
  admin: KubeConfig,
  serviceAccount: { readonly namespace: string; readonly name: string },
  attributes: ResourceAttributes,
  allowed: boolean,
): Promise<void> {
  const authz = admin.makeApiClient(AuthorizationV1Api);
  const { namespace, name } = serviceAccount;
  const deadline = Date.now() + 10_000;
  for (;;) {
    const review = await authz.createSubjectAccessReview({
      body: {
        spec: {
          user: `system:serviceaccount:${namespace}:${name}`,
          groups: ['system:serviceaccounts', `system:serviceaccounts:${namespace}`, 'system:authenticated'],
          resourceAttributes: attributes,
        },
      },
    });
    if ((review.status?.allowed ?? false) === allowed) return;
    if (Date.now() > deadline) {
      throw new Error(`RBAC did not converge: ${JSON.stringify(attributes)} allowed=${!allowed}`);
    }
    await sleep(100);
  }
}

/** Polls `probe` until it returns a value other than undefined/false. */
export async function eventually<T>(
  what: string,
  probe: () => Promise<T | undefined | false>,
  timeoutMs = 15_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}
