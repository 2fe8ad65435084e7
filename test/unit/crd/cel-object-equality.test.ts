import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { JSONSchemaProps } from '../../../src/api-types/json-schema.ts';
import { checkCelRule } from '../../../src/generate/crd/cel-check.ts';

/** Issue 37 item 7: objects compare with == and != as in the API server's CEL (seen accepted by kube-apiserver 1.37). */
const REF: JSONSchemaProps = {
  type: 'object',
  required: ['name'],
  properties: { name: { type: 'string' }, port: { type: 'integer' } },
};

describe('CEL equality on object-typed fields', () => {
  for (const [rule, self] of [
    ['self == oldSelf', REF],
    ['self != oldSelf', REF],
    ['self == oldSelf', { type: 'array', items: REF }],
    ['self.all(k, self[k] == oldSelf[k])', { type: 'object', additionalProperties: REF }],
    ['self.a == oldSelf.a', { type: 'object', properties: { a: REF, b: REF } }],
  ] as const) {
    it(`accepts ${rule} on ${self.type}${self.type === 'object' && self.properties ? ' with properties' : ''}`, () => {
      assert.deepEqual(checkCelRule(rule, self), []);
    });
  }

  it('still refuses an ordering of objects', () => {
    assert.match(checkCelRule('self < oldSelf', REF)[0]?.message ?? '', /no such overload/);
  });
});
