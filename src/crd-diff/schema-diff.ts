import { isDeepStrictEqual } from 'node:util';
import type { JSONSchemaProps, ValidationRule } from '../api-types/json-schema.ts';
import type { JsonValue } from '../markers/types.ts';
import type { BoundRule, DiffRule, Severity } from './types.ts';

/** A change found in one version's schema; the caller adds the CRD and the version. */
export interface SchemaChange {
  readonly severity: Severity;
  readonly rule: DiffRule;
  readonly path: string;
  readonly message: string;
  readonly old?: JsonValue;
  readonly new?: JsonValue;
}

/** Bounds that only restrict more when raised. */
const LOWER_BOUNDS: readonly BoundRule[] = ['minimum', 'minLength', 'minItems', 'minProperties'];
/** Bounds that only restrict more when lowered. */
const UPPER_BOUNDS: readonly BoundRule[] = ['maximum', 'maxLength', 'maxItems', 'maxProperties'];

/** The path of property `name` below `path` (`.` is the root). */
export function childPath(path: string, name: string): string {
  const prefix = path === '.' ? '' : path;
  return /^[A-Za-z_$][A-Za-z0-9_$-]*$/.test(name)
    ? `${prefix}.${name}`
    : `${prefix}[${JSON.stringify(name)}]`;
}

/**
 * Every change between two schemas of the same version, the way OLM's CRD upgrade safety preflight
 * and crdify judge them: what rejects objects the old schema accepted (or changes what is stored) is
 * breaking, what may do so depending on the data (CEL rules, patterns, formats) is risky, the rest safe.
 * Fields only one side has are compared no further (a new field's own constraints restrict nothing
 * that exists).
 */
export function diffSchemas(
  oldSchema: JSONSchemaProps,
  newSchema: JSONSchemaProps,
  path = '.',
): SchemaChange[] {
  const out: SchemaChange[] = [];
  walk(oldSchema, newSchema, path, out);
  return out;
}

function walk(o: JSONSchemaProps, n: JSONSchemaProps, path: string, out: SchemaChange[]): void {
  const add = (change: Omit<SchemaChange, 'path'>): void => {
    out.push({ path, ...change });
  };
  if (typeOf(o) !== typeOf(n)) {
    // Everything below is a different field now: its type change is the finding.
    add({ severity: 'breaking', rule: 'type', message: 'type changed', old: typeOf(o), new: typeOf(n) });
    return;
  }
  if ((o.description ?? '') !== (n.description ?? '')) {
    add({
      severity: 'safe',
      rule: 'description',
      message: 'description changed',
      ...valuePair(o.description, n.description),
    });
  }
  diffDefault(o.default, n.default, add);
  diffEnum(o.enum, n.enum, add);
  for (const rule of LOWER_BOUNDS) diffBound(rule, o, n, 'lower', add);
  for (const rule of UPPER_BOUNDS) diffBound(rule, o, n, 'upper', add);
  diffLoosely('pattern', o.pattern, n.pattern, add);
  diffLoosely('format', o.format, n.format, add);
  diffFlag('nullable', o.nullable === true, n.nullable === true, add, 'null no longer accepted');
  diffFlag(
    'preserveUnknownFields',
    o['x-kubernetes-preserve-unknown-fields'] === true,
    n['x-kubernetes-preserve-unknown-fields'] === true,
    add,
    'unknown fields no longer kept: the API server prunes them from stored objects',
  );
  diffCel(o['x-kubernetes-validations'] ?? [], n['x-kubernetes-validations'] ?? [], add);

  const oldRequired = new Set(o.required ?? []);
  for (const name of [...(n.required ?? [])].sort()) {
    if (oldRequired.has(name)) continue;
    out.push({
      severity: 'breaking',
      rule: 'required',
      path: childPath(path, name),
      message: o.properties?.[name] ? 'existing field became required' : 'new required field',
      old: 'optional',
      new: 'required',
    });
  }
  const newRequired = new Set(n.required ?? []);
  for (const name of [...oldRequired].sort()) {
    if (newRequired.has(name) || !n.properties?.[name]) continue;
    out.push({
      severity: 'safe',
      rule: 'required',
      path: childPath(path, name),
      message: 'field no longer required',
      old: 'required',
      new: 'optional',
    });
  }

  const oldProps = o.properties ?? {};
  const newProps = n.properties ?? {};
  for (const name of Object.keys({ ...oldProps, ...newProps }).sort()) {
    const before = oldProps[name];
    const after = newProps[name];
    const at = childPath(path, name);
    if (before && after) walk(before, after, at, out);
    else if (before) {
      out.push({ severity: 'breaking', rule: 'existingFieldRemoval', path: at, message: 'field removed' });
    } else if (after && !newRequired.has(name)) {
      out.push({ severity: 'safe', rule: 'fieldAdded', path: at, message: 'optional field added' });
    }
  }
  if (o.items && n.items) walk(o.items, n.items, `${path === '.' ? '' : path}[*]`, out);
  const oldValues = typeof o.additionalProperties === 'object' ? o.additionalProperties : undefined;
  const newValues = typeof n.additionalProperties === 'object' ? n.additionalProperties : undefined;
  if (oldValues && newValues) walk(oldValues, newValues, `${path === '.' ? '' : path}.*`, out);
}

/** The type as a user reads it: int-or-string and preserved-unknown objects are types of their own. */
function typeOf(s: JSONSchemaProps): string {
  if (s['x-kubernetes-int-or-string']) return 'int-or-string';
  return s.type ?? (s['x-kubernetes-preserve-unknown-fields'] ? 'any' : 'unspecified');
}

function valuePair(o: JsonValue | undefined, n: JsonValue | undefined): { old?: JsonValue; new?: JsonValue } {
  return { ...(o === undefined ? {} : { old: o }), ...(n === undefined ? {} : { new: n }) };
}

type Add = (change: Omit<SchemaChange, 'path'>) => void;

function diffDefault(o: JsonValue | undefined, n: JsonValue | undefined, add: Add): void {
  if (o === undefined && n === undefined) return;
  if (o !== undefined && n !== undefined && isDeepStrictEqual(o, n)) return;
  // The API server applies defaults when it reads objects from etcd too: any change changes existing objects.
  const message = o === undefined ? 'default added' : n === undefined ? 'default removed' : 'default changed';
  add({ severity: 'breaking', rule: 'default', message, ...valuePair(o, n) });
}

function diffEnum(o: JsonValue[] | undefined, n: JsonValue[] | undefined, add: Add): void {
  if (o === undefined && n === undefined) return;
  if (o === undefined && n) {
    add({ severity: 'breaking', rule: 'enum', message: 'enum constraint added', new: n });
    return;
  }
  if (o && n === undefined) {
    add({ severity: 'safe', rule: 'enum', message: 'enum constraint removed', old: o });
    return;
  }
  if (!o || !n) return;
  const has = (list: JsonValue[], v: JsonValue): boolean => list.some((x) => isDeepStrictEqual(x, v));
  const removed = o.filter((v) => !has(n, v));
  const added = n.filter((v) => !has(o, v));
  if (removed.length > 0) {
    add({
      severity: 'breaking',
      rule: 'enum',
      message: `enum values removed: ${removed.map((v) => JSON.stringify(v)).join(', ')}`,
      old: o,
      new: n,
    });
  } else if (added.length > 0) {
    add({
      severity: 'safe',
      rule: 'enum',
      message: `enum values added: ${added.map((v) => JSON.stringify(v)).join(', ')}`,
      old: o,
      new: n,
    });
  }
}

/**
 * A lower bound restricts more when added or raised, an upper bound when added or lowered; an
 * exclusive minimum or maximum counts as a slightly tighter bound of the same value.
 */
function diffBound(
  rule: BoundRule,
  o: JSONSchemaProps,
  n: JSONSchemaProps,
  kind: 'lower' | 'upper',
  add: Add,
): void {
  const before = o[rule];
  const after = n[rule];
  const exclusiveKey =
    rule === 'minimum' ? 'exclusiveMinimum' : rule === 'maximum' ? 'exclusiveMaximum' : undefined;
  const oldExclusive = exclusiveKey ? o[exclusiveKey] === true : false;
  const newExclusive = exclusiveKey ? n[exclusiveKey] === true : false;
  if (before === undefined && after === undefined) return;
  const shown = (v: number | undefined, exclusive: boolean): JsonValue | undefined =>
    v === undefined ? undefined : exclusive ? `${v} (exclusive)` : v;
  const pair = valuePair(shown(before, oldExclusive), shown(after, newExclusive));
  if (before === undefined) {
    add({ severity: 'breaking', rule, message: `${rule} added`, ...pair });
    return;
  }
  if (after === undefined) {
    add({ severity: 'safe', rule, message: `${rule} removed`, ...pair });
    return;
  }
  const tighter = kind === 'lower' ? after > before : after < before;
  const looser = kind === 'lower' ? after < before : after > before;
  if (tighter || (after === before && newExclusive && !oldExclusive)) {
    const verb = kind === 'lower' ? 'raised' : 'lowered';
    add({
      severity: 'breaking',
      rule,
      message: after === before ? `${rule} made exclusive` : `${rule} ${verb}`,
      ...pair,
    });
  } else if (looser || (after === before && oldExclusive && !newExclusive)) {
    const verb = kind === 'lower' ? 'lowered' : 'raised';
    add({
      severity: 'safe',
      rule,
      message: after === before ? `${rule} made inclusive` : `${rule} ${verb}`,
      ...pair,
    });
  }
}

/** A flag that accepts more when set: clearing it is breaking, setting it safe. */
function diffFlag(
  rule: 'nullable' | 'preserveUnknownFields',
  o: boolean,
  n: boolean,
  add: Add,
  cleared: string,
): void {
  if (o === n) return;
  if (o) add({ severity: 'breaking', rule, message: cleared, old: true, new: false });
  else add({ severity: 'safe', rule, message: `${rule} set`, old: false, new: true });
}

/** Patterns and formats: whether a new one rejects existing values depends on the data. */
function diffLoosely(
  rule: 'pattern' | 'format',
  o: string | undefined,
  n: string | undefined,
  add: Add,
): void {
  if (o === n) return;
  if (n === undefined) add({ severity: 'safe', rule, message: `${rule} removed`, ...valuePair(o, n) });
  else
    add({
      severity: 'risky',
      rule,
      message: o === undefined ? `${rule} added` : `${rule} changed`,
      ...valuePair(o, n),
    });
}

/**
 * CEL rules, matched by their expression. A new or changed rule is risky: the API server ratchets
 * validation (an unchanged field is not checked again), but the next update of a field an existing
 * object violates the rule with fails. A removed rule or a new message is safe.
 */
function diffCel(o: readonly ValidationRule[], n: readonly ValidationRule[], add: Add): void {
  const unmatchedOld = [...o];
  const unmatchedNew: ValidationRule[] = [];
  for (const rule of n) {
    const i = unmatchedOld.findIndex((r) => r.rule === rule.rule);
    if (i < 0) {
      unmatchedNew.push(rule);
      continue;
    }
    const [before] = unmatchedOld.splice(i, 1);
    if (before && !isDeepStrictEqual(withoutRule(before), withoutRule(rule))) {
      add({
        severity: 'safe',
        rule: 'cel',
        message: `CEL rule's message changed (${rule.rule})`,
        old: withoutRule(before),
        new: withoutRule(rule),
      });
    }
  }
  // Rules left on both sides pair up in order as changed rules.
  const paired = Math.min(unmatchedOld.length, unmatchedNew.length);
  for (let i = 0; i < paired; i++) {
    add({
      severity: 'risky',
      rule: 'cel',
      message: 'CEL rule changed',
      old: unmatchedOld[i]?.rule,
      new: unmatchedNew[i]?.rule,
    });
  }
  for (const rule of unmatchedNew.slice(paired))
    add({ severity: 'risky', rule: 'cel', message: 'CEL rule added', new: rule.rule });
  for (const rule of unmatchedOld.slice(paired))
    add({ severity: 'safe', rule: 'cel', message: 'CEL rule removed', old: rule.rule });
}

function withoutRule(rule: ValidationRule): { [key: string]: JsonValue } {
  const { rule: _, ...rest } = rule;
  return rest as { [key: string]: JsonValue };
}
