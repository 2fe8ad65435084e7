import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ApiextensionsV1Api, loadYaml, type V1CustomResourceDefinition } from '@kubernetes/client-node';
import type { JSONSchemaProps } from '../../../src/api-types/json-schema.ts';
import { crdAroundSpec } from '../../helpers/crds.ts';
import { PER_CRD_COST_LIMIT, PER_RULE_COST_LIMIT, ruleCosts } from '../../../src/generate/crd/cel-cost.ts';
import { controlPlaneSkip, startControlPlane, type ControlPlane } from '../../../src/testing/index.ts';
import { COST_CASES } from '../../helpers/cel-cost-cases.ts';

const codeOf = (err: unknown): number | undefined =>
  typeof err === 'object' && err !== null && 'code' in err ? (err.code as number) : undefined;
const bodyOf = (err: unknown): string =>
  typeof err === 'object' && err !== null && 'body' in err ? String(err.body) : String(err);

function crdWith(spec: JSONSchemaProps, i: number): V1CustomResourceDefinition {
  const crd = crdAroundSpec({ group: 'cost.example.com', kind: `Cost${i}`, plural: `costs${i}`, spec });
  // The client serialises typed models: loadYaml turns the wire form (x-kubernetes-* keys) into one.
  return loadYaml<V1CustomResourceDefinition>(JSON.stringify(crd));
}

function opGenVerdict(spec: JSONSchemaProps): 'accept' | 'reject' {
  const costs = ruleCosts({ type: 'object', properties: { spec } }, 'Cost');
  const sum = costs.reduce((n, c) => n + c.total, 0);
  return costs.some((c) => c.total > PER_RULE_COST_LIMIT) || sum > PER_CRD_COST_LIMIT ? 'reject' : 'accept';
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
        await ext.createCustomResourceDefinition({ body: crdWith(c.spec, i), dryRun: 'All' });
      } catch (err) {
        assert.equal(codeOf(err), 422, bodyOf(err));
        assert.match(bodyOf(err), /estimated rule cost/, bodyOf(err));
        server = 'reject';
      }
      assert.equal(server, c.server, 'the table records what the server says');
      assert.equal(opGenVerdict(c.spec), server);
    });
  });
});
