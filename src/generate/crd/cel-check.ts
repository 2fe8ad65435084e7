import { Environment } from '@marcbachmann/cel-js';
import type { JSONSchemaProps } from '../../api-types/json-schema.ts';
import { celPropertyName } from './cel-names.ts';

export { celPropertyName } from './cel-names.ts';

/**
 * Generate-time checks of CEL validation rules (x-kubernetes-validations), on @marcbachmann/cel-js:
 * the rule must parse, and every field it reads from `self` (or `oldSelf`) must exist in the schema
 * of the type or field the rule stands on. The API server runs the full check (types and cost) when
 * the CRD is applied; this catches typos at generate time, with the marker's file:line.
 */
export interface CelRuleProblem {
  readonly message: string;
  /** 1-based column in the rule where the problem is, when the CEL library says. */
  readonly column?: number;
}

/** Functions of Kubernetes' CEL libraries (strings, lists, regex, URLs, quantity, IP/CIDR, semver, sets, format). */
const KUBERNETES_FUNCTIONS = new Set([
  'charAt',
  'indexOf',
  'lastIndexOf',
  'lowerAscii',
  'upperAscii',
  'replace',
  'split',
  'substring',
  'trim',
  'join',
  'format',
  'quote',
  'reverse',
  'isSorted',
  'sum',
  'min',
  'max',
  'find',
  'findAll',
  'url',
  'isURL',
  'getScheme',
  'getHost',
  'getHostname',
  'getPort',
  'getEscapedPath',
  'getQuery',
  'quantity',
  'isQuantity',
  'sign',
  'isInteger',
  'asInteger',
  'asApproximateFloat',
  'add',
  'sub',
  'compareTo',
  'isGreaterThan',
  'isLessThan',
  'ip',
  'isIP',
  'cidr',
  'isCIDR',
  'family',
  'isUnspecified',
  'isLoopback',
  'isLinkLocalMulticast',
  'isLinkLocalUnicast',
  'isGlobalUnicast',
  'containsIP',
  'containsCIDR',
  'masked',
  'prefixLength',
  'semver',
  'isSemver',
  'major',
  'minor',
  'patch',
  'sets.contains',
  'sets.equivalent',
  'sets.intersects',
  'base64.decode',
  'base64.encode',
  'strings.quote',
  'math.ceil',
  'math.floor',
  'math.round',
  'math.trunc',
  'math.abs',
  'math.sign',
  'math.isInf',
  'math.isNaN',
  'math.isFinite',
  'math.greatest',
  'math.least',
  'math.bitOr',
  'math.bitAnd',
  'math.bitXor',
  'math.bitNot',
  'math.bitShiftLeft',
  'math.bitShiftRight',
  'optional.of',
  'optional.none',
  'optional.ofNonZeroValue',
  'orValue',
  'hasValue',
  'value',
  'or',
  'optMap',
  'optFlatMap',
  'lists.range',
  'distinct',
  'flatten',
  'slice',
  'sort',
  'sortBy',
  'first',
  'last',
  'ext.TwoVarComprehensions',
  'transformList',
  'transformMap',
  'transformMapEntry',
  'all',
  'exists',
  'existsOne',
  'exists_one',
]);

interface TypeTable {
  readonly env: Environment;
  next: number;
}

/** The CEL type of a schema, registering object types in the environment as it goes. */
function celType(schema: JSONSchemaProps, table: TypeTable, resourceRoot = false): string {
  if (
    schema['x-kubernetes-int-or-string'] ||
    schema['x-kubernetes-preserve-unknown-fields'] ||
    schema['x-kubernetes-embedded-resource']
  ) {
    return 'dyn';
  }
  switch (schema.type) {
    case 'string':
      // date-time and duration strings are timestamps/durations in Kubernetes' CEL: leave them open.
      return schema.format === 'date-time' || schema.format === 'duration' || schema.format === 'byte'
        ? 'dyn'
        : 'string';
    case 'integer':
      return 'int';
    case 'number':
      return 'double';
    case 'boolean':
      return 'bool';
    case 'array':
      return `list<${schema.items ? celType(schema.items, table) : 'dyn'}>`;
    case 'object': {
      if (typeof schema.additionalProperties === 'object')
        return `map<string, ${celType(schema.additionalProperties, table)}>`;
      if (schema.additionalProperties !== true) {
        // An object of fixed fields; with none (an embedded ObjectMeta without
        // generateEmbeddedObjectMeta), the API server's CEL knows no field of it either:
        // `t.metadata.namespace` is `undefined field 'namespace'` there and here.
        const properties = schema.properties ?? {};
        // At a resource's root (an embedded resource's is dyn above) the API server lets a rule read
        // metadata.name and metadata.generateName only.
        const fields: Record<string, string> = {};
        for (const [name, prop] of Object.entries(properties)) {
          const escaped = celPropertyName(name);
          fields[escaped] =
            resourceRoot && name === 'metadata'
              ? celType(
                  {
                    type: 'object',
                    properties: { name: { type: 'string' }, generateName: { type: 'string' } },
                  },
                  table,
                )
              : celType(prop, table);
          // A reserved word (`namespace`): the API server's CEL also selects it unescaped
          // (`t.metadata.namespace`, checked on kube-apiserver 1.37).
          if (escaped === `__${name}__`) fields[name] = fields[escaped] as string;
        }
        const name = `OpGenObject${table.next++}`;
        table.env.registerType(name, { fields });
        // Objects compare with == and != as the API server's CEL does (`self == oldSelf` on an object
        // field, what @immutable writes); only the check runs here, the handler is never called.
        // node:util is taken when called, not imported: an ES import of it builds its facade, which
        // loads worker_threads, parseArgs and the diff module (~2 MB resident, issue 36).
        table.env.registerOperator(`${name} == ${name}`, (a: unknown, b: unknown) =>
          process.getBuiltinModule('node:util').isDeepStrictEqual(a, b),
        );
        return name;
      }
      return 'map<string, dyn>';
    }
    default:
      return 'dyn';
  }
}

function tolerated(message: string): boolean {
  // An overload error for one of Kubernetes' library functions: the API server knows it, we do not.
  const fn = /overload for '([\w.]+)\(/.exec(message)?.[1];
  return (
    fn !== undefined && (KUBERNETES_FUNCTIONS.has(fn) || KUBERNETES_FUNCTIONS.has(fn.split('.').pop() ?? ''))
  );
}

function firstLine(message: string): string {
  return message.split('\n')[0] ?? message;
}

/** Problems with `rule` where `self` has `selfSchema` (empty when the rule is fine). */
export function checkCelRule(
  rule: string,
  selfSchema: JSONSchemaProps,
  { resourceRoot = false }: { readonly resourceRoot?: boolean } = {},
): CelRuleProblem[] {
  const env = new Environment({
    unlistedVariablesAreDyn: false,
    enableOptionalTypes: true,
    homogeneousAggregateLiterals: false,
  });
  const table: TypeTable = { env, next: 0 };
  const selfType = celType(selfSchema, table, resourceRoot);
  env.registerVariable('self', selfType);
  env.registerVariable('oldSelf', selfType);
  let result: CheckResult;
  try {
    result = env.check(rule) as CheckResult;
  } catch (err) {
    return [{ message: firstLine((err as Error).message) }];
  }
  if (result.valid || !result.error) return hasProblems(env, rule);
  return problemsOf(result.error, rule, 'it reads', (message) => message);
}

/** What the CEL library's check answers. */
interface CheckResult {
  readonly valid: boolean;
  readonly error?: { readonly message: string; readonly node?: { readonly pos?: unknown } };
}

/**
 * The problem a failed check reports, at its column: a field the schema lacks is named (`<reads>
 * field "f", which the schema does not have`), any other message is passed through `other`. Empty
 * for the messages the API server's CEL does not refuse.
 */
function problemsOf(
  error: NonNullable<CheckResult['error']>,
  rule: string,
  reads: string,
  other: (message: string) => string,
): CelRuleProblem[] {
  const message = firstLine(error.message);
  if (tolerated(message)) return [];
  const pos = error.node?.pos;
  const at = typeof pos === 'number' ? { column: pos + 1 } : {};
  const key = /No such key: (\S+)/.exec(message)?.[1];
  if (key)
    return [
      { message: `${reads} field "${key}", which the schema does not have${metaHint(rule, key)}`, ...at },
    ];
  return [{ message: other(message), ...at }];
}

/**
 * `has(x.f)` where x's type has no field f, or is no object (a string): the API server's CEL refuses
 * it (`undefined field 'f'`, `type 'string' does not support field selection`), the CEL library here
 * does not check the selection of a `has`. The same rule with each `has(` read as
 * `dyn(` selects the fields as plain reads do, so a missing one is found (with its column, the
 * lengths being equal).
 */
function hasProblems(env: Environment, rule: string): CelRuleProblem[] {
  if (!/\bhas\(/.test(rule)) return [];
  let result: CheckResult;
  try {
    result = env.check(rule.replace(/\bhas\(/g, 'dyn(')) as CheckResult;
  } catch {
    return [];
  }
  if (result.valid || !result.error) return [];
  // Another selection has() cannot make (a field of a string, an int, ...) says so.
  return problemsOf(result.error, rule, 'has() reads', (message) => `in has(): ${message}`);
}

const EMBEDDED_META_FIELDS = new Set(['name', 'namespace', 'labels', 'annotations', 'finalizers']);

/** A rule reading an embedded ObjectMeta's field: say how to give the schema those fields. */
function metaHint(rule: string, key: string): string {
  if (!EMBEDDED_META_FIELDS.has(key) || !rule.includes(`metadata.${key}`)) return '';
  return " (an embedded ObjectMeta has name, namespace, labels, annotations and finalizers only with crd.generateEmbeddedObjectMeta: true in op-gen.yaml or --generate-embedded-object-meta, as controller-gen's crd:generateEmbeddedObjectMeta=true; the API server refuses the rule without them)";
}
