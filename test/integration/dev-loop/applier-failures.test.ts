import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { kubeCrdApplier, type KubeCrdApplier } from '../../../src/dev-loop/kube-applier.ts';
import { controlPlaneSkip, startControlPlane, type ControlPlane } from '../../../src/testing/index.ts';

/**
 * `op-gen run`'s CRD applier against a real API server: a CRD it applies is served when apply
 * resolves; one the server refuses and one whose names another CRD holds each reject with the
 * reason (the dev loop prints it and waits for the next change).
 */
function crd(plural: string, kind: string, extra: Record<string, unknown> = {}) {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.applier.example.com` },
    spec: {
      group: 'applier.example.com',
      names: { kind, plural, singular: plural.slice(0, -1), listKind: `${kind}List` },
      scope: 'Namespaced',
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
        },
      ],
      ...extra,
    },
  };
}

describe(
  'op-gen run: the CRD applier against a real API server',
  { timeout: 120_000, skip: controlPlaneSkip() },
  () => {
    let cp: ControlPlane;
    let applier: KubeCrdApplier;
    before(async () => {
      cp = await startControlPlane();
      applier = await kubeCrdApplier(cp.kubeConfig);
    });
    after(async () => {
      applier?.close();
      await cp?.stop();
    });

    it('applies a CRD and resolves once it is Established', async () => {
      await applier.apply(crd('widgets', 'Widget'));
    });

    it('a CRD the API server refuses rejects with its message', async () => {
      const broken = crd('brokens', 'Broken', { scope: 'Sideways' });
      await assert.rejects(applier.apply(broken), (err: Error) => {
        assert.match(err.message, /spec\.scope: Unsupported value: "Sideways"/);
        return true;
      });
    });

    it('a CRD whose kind another CRD of the group serves: names not accepted', async () => {
      await assert.rejects(applier.apply(crd('gizmos', 'Widget')), {
        message: /^names not accepted: .*Widget/,
      });
    });
  },
);
