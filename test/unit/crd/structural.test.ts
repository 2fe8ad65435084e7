import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { JSONSchemaProps } from '../../../src/api-types/json-schema.ts';
import { checkStructural } from '../../../src/generate/crd/structural.ts';

/**
 * The structural-schema checks on schemas built by hand: several (an array without items, metadata
 * beyond name/generateName) cannot be written from TypeScript today, so only a direct test reaches them.
 */
const WHERE = { file: 'api/v1/thing_types.ts', line: 7 };

/** The problem checkStructural reports for a Thing whose spec has the one field `field`, or undefined. */
function problemOf(field: JSONSchemaProps, root: Partial<JSONSchemaProps> = {}): string | undefined {
  const schema: JSONSchemaProps = {
    type: 'object',
    properties: { spec: { type: 'object', properties: { field } } },
    ...root,
  };
  try {
    checkStructural(schema, 'Thing', new WeakMap(), WHERE);
    return undefined;
  } catch (err) {
    return (err as Error).message;
  }
}

const object = (properties: Record<string, JSONSchemaProps>, required: string[] = []): JSONSchemaProps => ({
  type: 'object',
  properties,
  ...(required.length > 0 ? { required } : {}),
});
const keyed = object({ name: { type: 'string' }, port: { type: 'integer' } }, ['name']);

describe('checkStructural', () => {
  const cases: [string, JSONSchemaProps, RegExp][] = [
    [
      '@listMapKey without @listType map',
      { type: 'array', items: keyed, 'x-kubernetes-list-map-keys': ['name'] },
      /@listMapKey needs @listType map\. Add @listType map or remove @listMapKey/,
    ],
    [
      '@listMapKey with @listType set',
      {
        type: 'array',
        items: keyed,
        'x-kubernetes-list-type': 'set',
        'x-kubernetes-list-map-keys': ['name'],
      },
      /@listMapKey needs @listType map/,
    ],
    [
      'a map list with no keys',
      { type: 'array', items: keyed, 'x-kubernetes-list-type': 'map' },
      /@listType map needs at least one @listMapKey\. Add @listMapKey <field>/,
    ],
    [
      'a map list of scalars',
      {
        type: 'array',
        items: { type: 'string' },
        'x-kubernetes-list-type': 'map',
        'x-kubernetes-list-map-keys': ['name'],
      },
      /@listType map needs elements that are objects/,
    ],
    [
      'a map key the elements lack',
      { type: 'array', items: keyed, 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['id'] },
      /@listMapKey id: the elements have no field "id"/,
    ],
    [
      'an optional map key without default',
      {
        type: 'array',
        items: keyed,
        'x-kubernetes-list-type': 'map',
        'x-kubernetes-list-map-keys': ['port'],
      },
      /@listMapKey port: the key field must be required or have a @default\. Make port required/,
    ],
    [
      'a map key that is an object',
      {
        type: 'array',
        items: object({ ref: object({}) }, ['ref']),
        'x-kubernetes-list-type': 'map',
        'x-kubernetes-list-map-keys': ['ref'],
      },
      /@listMapKey ref: a map key must be a string, integer or boolean/,
    ],
    [
      'a set of objects',
      { type: 'array', items: keyed, 'x-kubernetes-list-type': 'set' },
      /@listType set needs scalar elements/,
    ],
    [
      '@embeddedResource on a string',
      { type: 'string', 'x-kubernetes-embedded-resource': true },
      /@embeddedResource needs an object\. Use it on an object type/,
    ],
    [
      'an array without items',
      { type: 'array' },
      /is an array without items\. Give the array an element type/,
    ],
    ['no type', { description: 'x' }, /has no type \(a structural schema needs one everywhere\)/],
    [
      'properties and additionalProperties',
      { type: 'object', properties: { a: { type: 'string' } }, additionalProperties: { type: 'string' } },
      /has both properties and additionalProperties/,
    ],
    [
      'int-or-string without its anyOf',
      { type: 'string', 'x-kubernetes-int-or-string': true },
      /is int-or-string but its schema is not anyOf \[integer, string\]/,
    ],
    ['uniqueItems', { type: 'array', items: { type: 'string' }, uniqueItems: true }, /uniqueItems: true/],
    ['a default of the wrong type', { type: 'integer', default: 'three' }, /@default "three"/],
  ];
  for (const [name, field, error] of cases) {
    it(`rejects ${name}, at file:line and the field's path`, () => {
      const problem = problemOf(field);
      assert.ok(problem, 'expected a problem');
      assert.match(problem, /^api\/v1\/thing_types\.ts:7: Thing\.spec\.field: /);
      assert.match(problem, error);
    });
  }

  it('finds a problem deep inside arrays and maps', () => {
    const deep: JSONSchemaProps = {
      type: 'object',
      additionalProperties: { type: 'array', items: { type: 'array' } },
    };
    assert.match(problemOf(deep) ?? '', /Thing\.spec\.field\.\*\[\]: is an array without items/);
  });

  it('metadata may restrict name and generateName only', () => {
    const withMetadata = (metadata: JSONSchemaProps): string | undefined =>
      problemOf(
        { type: 'string' },
        { properties: { metadata, spec: object({ field: { type: 'string' } }) } },
      );
    assert.equal(
      withMetadata(object({ name: { type: 'string', maxLength: 63 }, generateName: { type: 'string' } })),
      undefined,
    );
    assert.match(
      withMetadata(
        object({
          name: { type: 'string' },
          labels: { type: 'object', additionalProperties: { type: 'string' } },
        }),
      ) ?? '',
      /Thing\.metadata: may only restrict name and generateName\. Remove other metadata fields/,
    );
    assert.match(
      withMetadata({ type: 'string' }) ?? '',
      /Thing\.metadata: may only restrict name and generateName/,
    );
  });

  it('accepts the valid forms of each', () => {
    for (const ok of [
      {
        type: 'array',
        items: keyed,
        'x-kubernetes-list-type': 'map',
        'x-kubernetes-list-map-keys': ['name'],
      },
      { type: 'array', items: { type: 'string' }, 'x-kubernetes-list-type': 'set' },
      {
        type: 'object',
        'x-kubernetes-embedded-resource': true,
        'x-kubernetes-preserve-unknown-fields': true,
      },
      { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] },
      { 'x-kubernetes-preserve-unknown-fields': true },
      { type: 'integer', default: 3 },
    ] satisfies JSONSchemaProps[]) {
      assert.equal(problemOf(ok), undefined, JSON.stringify(ok));
    }
  });
});
