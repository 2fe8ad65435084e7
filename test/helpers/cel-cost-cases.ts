import type { JSONSchemaProps } from '../../src/api-types/json-schema.ts';
import { PER_CRD_COST_LIMIT, PER_RULE_COST_LIMIT, ruleCosts } from '../../src/generate/crd/cel-cost.ts';

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
  /** Rules on the root of the resource (where `self.metadata.name` is readable). */
  readonly root?: readonly string[];
}

/** op-gen's verdict on a case: its cost estimate against the API server's two limits. */
export function opGenCostVerdict(c: CostCase): 'accept' | 'reject' {
  const costs = ruleCosts(rootSchemaOf(c), 'Cost');
  const sum = costs.reduce((n, r) => n + r.total, 0);
  return costs.some((r) => r.total > PER_RULE_COST_LIMIT) || sum > PER_CRD_COST_LIMIT ? 'reject' : 'accept';
}

/** The root schema of the CRD around a case: its spec, and its root rules if any. */
export function rootSchemaOf(c: CostCase): JSONSchemaProps {
  return {
    type: 'object',
    properties: { spec: c.spec },
    ...(c.root ? { 'x-kubernetes-validations': c.root.map((rule) => ({ rule })) } : {}),
  };
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
  // Found by comparing with the API server's estimator (apiextensions-apiserver schema/cel
  // sizeEstimator): it looks a field up by its escaped name only, so a field selected by its
  // reserved name (`self.namespace`), a map's value selected with a dot, or an optional selection
  // (`self.?a`) has no size for the estimate, and whatever reads it is counted at 2^64.
  {
    name: 'all() over a bounded list selected by its reserved name',
    spec: spec({ namespace: list(str(10), 5) }, ['self.namespace.all(x, x.size() > 0)']),
    server: 'reject',
  },
  {
    name: 'all() over the same list selected by its escaped name',
    spec: spec({ namespace: list(str(10), 5) }, ['self.__namespace__.all(x, x.size() > 0)']),
    server: 'accept',
  },
  {
    name: 'contains on a bounded string selected by its reserved name',
    spec: spec({ namespace: str(63) }, ["self.namespace.contains('x')"]),
    server: 'reject',
  },
  {
    name: 'contains on the same string selected by its escaped name',
    spec: spec({ namespace: str(63) }, ["self.__namespace__.contains('x')"]),
    server: 'accept',
  },
  {
    name: 'size() of a string selected by its reserved name (no size needed)',
    spec: spec({ namespace: str(63) }, ['self.namespace.size() <= 63']),
    server: 'accept',
  },
  {
    name: "contains on a bounded map's value selected with a dot",
    spec: spec({ labels: { type: 'object', additionalProperties: str(63), maxProperties: 8 } }, [
      "self.labels.app.contains('x')",
    ]),
    server: 'reject',
  },
  {
    name: "contains on the same map's value selected with an index",
    spec: spec({ labels: { type: 'object', additionalProperties: str(63), maxProperties: 8 } }, [
      "self.labels['app'].contains('x')",
    ]),
    server: 'accept',
  },
  {
    name: 'contains on a bounded string read through an optional selection',
    spec: spec({ name: str(63) }, ["self.?name.orValue('').contains('x')"]),
    server: 'reject',
  },
  {
    name: "contains on a bounded map's value read through an optional index",
    spec: spec({ labels: { type: 'object', additionalProperties: str(63), maxProperties: 8 } }, [
      "self.labels[?'app'].orValue('').contains('x')",
    ]),
    server: 'reject',
  },
  {
    name: 'contains on the same string read after has()',
    spec: spec({ name: str(63) }, ["!has(self.name) || self.name.contains('x')"]),
    server: 'accept',
  },
  {
    name: "contains on a bounded string's old value (optionalOldSelf)",
    spec: spec({
      uid: {
        type: 'string',
        maxLength: 64,
        'x-kubernetes-validations': [
          { rule: '!oldSelf.hasValue() || oldSelf.value().contains(self)', optionalOldSelf: true },
        ],
      },
    }),
    server: 'reject',
  },
  {
    name: 'the same rule without optionalOldSelf',
    spec: spec({
      uid: {
        type: 'string',
        maxLength: 64,
        'x-kubernetes-validations': [{ rule: 'oldSelf.contains(self)' }],
      },
    }),
    server: 'accept',
  },
  {
    name: 'metadata.name at the root is capped at 253 characters',
    spec: spec({ names: list(str(10), 100) }),
    root: ['self.spec.names.all(n, self.metadata.name.contains(n))'],
    server: 'accept',
  },
  {
    name: 'apiVersion at the root is an unbounded string',
    spec: spec({ names: list(str(10), 100) }),
    root: ['self.spec.names.all(n, self.apiVersion.contains(n))'],
    server: 'reject',
  },
];
