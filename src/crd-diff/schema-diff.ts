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

/**
 * The keywords of one schema node judged by a rule (description, default, enum, bounds, pattern,
 * format, nullable, CEL, list/map types, compositions, ...), and every other keyword whose value
 * changed as unhandled: never silent.
 */
function diffKeywords(o: JSONSchemaProps, n: JSONSchemaProps, add: Add): void {
  if ((o.description ?? '') !== (n.description ?? '')) {
    add({
      severity: 'safe',
      rule: 'description',
      message: 'description changed',
      ...valuePair(o.description, n.description),
    });
  }
  diffDefault(o.default, n.default, add);
  // A keyword of the wrong shape (a broken file) is compared as a value, never walked into.
  if (isListOrAbsent(o.enum) && isListOrAbsent(n.enum)) diffEnum(o.enum, n.enum, add);
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
  const oldRules = o['x-kubernetes-validations'];
  const newRules = n['x-kubernetes-validations'];
  if (isListOrAbsent(oldRules) && isListOrAbsent(newRules)) diffCel(oldRules ?? [], newRules ?? [], add);
  diffDocs(o, n, add);
  diffMultipleOf(o.multipleOf, n.multipleOf, add);
  if ((o.uniqueItems === true) !== (n.uniqueItems === true)) {
    const now = n.uniqueItems === true;
    add({
      severity: now ? 'breaking' : 'safe',
      rule: 'uniqueItems',
      message: now ? 'items must be unique now' : 'items no longer need to be unique',
      old: !now,
      new: now,
    });
  }
  diffListType(o, n, add);
  diffMapType(o, n, add);
  if (o['x-kubernetes-embedded-resource'] !== n['x-kubernetes-embedded-resource']) {
    const now = n['x-kubernetes-embedded-resource'] === true;
    add({
      severity: now ? 'breaking' : 'risky',
      rule: 'embeddedResource',
      message: now
        ? 'became an embedded resource: objects without apiVersion and kind are refused, metadata is validated'
        : 'no longer an embedded resource: apiVersion, kind and metadata are pruned unless declared',
      old: o['x-kubernetes-embedded-resource'] === true,
      new: now,
    });
  }
  for (const rule of COMPOSITIONS) diffComposition(rule, o[rule], n[rule], add);
  // Never silent: a keyword no rule judges whose value changed, or a value of a shape its rule
  // does not read (a broken file), is reported as unhandled.
  for (const key of new Set([...Object.keys(o), ...Object.keys(n)])) {
    if (WALKED.has(key)) continue;
    const before = (o as Record<string, unknown>)[key];
    const after = (n as Record<string, unknown>)[key];
    const shape = KEYWORD_SHAPES[key];
    if (shape !== undefined ? shape(before) && shape(after) : isDeepStrictEqual(before, after)) continue;
    if (shape === undefined || !isDeepStrictEqual(before, after)) add(unhandled(key, before, after));
  }
}

/** Fields that became required (breaking) or optional (safe), at the field's path. */
function diffRequired(o: JSONSchemaProps, n: JSONSchemaProps, path: string, out: SchemaChange[]): void {
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
}

/** Properties removed or added, and the walk into properties, items and additionalProperties. */
function walkChildren(o: JSONSchemaProps, n: JSONSchemaProps, path: string, out: SchemaChange[]): void {
  const newRequired = new Set(n.required ?? []);
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
  // A list's item schema given or taken away (no structural CRD has a list without one): never silent.
  else if (o.items || n.items) out.push({ path, ...unhandled('items', o.items, n.items) });
  const oldValues = typeof o.additionalProperties === 'object' ? o.additionalProperties : undefined;
  const newValues = typeof n.additionalProperties === 'object' ? n.additionalProperties : undefined;
  if (oldValues && newValues) walk(oldValues, newValues, `${path === '.' ? '' : path}.*`, out);
  else if (!isDeepStrictEqual(o.additionalProperties, n.additionalProperties))
    out.push({
      path,
      ...unhandled(
        'additionalProperties',
        o.additionalProperties as JsonValue | undefined,
        n.additionalProperties as JsonValue | undefined,
      ),
    });
}

function walk(o: JSONSchemaProps, n: JSONSchemaProps, path: string, out: SchemaChange[]): void {
  const add: Add = (change) => {
    out.push({ path, ...change });
  };
  if (typeOf(o) !== typeOf(n)) {
    // Everything below is a different field now: its type change is the finding.
    add({ severity: 'breaking', rule: 'type', message: 'type changed', old: typeOf(o), new: typeOf(n) });
    return;
  }
  diffKeywords(o, n, add);
  diffRequired(o, n, path, out);
  walkChildren(o, n, path, out);
}

/** What the walk descends into (their changes are findings at the fields below). */
const WALKED: ReadonlySet<string> = new Set(['required', 'properties', 'items', 'additionalProperties']);

type Shape = (value: unknown) => boolean;
const optional =
  (check: (value: unknown) => boolean): Shape =>
  (value) =>
    value === undefined || check(value);
const isBoolean = optional((v) => typeof v === 'boolean');
const isNumber = optional((v) => typeof v === 'number');
const isString = optional((v) => typeof v === 'string');
const isList = optional((v) => Array.isArray(v));
const isObject = optional((v) => typeof v === 'object' && v !== null && !Array.isArray(v));
const anything: Shape = () => true;

/**
 * The keywords a rule above judges, with the shape of value the rule reads. Any other keyword whose
 * value changed, and any of these holding a value of another shape, is reported as `unhandled`.
 */
const KEYWORD_SHAPES: Readonly<Record<string, Shape>> = {
  type: isString,
  'x-kubernetes-int-or-string': isBoolean,
  description: isString,
  title: isString,
  example: anything,
  externalDocs: isObject,
  default: anything,
  enum: isList,
  ...Object.fromEntries([...LOWER_BOUNDS, ...UPPER_BOUNDS, 'multipleOf'].map((k) => [k, isNumber])),
  exclusiveMinimum: isBoolean,
  exclusiveMaximum: isBoolean,
  uniqueItems: isBoolean,
  pattern: isString,
  format: isString,
  nullable: isBoolean,
  'x-kubernetes-preserve-unknown-fields': isBoolean,
  'x-kubernetes-validations': isList,
  'x-kubernetes-list-type': isString,
  'x-kubernetes-list-map-keys': isList,
  'x-kubernetes-map-type': isString,
  'x-kubernetes-embedded-resource': isBoolean,
  oneOf: isList,
  anyOf: isList,
  allOf: isList,
  not: isObject,
};

const COMPOSITIONS = ['oneOf', 'anyOf', 'allOf', 'not'] as const;

/** A difference no rule judges: risky, named by its keyword, with both values. */
export function unhandled(key: string, o: unknown, n: unknown): Omit<SchemaChange, 'path'> {
  return {
    severity: 'risky',
    rule: 'unhandled',
    message: `${key} changed (no rule judges it: check by hand)`,
    // Values read from YAML or JSON: JSON values by construction.
    ...valuePair(o as JsonValue | undefined, n as JsonValue | undefined),
  };
}

function isListOrAbsent(value: unknown): value is unknown[] | undefined {
  return value === undefined || Array.isArray(value);
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

/** Title, example and external docs change no validation: safe, like the description. */
function diffDocs(o: JSONSchemaProps, n: JSONSchemaProps, add: Add): void {
  for (const key of ['title', 'example', 'externalDocs'] as const) {
    const before = o[key] as JsonValue | undefined;
    const after = n[key] as JsonValue | undefined;
    if (before === undefined && after === undefined) continue;
    if (before !== undefined && after !== undefined && isDeepStrictEqual(before, after)) continue;
    add({ severity: 'safe', rule: 'description', message: `${key} changed`, ...valuePair(before, after) });
  }
}

/**
 * `multipleOf`: added restricts; removed loosens; changed is safe only when every multiple of the old
 * value is a multiple of the new one (the new value divides the old).
 */
function diffMultipleOf(o: number | undefined, n: number | undefined, add: Add): void {
  if (o === n) return;
  const pair = valuePair(o, n);
  if (n === undefined) add({ severity: 'safe', rule: 'multipleOf', message: 'multipleOf removed', ...pair });
  else if (o === undefined)
    add({ severity: 'breaking', rule: 'multipleOf', message: 'multipleOf added', ...pair });
  else if (Number.isInteger(o / n))
    add({
      severity: 'safe',
      rule: 'multipleOf',
      message: 'multipleOf loosened (divides the old one)',
      ...pair,
    });
  else
    add({
      severity: 'breaking',
      rule: 'multipleOf',
      message: 'multipleOf changed (existing multiples of the old value are refused)',
      ...pair,
    });
}

/**
 * `x-kubernetes-list-type` (absent is `atomic`): a list that becomes a set or a map refuses objects
 * whose items repeat and is merged item by item by server-side apply, so that is breaking; one that
 * becomes atomic accepts everything it did but server-side apply now replaces it whole (risky). The
 * keys of a list-map changing changes which items count as the same: breaking.
 */
function diffListType(o: JSONSchemaProps, n: JSONSchemaProps, add: Add): void {
  const before = o['x-kubernetes-list-type'] ?? 'atomic';
  const after = n['x-kubernetes-list-type'] ?? 'atomic';
  if (before !== after) {
    add({
      severity: after === 'atomic' ? 'risky' : 'breaking',
      rule: 'listType',
      message:
        after === 'atomic'
          ? 'list became atomic: server-side apply replaces it whole instead of merging items'
          : `list became a ${after}: objects whose items repeat${after === 'map' ? ' a key' : ''} are refused, server-side apply merges items`,
      old: before,
      new: after,
    });
    return;
  }
  if (after !== 'map') return;
  const keysBefore = [...(o['x-kubernetes-list-map-keys'] ?? [])].sort();
  const keysAfter = [...(n['x-kubernetes-list-map-keys'] ?? [])].sort();
  if (!isDeepStrictEqual(keysBefore, keysAfter)) {
    add({
      severity: 'breaking',
      rule: 'listMapKeys',
      message:
        'list-map keys changed: which items count as the same changes (duplicates refused, merges differ)',
      old: o['x-kubernetes-list-map-keys'] ?? [],
      new: n['x-kubernetes-list-map-keys'] ?? [],
    });
  }
}

/** `x-kubernetes-map-type` (absent is `granular`): changes how server-side apply merges, not what validates. */
function diffMapType(o: JSONSchemaProps, n: JSONSchemaProps, add: Add): void {
  const before = o['x-kubernetes-map-type'];
  const after = n['x-kubernetes-map-type'];
  if ((before ?? 'granular') === (after ?? 'granular')) return;
  add({
    severity: 'risky',
    rule: 'mapType',
    message:
      after === 'atomic'
        ? 'map became atomic: server-side apply replaces it whole instead of merging keys'
        : 'map became granular: server-side apply merges it key by key',
    old: before ?? 'granular',
    new: after ?? 'granular',
  });
}

/**
 * `oneOf`, `anyOf`, `allOf`, `not`: added restricts what validates (breaking), removed loosens
 * (safe), changed may refuse existing objects depending on the data (risky).
 */
function diffComposition(
  rule: (typeof COMPOSITIONS)[number],
  o: JSONSchemaProps[] | JSONSchemaProps | undefined,
  n: JSONSchemaProps[] | JSONSchemaProps | undefined,
  add: Add,
): void {
  if (o === undefined && n === undefined) return;
  if (o !== undefined && n !== undefined && isDeepStrictEqual(o, n)) return;
  const pair = valuePair(o as JsonValue | undefined, n as JsonValue | undefined);
  if (o === undefined) add({ severity: 'breaking', rule, message: `${rule} added`, ...pair });
  else if (n === undefined) add({ severity: 'safe', rule, message: `${rule} removed`, ...pair });
  else add({ severity: 'risky', rule, message: `${rule} changed`, ...pair });
}
