import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import type { JSONSchemaProps } from '../../../src/api-types/json-schema.ts';
import { crdAroundSpec, type CrdObject } from '../../helpers/crds.ts';
import { fuzzRuns } from '../../helpers/fuzz-runs.ts';
import { defineKind } from '../../../src/client/kind.ts';
import { ResourceClient } from '../../../src/client/resource-client.ts';
import { Transport } from '../../../src/client/transport.ts';
import { checkCelRule } from '../../../src/generate/crd/cel-check.ts';
import { PER_CRD_COST_LIMIT, PER_RULE_COST_LIMIT, ruleCosts } from '../../../src/generate/crd/cel-cost.ts';
import { embeddedObjectMetaSchema } from '../../../src/generate/crd/embedded-object-meta.ts';
import { controlPlaneSkip, startControlPlane, type ControlPlane } from '../../../src/testing/index.ts';

/**
 * Issue 37 item 7: op-gen's CEL check held to the real API server's verdict. fast-check makes a
 * random spec schema (strings, integers, objects with and without fields, lists of templates whose
 * metadata is bare or has generateEmbeddedObjectMeta's fields) and a rule reading random paths of
 * it (fields that exist or not, `has()`, comparisons, macros over lists); the CRD holding the rule
 * is created with a server-side dry run. op-gen must accept exactly what the server accepts. The
 * refusals found are listed in docs/generate-crd.md ("CEL rules and the API server").
 */
const RUNS = fuzzRuns(80);
const GROUP = 'celverdicts.example.com';

const CrdKind = defineKind<{ metadata: { name: string } } & Record<string, unknown>>({
  group: 'apiextensions.k8s.io',
  version: 'v1',
  kind: 'CustomResourceDefinition',
  plural: 'customresourcedefinitions',
  namespaced: false,
});

/**
 * Field names of the spec, `namespace` (a CEL reserved word) among them: the server's cost estimate
 * loses the bounds of a field selected by its unescaped reserved name (`self.namespace.all(...)` over
 * a list with maxItems 5 is refused, `self.__namespace__.all(...)` is not); found by this test when
 * op-gen's estimate did not model it, now modelled (cel-cost.ts `fieldInfo`).
 */
const NAMES = ['a', 'b', 'metadata', 'labels', 'namespace'] as const;
const SUB = ['a', 'name', 'namespace', 'labels', 'x'] as const;

const fieldSchema = fc.constantFrom<JSONSchemaProps>(
  { type: 'string', maxLength: 10 },
  { type: 'integer' },
  { type: 'object' },
  { type: 'object', properties: { a: { type: 'string', maxLength: 10 } } },
  {
    type: 'array',
    maxItems: 5,
    items: { type: 'object', properties: { metadata: { type: 'object' } } },
  },
  {
    type: 'array',
    maxItems: 5,
    items: { type: 'object', properties: { metadata: embeddedObjectMetaSchema() } },
  },
);

const specSchema = fc
  .dictionary(fc.constantFrom(...NAMES), fieldSchema, { minKeys: 1, maxKeys: 3 })
  .map((properties): JSONSchemaProps => ({ type: 'object', properties }));

/** A rule over the schema's own field names mostly (else a random one), so both verdicts come up. */
function ruleFor(spec: JSONSchemaProps): fc.Arbitrary<string> {
  const own = Object.keys(spec.properties ?? {});
  const f = fc
    .oneof(
      { arbitrary: fc.constantFrom(...own), weight: 4 },
      { arbitrary: fc.constantFrom(...NAMES), weight: 1 },
    )
    // A reserved word is selected either as written or escaped, as the API server names it.
    .chain((x) => (x === 'namespace' ? fc.constantFrom(x, `__${x}__`) : fc.constant(x)));
  const g = fc.constantFrom(...SUB);
  return fc.oneof(
    f.map((x) => `has(self.${x})`),
    fc.tuple(f, g).map(([x, y]) => `has(self.${x}.${y})`),
    fc.tuple(f, g).map(([x, y]) => `self.${x}.${y} == self.${x}.${y}`),
    fc.tuple(f, g).map(([x, y]) => `self.${x}.all(t, !has(t.metadata.${y}))`),
    fc.tuple(f, g).map(([x, y]) => `self.${x}.all(t, t.metadata.${y} == t.metadata.${y})`),
    f.map((x) => `self.${x}.size() >= 0`),
    f.map((x) => `self.${x}.all(t, has(t.metadata))`),
  );
}

/** The server's reason, without positions and generated type names (one row per kind of refusal). */
function reason(message: string): string {
  const m = /ERROR: <input>:\d+:\d+: ([^\n"]*)/.exec(message)?.[1] ?? message.slice(-160);
  return m
    .replace(/selfType\d+(\.[\w@.]+)?/g, 'T')
    .replace(/'[^']*'/g, "'…'")
    .trim();
}

function crdFor(plural: string, spec: JSONSchemaProps, celRule: string): CrdObject {
  return crdAroundSpec({
    group: GROUP,
    kind: `K${plural}`,
    plural,
    spec: { ...spec, 'x-kubernetes-validations': [{ rule: celRule }] },
  });
}

function rootOf(crd: CrdObject): JSONSchemaProps {
  return crd.spec.versions[0]!.schema.openAPIV3Schema;
}

describe(
  'CEL rules over random schemas: op-gen accepts exactly what the API server accepts',
  { timeout: 600_000, skip: controlPlaneSkip() },
  () => {
    let cp: ControlPlane;
    let transport: Transport;
    before(async () => {
      cp = await startControlPlane();
      transport = await Transport.fromKubeConfig(cp.kubeConfig);
    });
    after(async () => {
      transport?.close();
      await cp?.stop();
    });

    it(`${RUNS} schema and rule pairs`, async () => {
      const counts = {
        runs: 0,
        serverRefused: 0,
        serverAccepted: 0,
        embeddedMetaRead: 0,
        reservedRefusedForCost: 0,
        escapedAccepted: 0,
      };
      const refusals = new Map<string, string>();
      let n = 0;
      await fc.assert(
        fc.asyncProperty(
          specSchema.chain((spec) => fc.tuple(fc.constant(spec), ruleFor(spec))),
          async ([spec, celRule]) => {
            counts.runs++;

            // op-gen's verdict as generate crd reaches it: the rule's check, then the cost estimate.
            const crd = crdFor(`c${n++}`, spec, celRule);
            const problems = checkCelRule(celRule, spec).map((p) => p.message);
            if (problems.length === 0) {
              const costs = ruleCosts(rootOf(crd), 'K');
              const total = costs.reduce((sum, c) => sum + c.total, 0);
              if (costs.some((c) => c.total > PER_RULE_COST_LIMIT) || total > PER_CRD_COST_LIMIT)
                problems.push(`cost ${total}`);
            }
            const opGen = problems;
            let server = '';
            try {
              await new ResourceClient(transport, CrdKind).create(crd, {
                dryRun: 'All',
              });
            } catch (e) {
              server = e instanceof Error ? e.message : String(e);
            }
            if (server) counts.serverRefused++;
            else counts.serverAccepted++;
            if (/t\.metadata\.(name|namespace|labels)/.test(celRule) && !server) counts.embeddedMetaRead++;
            if (/self\.namespace\./.test(celRule) && /estimated rule cost/.test(server))
              counts.reservedRefusedForCost++;
            if (/self\.__namespace__/.test(celRule) && !server) counts.escapedAccepted++;
            if (server && !refusals.has(reason(server))) refusals.set(reason(server), celRule);
            assert.equal(
              opGen.length === 0 ? 'accepted' : 'refused',
              server ? 'refused' : 'accepted',
              `rule ${celRule} on ${JSON.stringify(spec)}\nop-gen: ${JSON.stringify(opGen)}\nserver: ${server}`,
            );
          },
        ),
        { numRuns: RUNS, seed: 37 },
      );
      for (const [why, example] of [...refusals].sort())
        process.stdout.write(`# refusal: ${why} | \`${example}\`\n`);
      process.stdout.write(`# counts: ${JSON.stringify(counts)}\n`);
      assert.equal(counts.runs, RUNS);
      assert.ok(counts.serverRefused >= RUNS / 5, `server refused ${counts.serverRefused}`);
      assert.ok(counts.serverAccepted >= RUNS / 5, `server accepted ${counts.serverAccepted}`);
      assert.ok(counts.reservedRefusedForCost >= 1, `refused for cost: ${counts.reservedRefusedForCost}`);
      assert.ok(counts.escapedAccepted >= 1, `escaped reserved names accepted: ${counts.escapedAccepted}`);
      assert.ok(
        counts.embeddedMetaRead >= 1,
        `accepted reads of embedded metadata: ${counts.embeddedMetaRead}`,
      );
    });
  },
);
