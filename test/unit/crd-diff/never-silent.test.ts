import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import type { JSONSchemaProps } from '../../../src/api-types/json-schema.ts';
import { diffCrd, diffSchemas, type CrdDocument } from '../../../src/crd-diff/index.ts';
import type { CrdDocumentVersion } from '../../../src/crd-diff/types.ts';

type Schema = JSONSchemaProps & Record<string, unknown>;
const list = (extra: Schema = {}): Schema => ({ type: 'array', items: { type: 'string' }, ...extra });
const objects = (extra: Schema = {}): Schema => ({
  type: 'array',
  items: {
    type: 'object',
    required: ['name'],
    properties: { name: { type: 'string' }, port: { type: 'integer' } },
  },
  ...extra,
});

/** Schema keyword rules: old, new, and the findings as `severity rule path`. */
const CASES: readonly { name: string; old: Schema; new: Schema; expect: string[] }[] = [
  {
    name: 'a keyword no rule knows',
    old: { type: 'string' },
    new: { type: 'string', 'x-kubernetes-foo': true },
    expect: ['risky unhandled .'],
  },
  {
    name: 'additionalProperties: false → absent',
    old: { type: 'object', additionalProperties: false },
    new: { type: 'object' },
    expect: ['risky unhandled .'],
  },
  {
    name: 'a list gains an item schema (none before)',
    old: { type: 'array' },
    new: list(),
    expect: ['risky unhandled .'],
  },
  {
    name: 'a list loses its item schema',
    old: list(),
    new: { type: 'array' },
    expect: ['risky unhandled .'],
  },
  {
    name: 'atomic list became a set',
    old: list(),
    new: list({ 'x-kubernetes-list-type': 'set' }),
    expect: ['breaking listType .'],
  },
  {
    name: 'explicitly atomic list became a map (CloudNativePG 1.29)',
    old: objects({ 'x-kubernetes-list-type': 'atomic' }),
    new: objects({ 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['name'] }),
    expect: ['breaking listType .'],
  },
  {
    name: 'set became atomic',
    old: list({ 'x-kubernetes-list-type': 'set' }),
    new: list(),
    expect: ['risky listType .'],
  },
  {
    name: 'absent and atomic are the same',
    old: list(),
    new: list({ 'x-kubernetes-list-type': 'atomic' }),
    expect: [],
  },
  {
    name: 'list-map keys changed',
    old: objects({ 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['name'] }),
    new: objects({ 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['name', 'port'] }),
    expect: ['breaking listMapKeys .'],
  },
  {
    name: 'list-map keys reordered',
    old: objects({ 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['name', 'port'] }),
    new: objects({ 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['port', 'name'] }),
    expect: [],
  },
  {
    name: 'map became atomic',
    old: { type: 'object', additionalProperties: { type: 'string' } },
    new: { type: 'object', additionalProperties: { type: 'string' }, 'x-kubernetes-map-type': 'atomic' },
    expect: ['risky mapType .'],
  },
  {
    name: 'embedded resource set',
    old: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
    new: {
      type: 'object',
      'x-kubernetes-preserve-unknown-fields': true,
      'x-kubernetes-embedded-resource': true,
    },
    expect: ['breaking embeddedResource .'],
  },
  {
    name: 'embedded resource cleared',
    old: { type: 'object', 'x-kubernetes-embedded-resource': true },
    new: { type: 'object' },
    expect: ['risky embeddedResource .'],
  },
  {
    name: 'uniqueItems added',
    old: list(),
    new: list({ uniqueItems: true }),
    expect: ['breaking uniqueItems .'],
  },
  {
    name: 'uniqueItems removed',
    old: list({ uniqueItems: true }),
    new: list(),
    expect: ['safe uniqueItems .'],
  },
  {
    name: 'multipleOf added',
    old: { type: 'integer' },
    new: { type: 'integer', multipleOf: 2 },
    expect: ['breaking multipleOf .'],
  },
  {
    name: 'multipleOf changed to a divisor',
    old: { type: 'integer', multipleOf: 4 },
    new: { type: 'integer', multipleOf: 2 },
    expect: ['safe multipleOf .'],
  },
  {
    name: 'multipleOf changed to a non-divisor',
    old: { type: 'integer', multipleOf: 2 },
    new: { type: 'integer', multipleOf: 3 },
    expect: ['breaking multipleOf .'],
  },
  {
    name: 'oneOf added',
    old: { type: 'object' },
    new: { type: 'object', oneOf: [{ required: ['a'] }, { required: ['b'] }] },
    expect: ['breaking oneOf .'],
  },
  {
    name: 'anyOf changed',
    old: { type: 'object', anyOf: [{ required: ['a'] }] },
    new: { type: 'object', anyOf: [{ required: ['b'] }] },
    expect: ['risky anyOf .'],
  },
  {
    name: 'allOf removed',
    old: { type: 'object', allOf: [{ required: ['a'] }] },
    new: { type: 'object' },
    expect: ['safe allOf .'],
  },
  {
    name: 'not added',
    old: { type: 'object' },
    new: { type: 'object', not: { required: ['a'] } },
    expect: ['breaking not .'],
  },
  {
    name: 'title and example',
    old: { type: 'string' },
    new: { type: 'string', title: 't', example: 'x' },
    expect: ['safe description .', 'safe description .'],
  },
  {
    name: 'an enum that is not a list (a broken file) is compared as a value',
    old: { type: 'string', enum: ['a'] },
    new: { type: 'string', enum: 'a' as unknown as string[] },
    expect: ['risky unhandled .'],
  },
];

const show = (old: Schema, next: Schema): string[] =>
  diffSchemas(old, next).map((c) => `${c.severity} ${c.rule} ${c.path}`);

describe('crd diff: schema keywords without a rule are reported, never dropped', () => {
  for (const c of CASES) it(c.name, () => assert.deepEqual(show(c.old, c.new), c.expect));

  it('an unhandled change names the keyword and both values', () => {
    const [change] = diffSchemas({ type: 'string' }, { type: 'string', 'x-kubernetes-foo': 3 } as Schema);
    assert.deepEqual(change, {
      path: '.',
      severity: 'risky',
      rule: 'unhandled',
      message: 'x-kubernetes-foo changed (no rule judges it: check by hand)',
      new: 3,
    });
  });

  it('property: any one keyword changed anywhere in a schema gives at least one finding', () => {
    const keywords = [
      'format',
      'pattern',
      'title',
      'example',
      'default',
      'enum',
      'minimum',
      'maximum',
      'multipleOf',
      'minLength',
      'maxItems',
      'uniqueItems',
      'nullable',
      'x-kubernetes-list-type',
      'x-kubernetes-map-type',
      'x-kubernetes-embedded-resource',
      'x-kubernetes-preserve-unknown-fields',
      'x-kubernetes-validations',
      'oneOf',
      'anyOf',
      'allOf',
      'not',
      'externalDocs',
      'x-unknown',
      '$ref',
      'id',
      'dependencies',
      'patternProperties',
      'additionalItems',
      'definitions',
    ];
    // `false` flags mean what an absent one does, and an exclusive bound needs its bound: neither is listed.
    const value = fc.oneof(
      fc.constant(true),
      fc.integer({ min: 1, max: 50 }),
      fc.string({ maxLength: 5 }),
      fc.constant(['a']),
      fc.constant({ required: ['x'] }),
      fc.constant([{ rule: 'self.size() > 1' }]),
    );
    let runs = 0;
    let unhandled = 0;
    fc.assert(
      fc.property(
        fc.constantFrom(...keywords),
        value,
        fc.constantFrom('root', 'field', 'items', 'values'),
        (key, v, where) => {
          runs++;
          const base: Schema = {
            type: 'object',
            properties: { f: { type: 'string' }, l: { type: 'array', items: { type: 'integer' } } },
            additionalProperties: undefined,
          };
          const next = structuredClone(base) as Schema;
          const target: Schema =
            where === 'root'
              ? next
              : where === 'field'
                ? (next.properties?.f as Schema)
                : where === 'items'
                  ? (next.properties?.l?.items as Schema)
                  : next;
          if (target[key] !== undefined && JSON.stringify(target[key]) === JSON.stringify(v)) return;
          target[key] = v;
          const changes = diffSchemas(base, next);
          if (changes.some((c) => c.rule === 'unhandled')) unhandled++;
          assert.ok(changes.length > 0, `${key}: ${JSON.stringify(v)} at ${where} gave no finding`);
        },
      ),
      { numRuns: 400 },
    );
    assert.equal(runs, 400);
    assert.ok(unhandled >= 40, `${unhandled} changes reported as unhandled`);
  });
});

function version(
  name: string,
  extra: Partial<CrdDocumentVersion> & Record<string, unknown> = {},
  schema?: JSONSchemaProps,
): CrdDocumentVersion {
  return {
    name,
    served: true,
    storage: false,
    schema: { openAPIV3Schema: schema ?? { type: 'object' } },
    ...extra,
  };
}

function crd(versions: CrdDocumentVersion[], spec: Record<string, unknown> = {}): CrdDocument {
  return {
    metadata: { name: 'widgets.example.com' },
    spec: {
      group: 'example.com',
      names: { kind: 'Widget', plural: 'widgets' },
      scope: 'Namespaced',
      versions,
      ...spec,
    },
  } as CrdDocument;
}

const rules = (a: CrdDocument, b: CrdDocument): string[] =>
  diffCrd(a, b).map(
    (f) => `${f.severity} ${f.rule}${f.version ? ` ${f.version}` : ''}${f.path ? ` ${f.path}` : ''}`,
  );

describe('crd diff: CRD fields', () => {
  const v1 = (extra: Partial<CrdDocumentVersion> & Record<string, unknown> = {}): CrdDocumentVersion =>
    version('v1', { storage: true, ...extra });

  it('names: kind changed is breaking, a short name removed risky, one added safe', () => {
    const base = crd([v1()], { names: { kind: 'Widget', plural: 'widgets', shortNames: ['wd', 'w'] } });
    assert.deepEqual(
      rules(base, crd([v1()], { names: { kind: 'Gadget', plural: 'widgets', shortNames: ['wd'] } })),
      [
        'breaking names spec.names.kind',
        'breaking names spec.names.listKind',
        'risky names spec.names.singular',
        'risky names spec.names.shortNames',
      ],
    );
    assert.deepEqual(
      rules(
        base,
        crd([v1()], { names: { kind: 'Widget', plural: 'widgets', shortNames: ['wd', 'w', 'wid'] } }),
      ),
      ['safe names spec.names.shortNames'],
    );
  });

  it('conversion: strategy and webhook changes are risky', () => {
    const webhook = { strategy: 'Webhook', webhook: { conversionReviewVersions: ['v1'] } };
    assert.deepEqual(rules(crd([v1()]), crd([v1()], { conversion: webhook })), [
      'risky conversion spec.conversion.strategy',
    ]);
    assert.deepEqual(
      rules(
        crd([v1()], { conversion: webhook }),
        crd([v1()], { conversion: { ...webhook, webhook: { conversionReviewVersions: ['v1', 'v1beta1'] } } }),
      ),
      ['risky conversion spec.conversion.webhook'],
    );
  });

  it('subresources: status or scale removed is breaking, status added risky, scale added safe', () => {
    const scale = { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas' };
    assert.deepEqual(rules(crd([v1({ subresources: { status: {}, scale } })]), crd([v1()])), [
      'breaking subresources v1 subresources.status',
      'breaking subresources v1 subresources.scale',
    ]);
    assert.deepEqual(rules(crd([v1()]), crd([v1({ subresources: { status: {}, scale } })])), [
      'risky subresources v1 subresources.status',
      'safe subresources v1 subresources.scale',
    ]);
  });

  it('printer columns are safe; deprecation safe; served again safe', () => {
    const cols = [{ name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' }];
    assert.deepEqual(rules(crd([v1()]), crd([v1({ additionalPrinterColumns: cols })])), [
      'safe printerColumns v1 additionalPrinterColumns',
    ]);
    assert.deepEqual(rules(crd([v1()]), crd([v1({ deprecated: true, deprecationWarning: 'use v2' })])), [
      'safe deprecated v1 .',
      'safe deprecated v1 .',
    ]);
    assert.deepEqual(rules(crd([v1(), version('v2', { served: false })]), crd([v1(), version('v2')])), [
      'safe served v2 .',
    ]);
  });

  it('the storage version moving is risky; a selectable field removed is breaking', () => {
    assert.deepEqual(
      rules(
        crd([v1(), version('v2', { served: false })]),
        crd([version('v1', { storage: false }), version('v2', { served: false, storage: true })]),
      ),
      ['risky storage v1 .', 'risky storage v2 .'],
    );
    assert.deepEqual(rules(crd([v1({ selectableFields: [{ jsonPath: '.spec.a' }] })]), crd([v1()])), [
      'breaking selectableFields v1 selectableFields',
    ]);
  });

  it('a spec, version or schema field no rule knows is reported unhandled', () => {
    assert.deepEqual(rules(crd([v1()]), crd([v1({ foo: 1 })], { preserveUnknownFields: false })), [
      'risky unhandled spec.preserveUnknownFields',
      'risky unhandled v1 foo',
    ]);
  });
});

describe('crd diff: versions served together', () => {
  const s1: JSONSchemaProps = { type: 'object', properties: { size: { type: 'integer' } } };
  const s2: JSONSchemaProps = { type: 'object', properties: { size: { type: 'string' } } };

  it('a field whose type differs between two served versions is risky without a conversion webhook', () => {
    const old = crd([version('v1alpha1', {}, s1), version('v1', { storage: true }, s1)]);
    const next = crd([version('v1alpha1', {}, s1), version('v1', { storage: true }, s2)]);
    assert.deepEqual(rules(old, next), [
      'breaking type v1 .size',
      'risky servedVersionDifference v1alpha1 -> v1 .size',
    ]);
  });

  it('is safe with a conversion webhook', () => {
    const conversion = { strategy: 'Webhook', webhook: { conversionReviewVersions: ['v1'] } };
    const old = crd([version('v1alpha1', {}, s1), version('v1', { storage: true }, s1)], { conversion });
    const next = crd([version('v1alpha1', {}, s1), version('v1', { storage: true }, s2)], { conversion });
    assert.deepEqual(rules(old, next), [
      'breaking type v1 .size',
      'safe servedVersionDifference v1alpha1 -> v1 .size',
    ]);
  });

  it('a difference the old CRD already had is not reported again; an unserved version is not compared', () => {
    const had = crd([version('v1alpha1', {}, s1), version('v1', { storage: true }, s2)]);
    assert.deepEqual(rules(had, had), []);
    const unserved = crd([version('v1alpha1', { served: false }, s1), version('v1', { storage: true }, s2)]);
    assert.deepEqual(rules(unserved, unserved), []);
  });

  it('pairs are ordered by Kubernetes version priority (alpha < beta < GA)', () => {
    const next = crd([
      version('v1', { storage: true }, s2),
      version('v2beta1', {}, s1),
      version('v1alpha2', {}, s1),
    ]);
    const pairs = diffCrd(crd([version('v1', { storage: true }, s2)]), next)
      .filter((f) => f.rule === 'servedVersionDifference')
      .map((f) => f.version);
    assert.deepEqual(pairs, ['v1alpha2 -> v1', 'v2beta1 -> v1']);
  });
});
