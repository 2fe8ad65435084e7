import { createRequire } from 'node:module';
import type { RE2JS } from 're2js';
import type { JSONSchemaProps } from '../../api-types/json-schema.ts';
import type { JsonValue } from '../../markers/types.ts';
import { editDistance } from '../../markers/edit-distance.ts';
import { inRe2Subset } from './re2-subset.ts';

/**
 * What makes a CRD the API server refuses, or a field no object can set, checked on one schema node
 * once its markers are applied (schema-markers.ts calls these for both front ends):
 * - patterns compiled in the API server's dialect (Go's RE2, through re2js): JavaScript's RegExp
 *   accepts lookarounds and backreferences RE2 refuses, and the reverse (`\z`, `[[:alpha:]]`);
 * - bounds that no value satisfies (minimum above maximum, negative lengths or counts, `multipleOf` ≤ 0);
 * - enum values and defaults validated against the node's own schema (type, bounds, pattern, enum,
 *   format, items, nested objects), as the API server validates a default when the CRD is created.
 */

type Re2 = typeof RE2JS;
let re2: Re2 | undefined;
const compiled = new Map<string, RE2JS | string>();

/** The compiled pattern, or why RE2 refuses it (re2js's message, as Go's regexp words it). */
export function compileRe2(pattern: string): RE2JS | string {
  const known = compiled.get(pattern);
  if (known !== undefined) return known;
  re2 ??= (createRequire(import.meta.url)('re2js') as { RE2JS: Re2 }).RE2JS;
  let out: RE2JS | string;
  try {
    out = re2.compile(pattern);
  } catch (err) {
    out = (err instanceof Error ? err.message : String(err)).replace(/^error parsing regexp: /, '');
  }
  compiled.set(pattern, out);
  return out;
}

/**
 * The formats the API server knows (kube-openapi's format registry, plus the numeric ones
 * controller-gen writes); any other format is ignored by the API server.
 */
export const KNOWN_FORMATS: readonly string[] = [
  'bsonobjectid',
  'uri',
  'email',
  'hostname',
  'ipv4',
  'ipv6',
  'cidr',
  'mac',
  'uuid',
  'uuid3',
  'uuid4',
  'uuid5',
  'isbn',
  'isbn10',
  'isbn13',
  'creditcard',
  'ssn',
  'hexcolor',
  'rgbcolor',
  'byte',
  'password',
  'date',
  'duration',
  'date-time',
  'datetime',
  'int32',
  'int64',
  'float',
  'double',
  'int-or-string',
  'k8s-short-name',
  'k8s-long-name',
];

/** The known format nearest to `format` (for the warning). */
export function nearestFormat(format: string): string {
  let best = KNOWN_FORMATS[0] ?? 'date-time';
  let distance = Number.POSITIVE_INFINITY;
  for (const known of KNOWN_FORMATS) {
    const d = editDistance(format.toLowerCase(), known);
    if (d < distance) {
      best = known;
      distance = d;
    }
  }
  return best;
}

/** A problem with the node's own constraints: which keyword (the marker that set it is blamed) and what. */
export interface ConstraintProblem {
  readonly keyword: keyof JSONSchemaProps;
  readonly message: string;
  readonly fix: string;
}

const PAIRS: readonly [keyof JSONSchemaProps, keyof JSONSchemaProps, string][] = [
  ['minimum', 'maximum', 'value'],
  ['minLength', 'maxLength', 'length'],
  ['minItems', 'maxItems', 'number of items'],
  ['minProperties', 'maxProperties', 'number of properties'],
];

const COUNTS: readonly (keyof JSONSchemaProps)[] = [
  'minLength',
  'maxLength',
  'minItems',
  'maxItems',
  'minProperties',
  'maxProperties',
];

/** Bounds no value satisfies, counts that are not whole numbers ≥ 0, `multipleOf` ≤ 0, a pattern RE2 refuses. */
export function constraintProblems(node: JSONSchemaProps): ConstraintProblem[] {
  const out: ConstraintProblem[] = [];
  for (let i = 0; i < COUNTS.length; i++) {
    const key = COUNTS[i]!;
    const v = node[key];
    if (typeof v === 'number' && (!Number.isInteger(v) || v < 0))
      out.push({
        keyword: key,
        message: `${key} ${v} is not a whole number ≥ 0`,
        fix: 'Give a count of 0 or more',
      });
  }
  if (typeof node.multipleOf === 'number' && !(node.multipleOf > 0))
    out.push({
      keyword: 'multipleOf',
      message: `multipleOf ${node.multipleOf} must be greater than 0`,
      fix: 'Give a positive number',
    });
  for (let i = 0; i < PAIRS.length; i++) {
    const [lo, hi, what] = PAIRS[i]!;
    const min = node[lo];
    const max = node[hi];
    if (typeof min !== 'number' || typeof max !== 'number') continue;
    const exclusive = lo === 'minimum' && (node.exclusiveMinimum === true || node.exclusiveMaximum === true);
    if (min > max || (min === max && exclusive))
      out.push({
        keyword: hi,
        message: `no ${what} satisfies ${lo} ${min}${node.exclusiveMinimum && lo === 'minimum' ? ' (exclusive)' : ''} and ${hi} ${max}${node.exclusiveMaximum && lo === 'minimum' ? ' (exclusive)' : ''}`,
        fix: `Make ${lo} at most ${hi}`,
      });
  }
  // A pattern in the subset RE2 is known to accept needs no compiling (re2js is not even loaded).
  if (typeof node.pattern === 'string' && !inRe2Subset(node.pattern)) {
    const re = compileRe2(node.pattern);
    if (typeof re === 'string')
      out.push({
        keyword: 'pattern',
        message: `${JSON.stringify(node.pattern)} is not a valid regular expression for the API server (Go RE2 syntax): ${re}`,
        fix: 'RE2 has no lookarounds or backreferences; escape literal brackets and parentheses',
      });
  }
  return out;
}

/**
 * Why `value` does not validate against `schema` (empty when it does), as the API server checks a
 * default: type, nullable, enum, bounds, pattern, format, items, properties (required ones present,
 * nested defaults not filled in) and map values. CEL rules are not evaluated.
 */
/** Each problem starts with the value (`"x" is ...`) or, below it, with the path (`a.b: ...`). */
export function valueProblems(value: JsonValue, schema: JSONSchemaProps, path = ''): string[] {
  const at = path === '' ? '' : `${path}: `;
  if (value === null) return schema.nullable ? [] : [`${at}null, but the field is not nullable`];
  const out: string[] = [];
  const intOrString = schema['x-kubernetes-int-or-string'] === true;
  const actual = Array.isArray(value) ? 'array' : typeof value === 'object' ? 'object' : typeof value;
  if (intOrString) {
    if (typeof value !== 'string' && !Number.isInteger(value))
      return [`${at}${JSON.stringify(value)} is neither an integer nor a string`];
  } else if (schema.type !== undefined) {
    const fits =
      (schema.type === 'integer' && Number.isInteger(value)) ||
      (schema.type === 'number' && actual === 'number') ||
      schema.type === actual;
    if (!fits)
      return [
        `${at}${short(value)} is ${actual === 'number' && schema.type === 'integer' ? 'not an integer' : `a ${actual}`}, the field is ${schema.type}`,
      ];
  }
  if (schema.enum && !schema.enum.some((e) => JSON.stringify(e) === JSON.stringify(value)))
    out.push(`${at}${short(value)} is not one of ${schema.enum.map((e) => JSON.stringify(e)).join(', ')}`);
  if (typeof value === 'number') out.push(...numberProblems(value, schema, at));
  if (typeof value === 'string') out.push(...stringProblems(value, schema, at, intOrString));
  if (Array.isArray(value)) {
    if (schema.minItems !== undefined && value.length < schema.minItems)
      out.push(`${at}${short(value)} has ${value.length} items, fewer than minItems ${schema.minItems}`);
    if (schema.maxItems !== undefined && value.length > schema.maxItems)
      out.push(`${at}${short(value)} has ${value.length} items, more than maxItems ${schema.maxItems}`);
    if (schema.items)
      value.forEach((v, i) => out.push(...valueProblems(v, schema.items ?? {}, `${path}[${i}]`)));
  }
  if (actual === 'object' && value !== null && !Array.isArray(value) && typeof value === 'object') {
    // The API server does not fill in nested defaults before it validates a default (a required
    // field with a default of its own must still be in it: seen on kube-apiserver 1.37).
    const keys = Object.keys(value);
    if (schema.minProperties !== undefined && keys.length < schema.minProperties)
      out.push(
        `${at}${short(value)} has ${keys.length} properties, fewer than minProperties ${schema.minProperties}`,
      );
    if (schema.maxProperties !== undefined && keys.length > schema.maxProperties)
      out.push(
        `${at}${short(value)} has ${keys.length} properties, more than maxProperties ${schema.maxProperties}`,
      );
    for (const name of schema.required ?? [])
      if (!(name in value)) out.push(`${at}${short(value)} lacks the required field ${JSON.stringify(name)}`);
    for (const [name, v] of Object.entries(value)) {
      const child =
        schema.properties?.[name] ??
        (typeof schema.additionalProperties === 'object' ? schema.additionalProperties : undefined);
      // A field the schema does not declare is pruned, as the API server does (not an error).
      if (child && v !== undefined)
        out.push(...valueProblems(v, child, path === '' ? name : `${path}.${name}`));
    }
  }
  return out;
}

export function short(value: JsonValue): string {
  const s = JSON.stringify(value);
  return s.length > 40 ? `${s.slice(0, 37)}...` : s;
}

function numberProblems(value: number, schema: JSONSchemaProps, at: string): string[] {
  const out: string[] = [];
  if (schema.minimum !== undefined) {
    if (schema.exclusiveMinimum ? value <= schema.minimum : value < schema.minimum)
      out.push(
        `${at}${value} is below the minimum ${schema.minimum}${schema.exclusiveMinimum ? ' (exclusive)' : ''}`,
      );
  }
  if (schema.maximum !== undefined) {
    if (schema.exclusiveMaximum ? value >= schema.maximum : value > schema.maximum)
      out.push(
        `${at}${value} is above the maximum ${schema.maximum}${schema.exclusiveMaximum ? ' (exclusive)' : ''}`,
      );
  }
  if (schema.multipleOf !== undefined && schema.multipleOf > 0) {
    const q = value / schema.multipleOf;
    if (Math.abs(q - Math.round(q)) > 1e-9)
      out.push(`${at}${value} is not a multiple of ${schema.multipleOf}`);
  }
  if (schema.format === 'int32' && (value < -2147483648 || value > 2147483647))
    out.push(`${at}${value} does not fit format int32`);
  return out;
}

/** Formats whose values op-gen checks (the API server checks these when it validates a default). */
const FORMAT_CHECKS: Readonly<Record<string, RegExp>> = {
  'date-time': /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/,
  date: /^\d{4}-\d{2}-\d{2}$/,
  uuid: /^[0-9a-fA-F]{8}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{12}$/,
  ipv4: /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/,
  byte: /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/,
};

function stringProblems(value: string, schema: JSONSchemaProps, at: string, intOrString: boolean): string[] {
  const out: string[] = [];
  // The API server counts characters (runes), not UTF-16 units.
  const length = [...value].length;
  if (schema.minLength !== undefined && length < schema.minLength)
    out.push(`${at}${short(value)} is shorter than minLength ${schema.minLength}`);
  if (schema.maxLength !== undefined && length > schema.maxLength)
    out.push(`${at}${short(value)} is longer than maxLength ${schema.maxLength}`);
  if (schema.pattern !== undefined) {
    const re = compileRe2(schema.pattern);
    if (typeof re !== 'string' && !re.matcher(value).find())
      out.push(`${at}${short(value)} does not match the pattern ${JSON.stringify(schema.pattern)}`);
  }
  const format = schema.format === undefined ? undefined : FORMAT_CHECKS[schema.format];
  if (format && !intOrString && !format.test(value))
    out.push(`${at}${short(value)} is not a valid ${schema.format}`);
  return out;
}
