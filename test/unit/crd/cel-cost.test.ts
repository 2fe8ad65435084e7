import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import fc from 'fast-check';
import type { JSONSchemaProps } from '../../../src/api-types/json-schema.ts';
import {
  PER_RULE_COST_LIMIT,
  costProblem,
  estimateRuleCost,
  minSerializedSize,
  ruleCosts,
} from '../../../src/generate/crd/cel-cost.ts';
import { generateCrds } from '../../../src/generate/crd/index.ts';
import { COST_CASES, opGenCostVerdict } from '../../helpers/cel-cost-cases.ts';
import { assertFloor, assertProperty, fuzzRuns } from '../../helpers/fuzz-runs.ts';

describe('CEL cost: the table of rules and schemas', () => {
  for (const c of COST_CASES) {
    it(`${c.name}: ${c.server}s, as kube-apiserver does`, () => {
      assert.equal(opGenCostVerdict(c), c.server);
    });
  }
});

describe('CEL cost: the estimate', () => {
  const strings = (maxItems?: number, maxLength?: number): JSONSchemaProps => ({
    type: 'array',
    items: { type: 'string', ...(maxLength === undefined ? {} : { maxLength }) },
    ...(maxItems === undefined ? {} : { maxItems }),
  });

  it("follows the server's size rules: maxLength counts 4 bytes a character, enums their longest value", () => {
    const rule = "self.contains('ab')";
    assert.equal(estimateRuleCost(rule, { type: 'string', maxLength: 100 }, 'x')?.cost, 40 + 1);
    assert.equal(
      estimateRuleCost(rule, { type: 'string', enum: ['abc', 'abcdefghijklmnopqrstu'] }, 'x')?.cost,
      3 + 1,
    );
    assert.equal(
      minSerializedSize({ type: 'object', required: ['name'], properties: { name: { type: 'string' } } }),
      12,
    );
  });

  it('names the unbounded lists and strings a rule reads', () => {
    const est = estimateRuleCost("self.all(x, x.matches('^a$'))", strings(), 'T.spec.names');
    assert.deepEqual(est?.missing, [
      { path: 'T.spec.names', marker: '@maxItems' },
      { path: 'T.spec.names[]', marker: '@maxLength' },
    ]);
  });

  it('says how to write a selection whose bounds the server cannot see, where a bound would not help', () => {
    const spec: JSONSchemaProps = {
      type: 'object',
      properties: {
        namespace: { type: 'array', maxItems: 5, items: { type: 'string', maxLength: 10 } },
        labels: { type: 'object', maxProperties: 4, additionalProperties: { type: 'string', maxLength: 9 } },
        name: { type: 'string', maxLength: 63 },
      },
      'x-kubernetes-validations': [
        { rule: 'self.namespace.all(x, x.size() > 0)' },
        { rule: "self.labels.app.contains('x')" },
        { rule: "self.?name.orValue('').contains('x')" },
        { rule: 'self.__namespace__.all(x, x.size() > 0)' },
        { rule: "self.labels['app'].contains('x')" },
      ],
    };
    const costs = ruleCosts({ type: 'object', properties: { spec } }, 'Guard');
    const over = costs.filter((c) => c.total > PER_RULE_COST_LIMIT).map((c) => costProblem(c));
    assert.equal(over.length, 3, over.join('\n'));
    assert.match(
      over[0]!,
      /write `\.__namespace__` instead of `\.namespace` \(reached that way, Guard\.spec\.namespace has no size/,
    );
    assert.match(
      over[1]!,
      /write `\['app'\]` instead of `\.app` \(reached that way, Guard\.spec\.labels\.\* has no size/,
    );
    assert.match(over[2]!, /write `has\(x\.name\) && x\.name` instead of `x\.\?name`/);
    for (const text of over) assert.doesNotMatch(text, /add @max/);
  });

  it('bounds never raise the estimate (property)', async (t) => {
    let lowered = 0;
    const runs = fuzzRuns(100, 20_000);
    await assertProperty(
      t,
      fc.property(
        fc.integer({ min: 0, max: 5000 }),
        fc.integer({ min: 0, max: 5000 }),
        fc.constantFrom(
          "self.all(x, x.matches('^[a-z]+$'))",
          "self.exists(x, x.startsWith('a'))",
          'self.filter(x, x.size() > 2).size() < 3',
          "self.map(x, x + 'a').all(y, y.contains('b'))",
          'self.all(x, self.exists_one(y, x == y))',
        ),
        (items, length, rule) => {
          const free = estimateRuleCost(rule, strings(), 'p')?.cost ?? 0;
          const itemsOnly = estimateRuleCost(rule, strings(items), 'p')?.cost ?? 0;
          const both = estimateRuleCost(rule, strings(items, length), 'p')?.cost ?? 0;
          assert.ok(itemsOnly <= free && both <= itemsOnly, `${free} ${itemsOnly} ${both}`);
          if (both < free) lowered++;
        },
      ),
      runs,
    );
    // The comparison means something only when the bounds lower the estimate (they nearly always do).
    assertFloor(t, 'estimates lowered by the bounds', lowered, runs * 0.5);
  });
});

describe('CEL cost: generate crd', () => {
  const root = mkdtempSync(join(tmpdir(), 'op-gen-cel-cost-'));
  after(() => rmSync(root, { recursive: true, force: true }));

  const project = (name: string, fields: string): string => {
    const dir = join(root, name, 'src/api/things/v1');
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      join(dir, 'groupversion.ts'),
      "export const groupVersion = { group: 'things.example.com', version: 'v1' } as const;\n",
    );
    writeFileSync(
      join(dir, 'types.ts'),
      `import type { ObjectMeta } from 'op-gen';\nexport interface ThingSpec {\n${fields}\n}\n/** @kind */\nexport interface Thing {\n  metadata?: ObjectMeta;\n  spec: ThingSpec;\n}\n`,
    );
    return join(root, name);
  };

  it('a rule over the per-rule limit: file:line, the estimate, the limit and the bounds to add; nothing written', async () => {
    const cwd = project(
      'over',
      `  /** @validation rule="self.all(x, x.matches('^[a-z]+$'))" */\n  names?: string[];`,
    );
    await assert.rejects(generateCrds({ cwd }), (err: Error) => {
      assert.match(
        err.message,
        /^src\/api\/things\/v1\/types\.ts:3: Thing\.spec\.names: CEL rule "self\.all\(x, x\.matches\('\^\[a-z\]\+\$'\)\)": estimated cost 659,710,961,252 exceeds the API server's limit of 10,000,000 per rule, so it would reject the CRD\. To bound it, add @maxItems to Thing\.spec\.names, @items:maxLength to Thing\.spec\.names$/,
      );
      return true;
    });
    const fixed = project(
      'fixed',
      `  /**\n   * @validation rule="self.all(x, x.matches('^[a-z]+$'))"\n   * @maxItems 10\n   * @items:maxLength 64\n   */\n  names?: string[];`,
    );
    const result = await generateCrds({ cwd: fixed, check: true });
    assert.equal(result.crds.length, 1);
  });

  it('a rule on the items of an unbounded list: the cardinality is named too', async () => {
    const cwd = project(
      'items',
      `  items?: Item[];\n}\nexport interface Item {\n  /** @validation rule="self.contains('abc')" */\n  name: string;`,
    );
    await assert.rejects(generateCrds({ cwd }), (err: Error) => {
      assert.match(
        err.message,
        /types\.ts:6: Thing\.spec\.items\[\]\.name: CEL rule "self\.contains\('abc'\)": estimated cost [\d,]+ \(314,574 per evaluation × up to [\d,]+ evaluations\) exceeds .* add @maxItems to Thing\.spec\.items, @maxLength to Thing\.spec\.items\[\]\.name$/,
      );
      return true;
    });
  });

  it('rules over the per-CRD total: the kind, the sum and the most expensive rules', async () => {
    const fields = Array.from(
      { length: 11 },
      (_, i) =>
        `  /**\n   * @validation rule="self.all(x, x.matches('^[a-z]+$'))"\n   * @maxItems 15\n   */\n  l${i}?: string[];`,
    ).join('\n');
    await assert.rejects(generateCrds({ cwd: project('total', fields) }), (err: Error) => {
      assert.match(
        err.message,
        /types\.ts:\d+: Thing \(v1\): the CEL rules' estimated cost adds up to 103,809,772, over the API server's limit of 100,000,000 for all rules of a CRD version \(most expensive: Thing\.spec\.l\d+ .*\)\. To bound them, add @items:maxLength to Thing\.spec\.l0/,
      );
      return true;
    });
  });
});
