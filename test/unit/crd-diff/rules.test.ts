import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { JSONSchemaProps } from '../../../src/api-types/json-schema.ts';
import { crdsFromYaml, diffCrd, diffSchemas, type CrdDocument } from '../../../src/crd-diff/index.ts';

/** Each rule's example pairs: old and new schema fragments and the findings expected, as `severity rule path`. */
const CASES: readonly { name: string; old: JSONSchemaProps; new: JSONSchemaProps; expect: string[] }[] = [
  {
    name: 'nothing changed',
    old: { type: 'string', maxLength: 3 },
    new: { type: 'string', maxLength: 3 },
    expect: [],
  },
  // type
  { name: 'type changed', old: { type: 'string' }, new: { type: 'integer' }, expect: ['breaking type .'] },
  {
    name: 'int-or-string became string',
    old: { 'x-kubernetes-int-or-string': true },
    new: { type: 'string' },
    expect: ['breaking type .'],
  },
  // fields
  {
    name: 'field removed',
    old: { type: 'object', properties: { a: { type: 'string' }, b: { type: 'string' } } },
    new: { type: 'object', properties: { a: { type: 'string' } } },
    expect: ['breaking existingFieldRemoval .b'],
  },
  {
    name: 'optional field added',
    old: { type: 'object', properties: {} },
    new: { type: 'object', properties: { a: { type: 'string', minLength: 3 } } },
    expect: ['safe fieldAdded .a'],
  },
  {
    name: 'new required field',
    old: { type: 'object', properties: {} },
    new: { type: 'object', required: ['a'], properties: { a: { type: 'string' } } },
    expect: ['breaking required .a'],
  },
  {
    name: 'existing field became required',
    old: { type: 'object', properties: { a: { type: 'string' } } },
    new: { type: 'object', required: ['a'], properties: { a: { type: 'string' } } },
    expect: ['breaking required .a'],
  },
  {
    name: 'field no longer required',
    old: { type: 'object', required: ['a'], properties: { a: { type: 'string' } } },
    new: { type: 'object', properties: { a: { type: 'string' } } },
    expect: ['safe required .a'],
  },
  {
    name: 'required fields inside a new optional field restrict nothing that exists',
    old: { type: 'object', properties: {} },
    new: {
      type: 'object',
      properties: { a: { type: 'object', required: ['b'], properties: { b: { type: 'string' } } } },
    },
    expect: ['safe fieldAdded .a'],
  },
  // default
  {
    name: 'default added',
    old: { type: 'integer' },
    new: { type: 'integer', default: 1 },
    expect: ['breaking default .'],
  },
  {
    name: 'default changed',
    old: { type: 'integer', default: 1 },
    new: { type: 'integer', default: 2 },
    expect: ['breaking default .'],
  },
  {
    name: 'default removed',
    old: { type: 'integer', default: 1 },
    new: { type: 'integer' },
    expect: ['breaking default .'],
  },
  {
    name: 'same object default, keys in another order',
    old: { type: 'object', default: { a: 1, b: 2 } },
    new: { type: 'object', default: { b: 2, a: 1 } },
    expect: [],
  },
  // enum
  {
    name: 'enum added',
    old: { type: 'string' },
    new: { type: 'string', enum: ['a'] },
    expect: ['breaking enum .'],
  },
  {
    name: 'enum value removed',
    old: { type: 'string', enum: ['a', 'b'] },
    new: { type: 'string', enum: ['a'] },
    expect: ['breaking enum .'],
  },
  {
    name: 'enum value added',
    old: { type: 'string', enum: ['a'] },
    new: { type: 'string', enum: ['a', 'b'] },
    expect: ['safe enum .'],
  },
  {
    name: 'enum removed',
    old: { type: 'string', enum: ['a'] },
    new: { type: 'string' },
    expect: ['safe enum .'],
  },
  // bounds
  {
    name: 'minimum added',
    old: { type: 'integer' },
    new: { type: 'integer', minimum: 0 },
    expect: ['breaking minimum .'],
  },
  {
    name: 'minimum raised',
    old: { type: 'integer', minimum: 0 },
    new: { type: 'integer', minimum: 1 },
    expect: ['breaking minimum .'],
  },
  {
    name: 'minimum lowered',
    old: { type: 'integer', minimum: 1 },
    new: { type: 'integer', minimum: 0 },
    expect: ['safe minimum .'],
  },
  {
    name: 'minimum made exclusive',
    old: { type: 'integer', minimum: 1 },
    new: { type: 'integer', minimum: 1, exclusiveMinimum: true },
    expect: ['breaking minimum .'],
  },
  {
    name: 'maximum lowered',
    old: { type: 'number', maximum: 10 },
    new: { type: 'number', maximum: 5 },
    expect: ['breaking maximum .'],
  },
  {
    name: 'maximum raised',
    old: { type: 'number', maximum: 5 },
    new: { type: 'number', maximum: 10 },
    expect: ['safe maximum .'],
  },
  {
    name: 'maximum removed',
    old: { type: 'number', maximum: 5 },
    new: { type: 'number' },
    expect: ['safe maximum .'],
  },
  {
    name: 'maxLength added',
    old: { type: 'string' },
    new: { type: 'string', maxLength: 63 },
    expect: ['breaking maxLength .'],
  },
  {
    name: 'minLength raised',
    old: { type: 'string', minLength: 1 },
    new: { type: 'string', minLength: 2 },
    expect: ['breaking minLength .'],
  },
  {
    name: 'minItems added',
    old: { type: 'array', items: { type: 'string' } },
    new: { type: 'array', items: { type: 'string' }, minItems: 1 },
    expect: ['breaking minItems .'],
  },
  {
    name: 'maxItems lowered',
    old: { type: 'array', items: { type: 'string' }, maxItems: 5 },
    new: { type: 'array', items: { type: 'string' }, maxItems: 4 },
    expect: ['breaking maxItems .'],
  },
  {
    name: 'minProperties added, maxProperties lowered',
    old: { type: 'object', maxProperties: 9, additionalProperties: { type: 'string' } },
    new: { type: 'object', minProperties: 1, maxProperties: 8, additionalProperties: { type: 'string' } },
    expect: ['breaking minProperties .', 'breaking maxProperties .'],
  },
  // nested paths
  {
    name: 'list item field',
    old: { type: 'array', items: { type: 'object', properties: { n: { type: 'integer', maximum: 3 } } } },
    new: { type: 'array', items: { type: 'object', properties: { n: { type: 'integer', maximum: 2 } } } },
    expect: ['breaking maximum [*].n'],
  },
  {
    name: 'map value',
    old: { type: 'object', additionalProperties: { type: 'string' } },
    new: { type: 'object', additionalProperties: { type: 'integer' } },
    expect: ['breaking type .*'],
  },
  // pattern, format
  {
    name: 'pattern added',
    old: { type: 'string' },
    new: { type: 'string', pattern: '^a' },
    expect: ['risky pattern .'],
  },
  {
    name: 'pattern removed',
    old: { type: 'string', pattern: '^a' },
    new: { type: 'string' },
    expect: ['safe pattern .'],
  },
  {
    name: 'format changed',
    old: { type: 'string', format: 'date' },
    new: { type: 'string', format: 'email' },
    expect: ['risky format .'],
  },
  // flags that accept more when set
  {
    name: 'nullable cleared',
    old: { type: 'string', nullable: true },
    new: { type: 'string' },
    expect: ['breaking nullable .'],
  },
  {
    name: 'nullable set',
    old: { type: 'string' },
    new: { type: 'string', nullable: true },
    expect: ['safe nullable .'],
  },
  {
    name: 'unknown fields no longer kept',
    old: {
      type: 'object',
      properties: { a: { type: 'string' } },
      'x-kubernetes-preserve-unknown-fields': true,
    },
    new: { type: 'object', properties: { a: { type: 'string' } } },
    expect: ['breaking preserveUnknownFields .'],
  },
  // CEL
  {
    name: 'CEL rule added',
    old: { type: 'integer' },
    new: { type: 'integer', 'x-kubernetes-validations': [{ rule: 'self > 0' }] },
    expect: ['risky cel .'],
  },
  {
    name: 'CEL rule changed',
    old: { type: 'integer', 'x-kubernetes-validations': [{ rule: 'self > 0' }] },
    new: { type: 'integer', 'x-kubernetes-validations': [{ rule: 'self > 1' }] },
    expect: ['risky cel .'],
  },
  {
    name: 'CEL rule removed',
    old: { type: 'integer', 'x-kubernetes-validations': [{ rule: 'self > 0' }] },
    new: { type: 'integer' },
    expect: ['safe cel .'],
  },
  {
    name: "CEL rule's message changed",
    old: { type: 'integer', 'x-kubernetes-validations': [{ rule: 'self > 0', message: 'a' }] },
    new: { type: 'integer', 'x-kubernetes-validations': [{ rule: 'self > 0', message: 'b' }] },
    expect: ['safe cel .'],
  },
  {
    name: 'CEL rules reordered',
    old: { type: 'integer', 'x-kubernetes-validations': [{ rule: 'self > 0' }, { rule: 'self < 9' }] },
    new: { type: 'integer', 'x-kubernetes-validations': [{ rule: 'self < 9' }, { rule: 'self > 0' }] },
    expect: [],
  },
  // description
  {
    name: 'description only',
    old: { type: 'object', properties: { a: { type: 'string', description: 'old' } } },
    new: { type: 'object', properties: { a: { type: 'string', description: 'new' } } },
    expect: ['safe description .a'],
  },
];

describe('crd diff: the rules on their example pairs', () => {
  for (const c of CASES) {
    it(c.name, () => {
      const got = diffSchemas(c.old, c.new).map((f) => `${f.severity} ${f.rule} ${f.path}`);
      assert.deepEqual(got, c.expect);
    });
  }

  it('reports old → new values', () => {
    const [f] = diffSchemas({ type: 'integer', maximum: 10 }, { type: 'integer', maximum: 5 });
    assert.deepEqual(f, {
      severity: 'breaking',
      rule: 'maximum',
      path: '.',
      message: 'maximum lowered',
      old: 10,
      new: 5,
    });
  });
});

function crd(
  scope: string,
  versions: { name: string; served?: boolean; storage?: boolean; schema?: JSONSchemaProps }[],
): CrdDocument {
  return {
    metadata: { name: 'widgets.example.com' },
    spec: {
      group: 'example.com',
      names: { kind: 'Widget', plural: 'widgets' },
      scope,
      versions: versions.map((v) => ({
        name: v.name,
        served: v.served ?? true,
        storage: v.storage ?? false,
        schema: { openAPIV3Schema: v.schema ?? { type: 'object' } },
      })),
    },
  };
}

describe('crd diff: CRD-level rules', () => {
  const rules = (a: CrdDocument, b: CrdDocument): string[] =>
    diffCrd(a, b).map((f) => `${f.severity} ${f.rule}${f.version ? ` ${f.version}` : ''}`);

  it('scope change is breaking', () => {
    assert.deepEqual(
      rules(
        crd('Namespaced', [{ name: 'v1', storage: true }]),
        crd('Cluster', [{ name: 'v1', storage: true }]),
      ),
      ['breaking scope'],
    );
  });

  it('removing the storage version is breaking', () => {
    const old = crd('Namespaced', [{ name: 'v1', storage: true }, { name: 'v2' }]);
    assert.deepEqual(rules(old, crd('Namespaced', [{ name: 'v2', storage: true }])), [
      'breaking storedVersionRemoval v1',
    ]);
  });

  it('removing a served version, or no longer serving it, is breaking', () => {
    const old = crd('Namespaced', [{ name: 'v1' }, { name: 'v2', storage: true }]);
    assert.deepEqual(rules(old, crd('Namespaced', [{ name: 'v2', storage: true }])), [
      'breaking servedVersionRemoval v1',
    ]);
    assert.deepEqual(
      rules(
        old,
        crd('Namespaced', [
          { name: 'v1', served: false },
          { name: 'v2', storage: true },
        ]),
      ),
      ['breaking servedVersionRemoval v1'],
    );
  });

  it('removing an unserved, unstored version is risky; adding a version is safe', () => {
    const old = crd('Namespaced', [
      { name: 'v1', served: false },
      { name: 'v2', storage: true },
    ]);
    assert.deepEqual(rules(old, crd('Namespaced', [{ name: 'v2', storage: true }, { name: 'v3' }])), [
      'risky storedVersionRemoval v1',
      'safe versionAdded v3',
    ]);
  });

  it("removing a version the old CRD's status.storedVersions lists is breaking", () => {
    const old = {
      ...crd('Namespaced', [
        { name: 'v1', served: false },
        { name: 'v2', storage: true },
      ]),
      status: { storedVersions: ['v1', 'v2'] },
    };
    assert.deepEqual(rules(old, crd('Namespaced', [{ name: 'v2', storage: true }])), [
      'breaking storedVersionRemoval v1',
    ]);
  });

  it('compares each version with the same version only', () => {
    const old = crd('Namespaced', [
      { name: 'v1', schema: { type: 'object', properties: { a: { type: 'string' } } } },
      { name: 'v2', storage: true, schema: { type: 'object' } },
    ]);
    const next = crd('Namespaced', [
      { name: 'v1', schema: { type: 'object', properties: { a: { type: 'string' } } } },
      { name: 'v2', storage: true, schema: { type: 'object', properties: { b: { type: 'string' } } } },
    ]);
    // The field v2 gained is also a difference between the two served versions (conversion None).
    assert.deepEqual(rules(old, next), ['safe fieldAdded v2', 'risky servedVersionDifference v1 -> v2']);
  });
});

describe('crd diff: reading CRDs', () => {
  it('reads CRDs from multi-document YAML, from a List (kubectl get crd -o yaml) and from JSON; skips other kinds', () => {
    const one = JSON.stringify(crd('Namespaced', [{ name: 'v1', storage: true }]));
    const withKind = (name: string): string =>
      one
        .replace(
          '{"metadata"',
          '{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata"',
        )
        .replace('widgets.example.com', name);
    const yaml = `${withKind('a.example.com')}\n---\nkind: ConfigMap\nmetadata: {name: x}\n---\n{"kind":"List","items":[${withKind('b.example.com')}]}\n`;
    assert.deepEqual(
      crdsFromYaml(yaml, 'crds.yaml').map((c) => c.metadata.name),
      ['a.example.com', 'b.example.com'],
    );
  });

  it('names the file and the CRD when a CRD lacks what the diff reads', () => {
    assert.throws(
      () =>
        crdsFromYaml(
          'kind: CustomResourceDefinition\nmetadata: {name: x.example.com}\nspec: {group: example.com}\n',
          'old/x.yaml',
        ),
      /old\/x\.yaml: CustomResourceDefinition x\.example\.com: spec\.names\.kind is missing/,
    );
    assert.throws(() => crdsFromYaml('a: [', 'bad.yaml'), /bad\.yaml:1: not valid YAML/);
  });
});
