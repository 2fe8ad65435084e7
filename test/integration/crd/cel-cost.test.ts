import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ApiextensionsV1Api, loadYaml, type V1CustomResourceDefinition } from '@kubernetes/client-node';
import { crdAroundSpec } from '../../helpers/crds.ts';
import { controlPlaneSkip, startControlPlane, type ControlPlane } from '../../../src/testing/index.ts';
import { COST_CASES, opGenCostVerdict, rootSchemaOf, type CostCase } from '../../helpers/cel-cost-cases.ts';

const codeOf = (err: unknown): number | undefined =>
  typeof err === 'object' && err !== null && 'code' in err ? (err.code as number) : undefined;
const bodyOf = (err: unknown): string =>
  typeof err === 'object' && err !== null && 'body' in err ? String(err.body) : String(err);

function crdWith(c: CostCase, i: number): V1CustomResourceDefinition {
  const crd = crdAroundSpec({
    group: 'cost.example.com',
    kind: `Cost${i}`,
    plural: `costs${i}`,
    spec: c.spec,
  });
  crd.spec.versions[0]!.schema.openAPIV3Schema = rootSchemaOf(c);
  // The client serialises typed models: loadYaml turns the wire form (x-kubernetes-* keys) into one.
  return loadYaml<V1CustomResourceDefinition>(JSON.stringify(crd));
}

describe('CEL cost: op-gen and kube-apiserver agree', { timeout: 180_000, skip: controlPlaneSkip() }, () => {
  let cp: ControlPlane;
  let ext: ApiextensionsV1Api;
  before(async () => {
    cp = await startControlPlane();
    ext = cp.kubeConfig.makeApiClient(ApiextensionsV1Api);
  });
  after(async () => {
    await cp?.stop();
  });

  COST_CASES.forEach((c, i) => {
    it(`${c.name}: the server ${c.server}s, op-gen says the same`, async () => {
      let server: 'accept' | 'reject' = 'accept';
      try {
        await ext.createCustomResourceDefinition({ body: crdWith(c, i), dryRun: 'All' });
      } catch (err) {
        assert.equal(codeOf(err), 422, bodyOf(err));
        assert.match(bodyOf(err), /estimated rule cost/, bodyOf(err));
        server = 'reject';
      }
      assert.equal(server, c.server, 'the table records what the server says');
      assert.equal(opGenCostVerdict(c), server);
    });
  });
});
