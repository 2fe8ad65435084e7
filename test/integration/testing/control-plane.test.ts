import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  ApiextensionsV1Api,
  CoreV1Api,
  CustomObjectsApi,
  VersionApi,
  type V1CustomResourceDefinition,
} from '@kubernetes/client-node';
import {
  controlPlaneSkip,
  ENVTEST_K8S_VERSION,
  installCrd,
  startControlPlane,
  type ControlPlane,
} from '../../../src/testing/index.ts';
import { existsSync, readFileSync } from 'node:fs';

const crd: V1CustomResourceDefinition = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'widgets.test.op-gen.dev' },
  spec: {
    group: 'test.op-gen.dev',
    names: { kind: 'Widget', listKind: 'WidgetList', plural: 'widgets', singular: 'widget' },
    scope: 'Namespaced',
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: {
              spec: { type: 'object', properties: { size: { type: 'integer', minimum: 1 } } },
            },
          },
        },
      },
    ],
  },
};

function codeOf(err: unknown): number | undefined {
  return typeof err === 'object' && err !== null && 'code' in err ? (err.code as number) : undefined;
}

describe(
  'startControlPlane (real kube-apiserver + etcd)',
  { timeout: 120_000, skip: controlPlaneSkip() },
  () => {
    let cp: ControlPlane;

    before(async () => {
      const started = Date.now();
      cp = await startControlPlane();
      console.log(`# control plane ready in ${Date.now() - started} ms at ${cp.server}`);
    });

    after(async () => {
      await cp.stop();
    });

    it('runs the selected Kubernetes release (OP_GEN_K8S_VERSION, default tools/envtest/versions.json)', async () => {
      const version = await cp.kubeConfig.makeApiClient(VersionApi).getCode();
      assert.equal(version.gitVersion, `v${ENVTEST_K8S_VERSION}`);
    });

    it('writes a kubeconfig that points at the server', () => {
      assert.ok(existsSync(cp.kubeconfigPath));
      assert.match(readFileSync(cp.kubeconfigPath, 'utf8'), new RegExp(cp.server.replace(/[.]/g, '\\.')));
    });

    it('applies a CRD, creates a custom resource and reads it back; the schema is enforced', async () => {
      const ext = cp.kubeConfig.makeApiClient(ApiextensionsV1Api);
      await ext.createCustomResourceDefinition({ body: crd });
      const objects = cp.kubeConfig.makeApiClient(CustomObjectsApi);
      const target = { group: 'test.op-gen.dev', version: 'v1', namespace: 'default', plural: 'widgets' };
      // The CRD becomes servable a moment after creation.
      let created = false;
      for (let i = 0; i < 100 && !created; i++) {
        try {
          await objects.createNamespacedCustomObject({
            ...target,
            body: {
              apiVersion: 'test.op-gen.dev/v1',
              kind: 'Widget',
              metadata: { name: 'w1' },
              spec: { size: 3 },
            },
          });
          created = true;
        } catch (err) {
          if (codeOf(err) !== 404) throw err;
          await new Promise((r) => setTimeout(r, 100));
        }
      }
      assert.ok(created, 'the CRD never became servable');
      const got = (await objects.getNamespacedCustomObject({ ...target, name: 'w1' })) as {
        spec: { size: number };
      };
      assert.equal(got.spec.size, 3);
      await assert.rejects(
        objects.createNamespacedCustomObject({
          ...target,
          body: {
            apiVersion: 'test.op-gen.dev/v1',
            kind: 'Widget',
            metadata: { name: 'w2' },
            spec: { size: 0 },
          },
        }),
        (err: unknown) => codeOf(err) === 422,
      );
    });

    it('installCrd keeps enum and x-kubernetes-* validations, which a typed client-node create drops', async () => {
      const yaml = [
        'apiVersion: apiextensions.k8s.io/v1',
        'kind: CustomResourceDefinition',
        'metadata:',
        '  name: gadgets.test.op-gen.dev',
        'spec:',
        '  group: test.op-gen.dev',
        '  names: { kind: Gadget, listKind: GadgetList, plural: gadgets, singular: gadget }',
        '  scope: Cluster',
        '  versions:',
        '    - name: v1',
        '      served: true',
        '      storage: true',
        '      schema:',
        '        openAPIV3Schema:',
        '          type: object',
        '          properties:',
        '            spec:',
        '              type: object',
        '              properties:',
        '                mode: { type: string, enum: [fast, slow] }',
        '                port: { x-kubernetes-int-or-string: true }',
      ].join('\n');
      // With the admin KubeConfig; the served resource is derived from the CRD.
      await installCrd(cp.kubeConfig, yaml);
      const objects = cp.kubeConfig.makeApiClient(CustomObjectsApi);
      const target = { group: 'test.op-gen.dev', version: 'v1', plural: 'gadgets' };
      const gadget = (name: string, spec: object) => ({
        ...target,
        body: { apiVersion: 'test.op-gen.dev/v1', kind: 'Gadget', metadata: { name }, spec },
      });
      await objects.createClusterCustomObject(gadget('g1', { mode: 'fast', port: 'http' }));
      await assert.rejects(
        objects.createClusterCustomObject(gadget('g2', { mode: 'warp' })),
        (err: unknown) => codeOf(err) === 422,
        'the enum is enforced',
      );
    });

    it('enforces RBAC: a bare ServiceAccount gets 403 listing pods, the admin does not', async () => {
      const admin = cp.kubeConfig.makeApiClient(CoreV1Api);
      await admin.listNamespacedPod({ namespace: 'default' });
      const sa = await cp.kubeConfigForServiceAccount('rbac-test', 'bare');
      const asSa = sa.makeApiClient(CoreV1Api);
      await assert.rejects(
        asSa.listNamespacedPod({ namespace: 'rbac-test' }),
        (err: unknown) => codeOf(err) === 403,
      );
    });
  },
);
