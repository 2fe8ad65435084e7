import type { JSONSchemaProps } from '../../src/api-types/json-schema.ts';

/**
 * Rules and schemas around the API server's CEL cost limits, with the verdict kube-apiserver v1.37.2
 * gave when a CRD with `spec` as its spec schema was created (test/integration/crd/cel-cost.test.ts
 * checks it again on the real server; test/unit/crd/cel-cost.test.ts checks op-gen's verdict equals it).
 */
export interface CostCase {
  readonly name: string;
  /** The schema of `spec`. */
  readonly spec: JSONSchemaProps;
  readonly server: 'accept' | 'reject';
}

const str = (maxLength?: number): JSONSchemaProps => ({
  type: 'string',
  ...(maxLength === undefined ? {} : { maxLength }),
});
const list = (items: JSONSchemaProps, maxItems?: number, rules: string[] = []): JSONSchemaProps => ({
  type: 'array',
  items,
  ...(maxItems === undefined ? {} : { maxItems }),
  ...(rules.length > 0 ? { 'x-kubernetes-validations': rules.map((rule) => ({ rule })) } : {}),
});
const spec = (properties: Record<string, JSONSchemaProps>, rules: string[] = []): JSONSchemaProps => ({
  type: 'object',
  properties,
  ...(rules.length > 0 ? { 'x-kubernetes-validations': rules.map((rule) => ({ rule })) } : {}),
});
const item = (rules: string[], name: JSONSchemaProps = str()): JSONSchemaProps => ({
  type: 'object',
  required: ['name'],
  properties: { name },
  'x-kubernetes-validations': rules.map((rule) => ({ rule })),
});
const matchAll = "self.all(x, x.matches('^[a-z]+$'))";

export const COST_CASES: readonly CostCase[] = [
  {
    name: 'regex over an unbounded list of unbounded strings',
    spec: spec({ names: list(str(), undefined, [matchAll]) }),
    server: 'reject',
  },
  {
    name: 'regex over a bounded list of bounded strings',
    spec: spec({ names: list(str(64), 10, [matchAll]) }),
    server: 'accept',
  },
  {
    name: 'regex over 10 unbounded strings',
    spec: spec({ names: list(str(), 10, [matchAll]) }),
    server: 'accept',
  },
  {
    name: 'regex over 15 unbounded strings (just under)',
    spec: spec({ names: list(str(), 15, [matchAll]) }),
    server: 'accept',
  },
  {
    name: 'regex over 16 unbounded strings (just over)',
    spec: spec({ names: list(str(), 16, [matchAll]) }),
    server: 'reject',
  },
  {
    name: 'cheap rule on the items of an unbounded list',
    spec: spec({ items: list(item(["self.name.startsWith('a')"])) }),
    server: 'accept',
  },
  {
    name: 'contains on unbounded strings in the items of an unbounded list',
    spec: spec({ items: list(item(["self.name.contains('abc')"])) }),
    server: 'reject',
  },
  {
    name: 'contains on bounded strings in the items of a bounded list',
    spec: spec({ items: list(item(["self.name.contains('abc')"], str(63)), 100) }),
    server: 'accept',
  },
  {
    name: 'nested comprehension over 1000 integers',
    spec: spec({ ports: list({ type: 'integer' }, 1000, ['self.all(x, self.exists_one(y, x == y))']) }),
    server: 'accept',
  },
  {
    name: 'nested comprehension over 2000 integers',
    spec: spec({ ports: list({ type: 'integer' }, 2000, ['self.all(x, self.exists_one(y, x == y))']) }),
    server: 'reject',
  },
  {
    name: 'nested comprehension over 1580 integers (estimate 9,995,082)',
    spec: spec({ ports: list({ type: 'integer' }, 1580, ['self.all(x, self.exists_one(y, x == y))']) }),
    server: 'accept',
  },
  {
    name: 'nested comprehension over 1581 integers (estimate 10,007,732)',
    spec: spec({ ports: list({ type: 'integer' }, 1581, ['self.all(x, self.exists_one(y, x == y))']) }),
    server: 'reject',
  },
  {
    name: 'contains on 100 items, maxLength 249995 (estimate exactly 10,000,000)',
    spec: spec({ items: list(item(["self.name.contains('abc')"], str(249995)), 100) }),
    server: 'accept',
  },
  {
    name: 'contains on 100 items, maxLength 250000 (estimate 10,000,200)',
    spec: spec({ items: list(item(["self.name.contains('abc')"], str(250000)), 100) }),
    server: 'reject',
  },
  {
    name: 'map values over an unbounded map of strings',
    spec: spec({
      labels: {
        type: 'object',
        additionalProperties: str(),
        'x-kubernetes-validations': [{ rule: "self.all(k, self[k].contains('x'))" }],
      },
    }),
    server: 'reject',
  },
  {
    name: 'map values over a bounded map of bounded strings',
    spec: spec({
      labels: {
        type: 'object',
        additionalProperties: str(63),
        maxProperties: 64,
        'x-kubernetes-validations': [{ rule: "self.all(k, self[k].contains('x'))" }],
      },
    }),
    server: 'accept',
  },
  {
    name: 'ten rules just under the per-rule limit (total under 100M)',
    spec: spec(
      Object.fromEntries(
        Array.from({ length: 10 }, (_, i) => [`l${i}`, list(str(), 15, [matchAll])] as const),
      ),
    ),
    server: 'accept',
  },
  {
    name: 'eleven rules just under the per-rule limit (total over 100M)',
    spec: spec(
      Object.fromEntries(
        Array.from({ length: 11 }, (_, i) => [`l${i}`, list(str(), 15, [matchAll])] as const),
      ),
    ),
    server: 'reject',
  },
  {
    name: 'union rules of a discriminated union',
    spec: spec({ type: { type: 'string', enum: ['A', 'B'] }, a: str(), b: str() }, [
      "self.type == 'A' ? has(self.a) && !has(self.b) : true",
    ]),
    server: 'accept',
  },
  {
    name: 'string equality on unbounded strings in an unbounded list',
    spec: spec({ items: list(item(['self.name == self.name.lowerAscii()'])) }),
    server: 'reject',
  },
];
