import { Environment, type ASTNode } from '@marcbachmann/cel-js';
import type { JSONSchemaProps } from '../../api-types/json-schema.ts';
import { CEL_RESERVED, celPropertyName } from './cel-names.ts';

/**
 * The static cost of x-kubernetes-validations rules, estimated as the API server does when a CRD is
 * created or updated (cel-go's checker cost model with Kubernetes' size estimates, as in
 * apiextensions-apiserver): each rule's worst-case cost times the number of times it can run (its
 * cardinality: the maxItems/maxProperties of the lists and maps above it) must stay within
 * 10,000,000, and all rules of a version's schema together within 100,000,000. Sizes come from the
 * schema: maxLength, maxItems, maxProperties; without them, the most a 3 MiB request can hold.
 *
 * This is an estimate of the estimate: it follows the server's rules for the operations CRD rules
 * use (field access, comparisons, logic, `size`, `in`, `matches`, `contains`, `startsWith`,
 * `endsWith`, the macros `all`/`exists`/`exists_one`/`map`/`filter`, list/map literals, Kubernetes'
 * list and string functions). Where it does not know a size or a function it counts low, so op-gen
 * rejects a rule only when the API server does too (docs/generate-crd.md, "CEL cost").
 */

/** apiextensions-apiserver's StaticEstimatedCostLimit: the most one rule (times its cardinality) may cost. */
export const PER_RULE_COST_LIMIT = 10_000_000;
/** apiextensions-apiserver's StaticEstimatedCRDCostLimit: the most all rules of a schema may cost together. */
export const PER_CRD_COST_LIMIT = 100_000_000;
/** celconfig.MaxRequestSizeBytes: the size bound for unbounded strings, lists and maps. */
const MAX_REQUEST_BYTES = 3 * 1024 * 1024;
const UINT64_MAX = 2 ** 64 - 1;

/**
 * Something a rule reads whose size the API server's estimate does not know: either the schema does
 * not bound it (add the marker), or the rule reads it in a way the server's size lookup cannot follow
 * (`rewrite`: a bound would not help; write the selection differently).
 */
export interface MissingBound {
  /** The type path, e.g. `Guard.spec.rules`. */
  readonly path: string;
  /** The marker that bounds it. */
  readonly marker: '@maxItems' | '@maxLength' | '@maxProperties';
  /** How to write the selection so the server finds the bounds, e.g. "write `self.__namespace__` ...". */
  readonly rewrite?: string;
}

interface Info {
  readonly kind: 'string' | 'bytes' | 'list' | 'map' | 'object' | 'scalar' | 'unknown';
  /** Max size (string length, number of items/entries); 0 where the server has none. */
  readonly size: number;
  readonly schema?: JSONSchemaProps;
  readonly path?: string;
  readonly elem?: () => Info;
  readonly field?: (name: string) => Info;
  /** Set when the size comes from the request-size bound (no maxLength/maxItems/maxProperties). */
  readonly unbounded?: MissingBound;
}

const UNKNOWN: Info = { kind: 'unknown', size: 0 };
const SCALAR: Info = { kind: 'scalar', size: 1 };

const sat = (n: number): number => (n > UINT64_MAX ? UINT64_MAX : n);
const factor = (n: number, f: number): number => sat(Math.ceil(n * f));
const mul = (a: number, b: number): number => sat(a * b);

/** The smallest JSON a value of `schema` can be (apiserver's MinSerializedSize). */
export function minSerializedSize(schema: JSONSchemaProps): number {
  if (schema['x-kubernetes-int-or-string']) return 1;
  switch (schema.type) {
    case 'string':
      return schema.format === 'duration'
        ? 3
        : schema.format === 'date'
          ? 12
          : schema.format === 'date-time'
            ? 21
            : 2;
    case 'boolean':
      return 4;
    case 'integer':
    case 'number':
      return 1;
    case 'array':
      return 2;
    case 'object': {
      if (typeof schema.additionalProperties === 'object') return 2;
      let size = 2;
      const required = new Set(schema.required ?? []);
      for (const [name, prop] of Object.entries(schema.properties ?? {})) {
        if (required.has(name) && prop.default === undefined)
          size += name.length + minSerializedSize(prop) + 4;
      }
      return size;
    }
    default:
      return 1;
  }
}

/**
 * What the cost model knows about a value of `schema` found at `path`. With `lost`, the rule reaches
 * the value in a way the server's size lookup cannot follow (apiextensions' sizeEstimator walks the
 * selection path by escaped field names only): its type is known, its size and that of everything
 * under it is cel-go's unknown size, 2^64.
 */
function infoOf(schema: JSONSchemaProps, path: string, lost?: MissingBound): Info {
  if (lost) return lostInfoOf(schema, path, lost);
  const unbounded = (marker: MissingBound['marker']): MissingBound => ({ path, marker });
  if (schema['x-kubernetes-embedded-resource']) schema = withTypeAndObjectMeta(schema);
  if (schema['x-kubernetes-int-or-string']) {
    return schema.maxLength !== undefined
      ? { kind: 'unknown', size: schema.maxLength * 4, schema, path }
      : { kind: 'unknown', size: MAX_REQUEST_BYTES - 2, schema, path, unbounded: unbounded('@maxLength') };
  }
  switch (schema.type) {
    case 'string': {
      if (schema.format === 'byte') {
        return schema.maxLength !== undefined
          ? { kind: 'bytes', size: schema.maxLength, schema, path }
          : { kind: 'bytes', size: MAX_REQUEST_BYTES - 2, schema, path, unbounded: unbounded('@maxLength') };
      }
      if (schema.format === 'duration' || schema.format === 'date-time') return { kind: 'scalar', size: 32 };
      if (schema.format === 'date') return { kind: 'scalar', size: 12 };
      if (schema.maxLength !== undefined) return { kind: 'string', size: schema.maxLength * 4, schema, path };
      if (schema.enum && schema.enum.length > 0) {
        const longest = Math.max(...schema.enum.map((v) => (typeof v === 'string' ? v.length : 0)));
        return { kind: 'string', size: longest, schema, path };
      }
      return {
        kind: 'string',
        size: MAX_REQUEST_BYTES - 2,
        schema,
        path,
        unbounded: unbounded('@maxLength'),
      };
    }
    case 'array': {
      const items = schema.items;
      const elem = (): Info => (items ? infoOf(items, `${path}[]`) : UNKNOWN);
      if (schema.maxItems !== undefined) return { kind: 'list', size: schema.maxItems, schema, path, elem };
      const size = Math.floor((MAX_REQUEST_BYTES - 2) / ((items ? minSerializedSize(items) : 1) + 1));
      return { kind: 'list', size, schema, path, elem, unbounded: unbounded('@maxItems') };
    }
    case 'object': {
      const values = schema.additionalProperties;
      if (typeof values === 'object') {
        const elem = (): Info => infoOf(values, `${path}.*`);
        if (schema.maxProperties !== undefined)
          return { kind: 'map', size: schema.maxProperties, schema, path, elem };
        const size = Math.floor((MAX_REQUEST_BYTES - 2) / (minSerializedSize(values) + 6));
        return { kind: 'map', size, schema, path, elem, unbounded: unbounded('@maxProperties') };
      }
      return { kind: 'object', size: 0, schema, path, field: (name) => fieldInfo(schema, path, name) };
    }
    case 'integer':
    case 'number':
    case 'boolean':
      // The server's size estimate of a scalar read from self is its MaxElements: 0.
      return { kind: 'scalar', size: 0 };
    default:
      return UNKNOWN;
  }
}

/** The value of a field of an object as a rule selects it (`self.<name>`). */
function fieldInfo(schema: JSONSchemaProps, path: string, name: string, lost?: MissingBound): Info {
  const props = schema.properties ?? {};
  const exact = Object.keys(props).find((p) => celPropertyName(p) === name);
  if (exact !== undefined) return infoOf(props[exact]!, `${path}.${exact}`, lost);
  // The type checker also finds a field by its reserved name unescaped (`self.namespace`), the size
  // lookup does not: the server counts such a value at 2^64 whatever its bounds.
  const reserved = CEL_RESERVED.has(name) ? props[name] : undefined;
  if (!reserved) return UNKNOWN;
  const at = `${path}.${name}`;
  return infoOf(reserved, at, lost ?? lostBy(at, insteadOf(`.${name}`, `.__${name}__`)));
}

/** A value whose bounds the server's estimate cannot see, and `advice`: how to write the rule so it can. */
function lostBy(path: string, advice: string): MissingBound {
  return {
    path,
    marker: '@maxLength',
    rewrite: `${advice} (reached that way, ${path} has no size in the API server's cost estimate, whatever its bounds)`,
  };
}

/** "write `b` instead of `a`" */
const insteadOf = (a: string, b: string): string => `write \`${b}\` instead of \`${a}\``;

/** `infoOf` for a value the server's size lookup cannot reach: sizes unknown (2^64) all the way down. */
function lostInfoOf(schema: JSONSchemaProps, path: string, lost: MissingBound): Info {
  if (schema['x-kubernetes-embedded-resource']) schema = withTypeAndObjectMeta(schema);
  const big = { size: UINT64_MAX, schema, path, unbounded: lost };
  if (schema['x-kubernetes-int-or-string']) return { kind: 'unknown', ...big };
  switch (schema.type) {
    case 'string':
      if (schema.format === 'duration' || schema.format === 'date-time' || schema.format === 'date')
        return { kind: 'scalar', size: 1 };
      return { kind: schema.format === 'byte' ? 'bytes' : 'string', ...big };
    case 'array': {
      const items = schema.items;
      return { kind: 'list', ...big, elem: () => (items ? infoOf(items, `${path}[]`, lost) : UNKNOWN) };
    }
    case 'object': {
      const values = schema.additionalProperties;
      if (typeof values === 'object')
        return { kind: 'map', ...big, elem: () => infoOf(values, `${path}.*`, lost) };
      return { kind: 'object', size: 0, schema, path, field: (name) => fieldInfo(schema, path, name, lost) };
    }
    case 'integer':
    case 'number':
    case 'boolean':
      // cel-go's size of a scalar type when the estimator has none.
      return { kind: 'scalar', size: 1 };
    default:
      return UNKNOWN;
  }
}

interface Estimate {
  readonly cost: number;
  readonly info: Info;
}

class Estimator {
  readonly #vars: Map<string, Info>[] = [];
  readonly missing = new Map<string, MissingBound>();

  constructor(self: Info) {
    this.#vars.push(
      new Map([
        ['self', self],
        ['oldSelf', self],
      ]),
    );
  }

  #lookup(name: string): Info | undefined {
    for (let i = this.#vars.length - 1; i >= 0; i--) {
      const found = this.#vars[i]?.get(name);
      if (found) return found;
    }
    return undefined;
  }

  /** The size of a value, noting what left it unbounded. */
  #size(info: Info): number {
    if (info.unbounded) this.missing.set(`${info.unbounded.path} ${info.unbounded.marker}`, info.unbounded);
    return info.size;
  }

  /** `x.name` or `x.?name`: the field's size where the server finds it by its path. */
  #select(op: '.' | '.?', operand: ASTNode, name: string): Estimate {
    const o = this.estimate(operand);
    const selectCost = o.info.kind === 'scalar' || o.info.kind === 'list' ? 0 : 1;
    // The server sizes a selection by its path: an optional selection has none, and a map's
    // path has no fields, so both are counted at 2^64 however the schema bounds them.
    let info = UNKNOWN;
    if (o.info.kind === 'object' && o.info.field) {
      info = o.info.field(name);
      if (op === '.?') info = lose(info, insteadOf(`x.?${name}`, `has(x.${name}) && x.${name}`));
    } else if (o.info.kind === 'map' && o.info.elem) {
      info = lose(o.info.elem(), insteadOf(`.${name}`, `['${name}']`));
    }
    return { cost: o.cost + selectCost, info };
  }

  /** `x[i]` or `x[?i]`: the element's size (none for the optional form, as the server counts it). */
  #index(op: '[]' | '[?]', target: ASTNode, index: ASTNode): Estimate {
    const t = this.estimate(target);
    const i = this.estimate(index);
    const elem = t.info.elem ? t.info.elem() : UNKNOWN;
    return {
      cost: 1 + t.cost + i.cost,
      info: op === '[?]' ? lose(elem, insteadOf('x[?key]', 'key in x && x[key]')) : elem,
    };
  }

  estimate(node: ASTNode): Estimate {
    switch (node.op) {
      case 'value': {
        const v = node.args;
        if (typeof v === 'string') return { cost: 0, info: { kind: 'string', size: [...v].length } };
        if (v instanceof Uint8Array) return { cost: 0, info: { kind: 'bytes', size: v.length } };
        return { cost: 0, info: SCALAR };
      }
      case 'id':
        return { cost: 1, info: this.#lookup(node.args) ?? UNKNOWN };
      case '.':
      case '.?':
        return this.#select(node.op, node.args[0], node.args[1]);
      case '[]':
      case '[?]':
        return this.#index(node.op, node.args[0], node.args[1]);
      case '&&':
      case '||': {
        const [l, r] = node.args;
        return { cost: this.estimate(l).cost + this.estimate(r).cost, info: SCALAR };
      }
      case '?:': {
        const [c, a, b] = node.args;
        const ea = this.estimate(a);
        const eb = this.estimate(b);
        const info = ea.info.size >= eb.info.size ? ea.info : eb.info;
        return { cost: this.estimate(c).cost + Math.max(ea.cost, eb.cost), info };
      }
      case '!_':
      case '-_':
        return { cost: 1 + this.estimate(node.args).cost, info: SCALAR };
      case 'list': {
        let cost = 10;
        let elem: Info = UNKNOWN;
        for (const e of node.args) {
          const est = this.estimate(e);
          cost += est.cost;
          if (est.info.size >= elem.size) elem = est.info;
        }
        return { cost, info: { kind: 'list', size: node.args.length, elem: () => elem } };
      }
      case 'map': {
        let cost = 30;
        for (const [k, v] of node.args) cost += this.estimate(k).cost + this.estimate(v).cost;
        return { cost, info: { kind: 'map', size: node.args.length } };
      }
      case '==':
      case '!=':
      case '<':
      case '<=':
      case '>':
      case '>=': {
        const [l, r] = node.args;
        const el = this.estimate(l);
        const er = this.estimate(r);
        const stringish = (i: Info): boolean => i.kind === 'string' || i.kind === 'bytes';
        // Equality traverses the smaller operand; ordering does only on strings and bytes.
        const sized = node.op === '==' || node.op === '!=' || stringish(el.info) || stringish(er.info);
        const cmp = sized ? factor(Math.min(this.#size(el.info), this.#size(er.info)), 0.1) : 1;
        return { cost: cmp + el.cost + er.cost, info: SCALAR };
      }
      case '+': {
        const [l, r] = node.args;
        const el = this.estimate(l);
        const er = this.estimate(r);
        if (el.info.kind === 'string' || el.info.kind === 'bytes') {
          const size = sat(this.#size(el.info) + this.#size(er.info));
          return { cost: factor(size, 0.1) + el.cost + er.cost, info: { kind: el.info.kind, size } };
        }
        if (el.info.kind === 'list') {
          const size = sat(el.info.size + er.info.size);
          return {
            cost: 1 + el.cost + er.cost,
            info: { kind: 'list', size, ...(el.info.elem ? { elem: el.info.elem } : {}) },
          };
        }
        return { cost: 1 + el.cost + er.cost, info: SCALAR };
      }
      case '-':
      case '*':
      case '/':
      case '%': {
        const [l, r] = node.args;
        return { cost: 1 + this.estimate(l).cost + this.estimate(r).cost, info: SCALAR };
      }
      case 'in': {
        const [l, r] = node.args;
        const el = this.estimate(l);
        const er = this.estimate(r);
        const traverse = er.info.kind === 'list' ? this.#size(er.info) : 1;
        return { cost: traverse + el.cost + er.cost, info: SCALAR };
      }
      case 'call':
        return this.#call(node.args[0], undefined, node.args[1]);
      case 'rcall':
        return this.#call(node.args[0], node.args[1], node.args[2]);
      default:
        return { cost: 1, info: UNKNOWN };
    }
  }

  #call(name: string, target: ASTNode | undefined, args: readonly ASTNode[]): Estimate {
    if (name === 'has' && !target && args[0] && (args[0].op === '.' || args[0].op === '.?')) {
      // A presence test costs nothing in Kubernetes' environment (PresenceTestHasCost(false)); its operand does.
      return { cost: this.estimate(args[0].args[0]).cost, info: SCALAR };
    }
    const macro = target ? this.#macro(name, target, args) : undefined;
    if (macro) return macro;
    const t = target ? this.estimate(target) : undefined;
    const a = args.map((x) => this.estimate(x));
    const argCost = (t?.cost ?? 0) + a.reduce((n, x) => n + x.cost, 0);
    const on = t?.info ?? a[0]?.info ?? UNKNOWN;
    const first = target ? a[0]?.info : a[1]?.info;
    const strSize = (i: Info | undefined): number => (i ? this.#size(i) : 0);
    switch (name) {
      case 'matches': {
        const str = factor(strSize(on) + 1, 0.1);
        const regex = factor(strSize(first), 0.25);
        return { cost: mul(str, regex) + argCost, info: SCALAR };
      }
      case 'contains':
        if (on.kind === 'string')
          return { cost: mul(factor(strSize(on), 0.1), factor(strSize(first), 0.1)) + argCost, info: SCALAR };
        break;
      case 'startsWith':
      case 'endsWith':
        return { cost: factor(strSize(first), 0.1) + argCost, info: SCALAR };
      case 'isSorted':
      case 'sum':
      case 'max':
      case 'min':
      case 'indexOf':
      case 'lastIndexOf':
        if (target && on.kind === 'list') {
          const elem = on.elem ? on.elem() : UNKNOWN;
          const per =
            1 + (elem.kind === 'string' || elem.kind === 'bytes' ? factor(this.#size(elem), 0.1) : 0);
          return { cost: mul(this.#size(on), per) + argCost, info: elem.kind === 'unknown' ? SCALAR : elem };
        }
        if (target && on.kind === 'string')
          return { cost: factor(this.#size(on), 0.1) + argCost, info: SCALAR };
        break;
      case 'lowerAscii':
      case 'upperAscii':
      case 'substring':
      case 'trim':
        if (target)
          return { cost: factor(this.#size(on), 0.1) + argCost, info: { kind: 'string', size: on.size } };
        break;
      case 'replace':
        if (target)
          return { cost: factor(this.#size(on), 0.2) + argCost, info: { kind: 'string', size: on.size } };
        break;
      case 'split':
        if (target)
          return {
            cost: factor(this.#size(on), 0.2) + argCost,
            info: { kind: 'list', size: on.size, elem: () => ({ kind: 'string', size: on.size }) },
          };
        break;
      case 'orValue':
      case 'value':
        // The server has no size for an optional's value (no path leads to it).
        if (target)
          return {
            cost: 1 + argCost,
            info: lose(
              on,
              `read it without \`${name}()\` (after has(), or in a rule without optionalOldSelf)`,
            ),
          };
        break;
      case 'url':
        if (!target) return { cost: factor(strSize(on), 0.1) + argCost, info: UNKNOWN };
        break;
      default:
        break;
    }
    return {
      cost: 1 + argCost,
      info: name === 'size' || name === 'int' || name === 'bool' ? SCALAR : UNKNOWN,
    };
  }

  /** cel-go's cost of the comprehension a macro expands to. */
  #macro(name: string, target: ASTNode, args: readonly ASTNode[]): Estimate | undefined {
    const [v, ...body] = args;
    if (!v || v.op !== 'id' || body.length === 0) return undefined;
    if (!['all', 'exists', 'exists_one', 'existsOne', 'map', 'filter'].includes(name)) return undefined;
    const range = this.estimate(target);
    const n = this.#size(range.info);
    const item =
      range.info.kind === 'list' && range.info.elem
        ? range.info.elem()
        : range.info.kind === 'map'
          ? { kind: 'string' as const, size: 0 }
          : UNKNOWN;
    this.#vars.push(new Map([[v.args, item]]));
    const costs = body.map((b) => this.estimate(b).cost);
    this.#vars.pop();
    const [p = 0, e = 0] = costs;
    // Per iteration: the loop condition plus the step, as cel-go's macro expansions are built.
    let step: number;
    let fixed: number;
    switch (name) {
      case 'all':
        step = 2 + 1 + p;
        fixed = 1;
        break;
      case 'exists':
        step = 3 + 1 + p;
        fixed = 1;
        break;
      case 'exists_one':
      case 'existsOne':
        step = p + 2;
        fixed = 2;
        break;
      case 'map':
        step = body.length === 2 ? p + 12 + e : 12 + p;
        fixed = 10 + 1;
        break;
      default: // filter
        step = p + 13;
        fixed = 10 + 1;
        break;
    }
    const size = name === 'map' || name === 'filter' ? n : 1;
    const info: Info =
      name === 'map' || name === 'filter'
        ? { kind: 'list', size, ...(name === 'filter' && range.info.elem ? { elem: range.info.elem } : {}) }
        : SCALAR;
    return { cost: sat(range.cost + fixed + mul(n, step)), info };
  }
}

/** Parses rules as the API server's environment does: optional syntax (`x.?f`, `m[?k]`) included. */
const PARSER = new Environment({ enableOptionalTypes: true });

/** The estimated worst-case cost of one evaluation of `rule` with `self` of `schema` at `path`. */
export function estimateRuleCost(
  rule: string,
  schema: JSONSchemaProps,
  path: string,
): { cost: number; missing: MissingBound[] } | undefined {
  let ast: ASTNode;
  try {
    ast = PARSER.parse(rule).ast;
  } catch {
    return undefined; // the syntax check reports it
  }
  const estimator = new Estimator(infoOf(schema, path));
  const { cost } = estimator.estimate(ast);
  return { cost, missing: [...estimator.missing.values()] };
}

/** One rule's estimate where it stands in the schema. */
export interface RuleCost {
  readonly path: string;
  readonly rule: string;
  /** Cost of one evaluation. */
  readonly cost: number;
  /** How many times it can run in one object. */
  readonly cardinality: number;
  /** cost × cardinality, what the server compares with the per-rule limit. */
  readonly total: number;
  /** Unbounded strings, lists and maps the estimate assumed at their request-size maximum. */
  readonly missing: readonly MissingBound[];
}

/** metadata.name's bound in CEL at a resource's root (DNS-1123 subdomain, apiextensions' nameMaxLength). */
const NAME_MAX_LENGTH = 253;

/**
 * A resource's root (the CRD's or an embedded resource's) as the server types it for CEL
 * (apiextensions' WithTypeAndObjectMeta): `kind` and `apiVersion` strings, `metadata` with only
 * `name` and `generateName`, capped at 253 and 252 characters (or the schema's shorter maxLength).
 */
function withTypeAndObjectMeta(root: JSONSchemaProps): JSONSchemaProps {
  const p = root.properties ?? {};
  const meta = p.metadata?.properties;
  if (
    p.kind?.type === 'string' &&
    p.apiVersion?.type === 'string' &&
    p.metadata?.type === 'object' &&
    meta?.name?.type === 'string' &&
    meta.generateName?.type === 'string'
  )
    return root;
  const capped = (existing: JSONSchemaProps | undefined, max: number): JSONSchemaProps => ({
    type: 'string',
    maxLength: existing?.maxLength !== undefined && existing.maxLength < max ? existing.maxLength : max,
  });
  const metadata: JSONSchemaProps = {
    type: 'object',
    properties: {
      name: capped(meta?.name, NAME_MAX_LENGTH),
      generateName: capped(meta?.generateName, NAME_MAX_LENGTH - 1),
    },
  };
  return {
    ...root,
    properties: { ...p, kind: { type: 'string' }, apiVersion: { type: 'string' }, metadata },
  };
}

/** `info` as the server sizes it when reached by a selection it cannot follow (see `infoOf`'s `lost`). */
function lose(info: Info, advice: string): Info {
  if (info.unbounded?.rewrite || !info.schema || !info.path) return info;
  return lostInfoOf(info.schema, info.path, lostBy(info.path, advice));
}

/**
 * Every rule of a version's schema with its estimated cost and cardinality, walking from the root
 * (`path` is the kind's name) as the API server does.
 */
export function ruleCosts(root: JSONSchemaProps, kind: string): RuleCost[] {
  const out: RuleCost[] = [];
  const walk = (
    node: JSONSchemaProps,
    path: string,
    bounded: number | undefined,
    unboundedAbove: readonly MissingBound[],
  ): void => {
    const rules = node['x-kubernetes-validations'] ?? [];
    if (rules.length > 0) {
      const cardinality = bounded ?? Math.floor(MAX_REQUEST_BYTES / (minSerializedSize(node) + 1));
      for (const r of rules) {
        const est = estimateRuleCost(r.rule, node, path);
        if (!est) continue;
        const total = est.cost === 0 ? 0 : sat(est.cost * cardinality);
        out.push({
          path,
          rule: r.rule,
          cost: est.cost,
          cardinality,
          total,
          missing: [...unboundedAbove, ...est.missing],
        });
      }
    }
    // How many children each value of this node has, as apiextensions' extractMaxElements says.
    let childFactor: number | undefined = 1;
    let bound: MissingBound | undefined;
    if (node.type === 'array') {
      childFactor = node.maxItems;
      if (childFactor === undefined) bound = { path, marker: '@maxItems' };
    } else if (node.type === 'object' && node.additionalProperties !== undefined) {
      childFactor = node.maxProperties;
      if (childFactor === undefined) bound = { path, marker: '@maxProperties' };
    }
    const childBounded =
      bounded === undefined || childFactor === undefined ? undefined : sat(bounded * childFactor);
    const above = bound ? [...unboundedAbove, bound] : unboundedAbove;
    for (const [name, prop] of Object.entries(node.properties ?? {}))
      walk(prop, `${path}.${name}`, childBounded, above);
    if (node.items) walk(node.items, `${path}[]`, childBounded, above);
    if (typeof node.additionalProperties === 'object')
      walk(node.additionalProperties, `${path}.*`, childBounded, above);
  };
  walk(withTypeAndObjectMeta(root), kind, 1, []);
  return out;
}

const n = (x: number): string =>
  x >= UINT64_MAX ? 'more than 1.8e19' : Math.round(x).toLocaleString('en-US');

/** "add @maxItems to Guard.spec.rules, @items:maxLength to Guard.spec.rules" */
export function boundsToAdd(missing: readonly MissingBound[]): string {
  const seen = new Set<string>();
  const parts: string[] = [];
  const rewrites = [...new Set(missing.flatMap((m) => (m.rewrite ? [m.rewrite] : [])))];
  for (const m of missing) {
    if (m.rewrite) continue;
    const item = m.path.endsWith('[]');
    const text = item ? `@items:${m.marker.slice(1)} to ${m.path.slice(0, -2)}` : `${m.marker} to ${m.path}`;
    if (!seen.has(text)) {
      seen.add(text);
      parts.push(text);
    }
  }
  const add = parts.length > 0 ? [`add ${parts.join(', ')}`] : [];
  const all = [...rewrites, ...add];
  return all.length > 0 ? all.join('; ') : 'simplify the rule';
}

/** The problem text for a rule over the per-rule limit. */
export function costProblem(c: RuleCost): string {
  const times =
    c.cardinality > 1 ? ` (${n(c.cost)} per evaluation × up to ${n(c.cardinality)} evaluations)` : '';
  return `CEL rule "${c.rule}": estimated cost ${n(c.total)}${times} exceeds the API server's limit of ${n(PER_RULE_COST_LIMIT)} per rule, so it would reject the CRD. To bound it, ${boundsToAdd(c.missing)}`;
}

/** The problem text for a schema whose rules together exceed the per-CRD limit. */
export function totalCostProblem(costs: readonly RuleCost[], sum: number): string {
  const top = [...costs]
    .sort((a, b) => b.total - a.total)
    .slice(0, 4)
    .map((c) => `${c.path} "${c.rule}" ${n(c.total)}`)
    .join('; ');
  return `the CEL rules' estimated cost adds up to ${n(sum)}, over the API server's limit of ${n(PER_CRD_COST_LIMIT)} for all rules of a CRD version (most expensive: ${top}). To bound them, ${boundsToAdd(costs.flatMap((c) => c.missing))}`;
}
