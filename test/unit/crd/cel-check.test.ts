import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { celPropertyName, checkCelRule } from '../../../src/generate/crd/cel-check.ts';
import type { JSONSchemaProps } from '../../../src/api-types/json-schema.ts';

const spec: JSONSchemaProps = {
  type: 'object',
  properties: {
    replicas: { type: 'integer' },
    name: { type: 'string' },
    namespace: { type: 'string' },
    ports: {
      type: 'array',
      items: { type: 'object', properties: { name: { type: 'string' }, port: { type: 'integer' } } },
    },
    labels: { type: 'object', additionalProperties: { type: 'string' } },
    size: { 'x-kubernetes-int-or-string': true },
    started: { type: 'string', format: 'date-time' },
  },
};

const ok = (rule: string, schema: JSONSchemaProps = spec): void =>
  assert.deepEqual(checkCelRule(rule, schema), [], `expected "${rule}" to pass`);
const bad = (rule: string, pattern: RegExp, schema: JSONSchemaProps = spec): void => {
  const problems = checkCelRule(rule, schema);
  assert.equal(problems.length, 1, `expected "${rule}" to fail`);
  assert.match(problems[0]!.message, pattern);
};

describe('checkCelRule', () => {
  it('accepts rules over existing fields, macros, has(), maps and transition rules', () => {
    ok('self.replicas > 0');
    ok('has(self.name) && self.name.startsWith("a")');
    ok('self.ports.all(p, p.port > 0 && p.name != "")');
    ok("self.ports.exists_one(p, p.name == 'metrics')");
    ok('self.labels["app"] == "web"');
    ok('self.replicas >= oldSelf.replicas');
    ok('self.?name.orValue("") != ""');
  });

  it('accepts equality of objects and lists of objects, as the API server does (immutability rules)', () => {
    ok('self == oldSelf');
    ok('self != oldSelf');
    ok('self.ports == oldSelf.ports');
    ok('self.ports.exists(p, p == self.ports[0])');
    bad('self == 1', /no such overload/);
  });

  it('knows Kubernetes CEL library functions', () => {
    ok('isURL(self.name)');
    ok('quantity(self.size).isLessThan(quantity("1Gi"))');
    ok('self.name.lowerAscii().split("-").size() < 4');
    ok('[1, 2].sum() > 0');
  });

  it('reaches reserved-word properties the way the API server names them', () => {
    ok('self.__namespace__ != ""');
    assert.equal(celPropertyName('namespace'), '__namespace__');
    assert.equal(celPropertyName('x-y'), 'x__dash__y');
  });

  it('checks rules on scalar fields', () => {
    ok('self > 0', { type: 'integer' });
    ok('self.size() < 5', { type: 'string' });
  });

  it('reports a syntax error', () => {
    bad('self.replicas >', /Unexpected token/);
    bad('self.replicas > 0 &&& true', /./);
  });

  it('reports a field that does not exist, also nested in a list item', () => {
    bad('self.replica > 0', /field "replica"/);
    bad('self.ports.all(p, p.prot > 0)', /field "prot"/);
  });

  it('reports an unknown function', () => {
    bad('frobnicate(self.name)', /frobnicate/);
  });
});

describe('checkCelRule: where in the rule', () => {
  it('gives the 1-based column of a syntax error and of an unknown field', () => {
    const schema = { type: 'object', properties: { size: { type: 'integer' } } } as const;
    assert.deepEqual(checkCelRule('self.size > 1 &&', schema), [
      { message: 'Unexpected token: EOF', column: 17 },
    ]);
    assert.deepEqual(checkCelRule('self.size > 1 && self.sise > 2', schema), [
      { message: 'it reads field "sise", which the schema does not have', column: 23 },
    ]);
  });
});
