import type { JSONSchemaProps } from '../../api-types/json-schema.ts';
import { markerError, type SourceLocation } from '../../markers/index.ts';
import { OpGenError } from '../../errors.ts';
import { ProblemsError, type Problem } from '../../shared/problems.ts';
import type { CrdMarker } from './markers.ts';
import { constraintProblems, KNOWN_FORMATS, nearestFormat, short, valueProblems } from './schema-checks.ts';

/**
 * The schema of a format-tagged scalar and the application of schema markers, for the schema
 * builder (schema-builder.ts, kind-schema.ts).
 */

/** Kubernetes' resource.Quantity pattern, as controller-gen emits it. */
export const QUANTITY_PATTERN =
  '^(\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))))?$';

/** The type path and source line of a schema node (for errors). */
export interface Where {
  readonly path: string;
  readonly location: SourceLocation;
}

/** A CEL rule to check once the walk is done (the checker is loaded lazily). */
export interface PendingCelRule {
  readonly rule: string;
  readonly self: JSONSchemaProps;
  readonly location: SourceLocation;
  readonly path: string;
}

const SCALAR_TYPES: Record<string, readonly string[]> = {
  minimum: ['integer', 'number'],
  maximum: ['integer', 'number'],
  exclusiveMinimum: ['integer', 'number'],
  exclusiveMaximum: ['integer', 'number'],
  multipleOf: ['integer', 'number'],
  minLength: ['string'],
  maxLength: ['string'],
  pattern: ['string'],
  minItems: ['array'],
  maxItems: ['array'],
  uniqueItems: ['array'],
  listType: ['array'],
  listMapKey: ['array'],
  minProperties: ['object'],
  maxProperties: ['object'],
  mapType: ['object'],
  structType: ['object'],
};

/** The schema of a scalar tagged `SchemaFormatTag<format>` (int32, Quantity, Time, ...). */
export function formatSchema(format: string): JSONSchemaProps {
  switch (format) {
    case 'int32':
      return { type: 'integer', format: 'int32' };
    case 'int64':
      return { type: 'integer', format: 'int64' };
    case 'double':
      return { type: 'number', format: 'double' };
    case 'date-time':
      return { type: 'string', format: 'date-time' };
    case 'duration':
      return { type: 'string' };
    case 'quantity':
      return {
        anyOf: [{ type: 'integer' }, { type: 'string' }],
        pattern: QUANTITY_PATTERN,
        'x-kubernetes-int-or-string': true,
      };
    case 'int-or-string':
      return { anyOf: [{ type: 'integer' }, { type: 'string' }], 'x-kubernetes-int-or-string': true };
    default:
      return { type: 'string', format };
  }
}

/**
 * Applies schema markers (in order) to a copy of `schema`; the CEL rules they add go to `celRules`.
 * Every marker that does not fit is reported (ProblemsError) after the others were tried.
 */
export function applySchemaMarkers(
  schema: JSONSchemaProps,
  markers: readonly CrdMarker[],
  where: Where,
  celRules: PendingCelRule[],
  /** Where warnings go (an unknown format); both front ends pass theirs. */
  warnings?: string[],
): JSONSchemaProps {
  if (markers.length === 0) return schema;
  const out: JSONSchemaProps = { ...schema };
  const problems: Problem[] = [];
  /** Per node a marker changed (the field's or its items'), the last marker that set each keyword. */
  const setBy = new Map<JSONSchemaProps | 'items', Map<string, CrdMarker>>();
  for (const m of markers) {
    const key = m.items ? 'items' : out;
    const before = m.items ? out.items : out;
    const snapshot = before ? { ...before } : {};
    try {
      applyMarker(out, m, where, celRules);
    } catch (err) {
      if (!(err instanceof OpGenError)) throw err;
      problems.push({ text: err.message });
      continue;
    }
    const after: JSONSchemaProps = (m.items ? out.items : out) ?? {};
    const changed = setBy.get(key) ?? new Map<string, CrdMarker>();
    setBy.set(key, changed);
    // The keywords before, then those the marker added (indexed loops, no key set: this runs per
    // marker in a one-shot run that does not optimise it).
    const was = snapshot as Record<string, unknown>;
    const now = after as Record<string, unknown>;
    const beforeKeys = Object.keys(was);
    for (let i = 0; i < beforeKeys.length; i++) noteChange(changed, beforeKeys[i]!, was, now, m);
    const afterKeys = Object.keys(now);
    for (let i = 0; i < afterKeys.length; i++)
      if (!Object.hasOwn(was, afterKeys[i]!)) noteChange(changed, afterKeys[i]!, was, now, m);
  }
  if (problems.length === 0) {
    for (const [key, changed] of setBy) {
      const node = key === 'items' ? out.items : key;
      if (node) problems.push(...nodeProblems(node, changed, where, key === 'items', warnings));
    }
  }
  if (problems.length > 0) throw new ProblemsError(problems);
  return out;
}

/** Records `m` as the marker that set `key` when the keyword's value differs before and after it. */
function noteChange(
  changed: Map<string, CrdMarker>,
  key: string,
  before: Record<string, unknown>,
  after: Record<string, unknown>,
  m: CrdMarker,
): void {
  const a = before[key];
  const b = after[key];
  if (a !== b && JSON.stringify(a) !== JSON.stringify(b)) changed.set(key, m);
}

/** Bounds, patterns, enum values and the default of one node, checked once its markers are applied. */
function nodeProblems(
  node: JSONSchemaProps,
  changed: ReadonlyMap<string, CrdMarker>,
  where: Where,
  items: boolean,
  warnings: string[] | undefined,
): Problem[] {
  const out: Problem[] = [];
  const path = `${where.path}${items ? '[]' : ''}`;
  const blame = (...keywords: string[]): CrdMarker | undefined => {
    let last: CrdMarker | undefined;
    for (const k of keywords) {
      const m = changed.get(k);
      if (m && (!last || m.location.line >= last.location.line)) last = m;
    }
    return last;
  };
  const report = (m: CrdMarker, message: string, fix: string): void => {
    out.push({ text: markerError(m.location, m.tag, `${path}: ${message}`, fix).message });
  };
  for (const p of constraintProblems(node)) {
    const partner = PARTNERS[p.keyword] ?? [];
    const m = blame(p.keyword, ...partner);
    if (m) report(m, p.message, p.fix);
  }
  if (out.length > 0) return out;
  const constraints = [...changed.keys()].filter(
    (k) => k !== 'description' && k !== 'x-kubernetes-validations',
  );
  if (node.enum && constraints.length > 0) {
    const m = blame('enum', ...constraints);
    const { enum: _, default: __, ...rest } = node;
    for (const value of node.enum) {
      const problems = valueProblems(value, rest);
      if (m && problems.length > 0)
        report(
          m,
          `the enum value ${JSON.stringify(value)} can never be set: ${problems.join('; ')}`,
          'Remove the value or loosen the other constraints',
        );
    }
  }
  if (node.default !== undefined && constraints.length > 0) {
    const m = changed.get('default') ?? blame(...constraints);
    // The API server validates a default against the field's schema when the CRD is created.
    const problems = valueProblems(node.default, node);
    if (m && problems.length > 0) {
      const value = short(node.default);
      const said = problems.map((p) => (p.startsWith(value) ? p : `${value}: ${p}`));
      out.push({
        text: `${m.location.file}:${m.location.line}: ${path}: @default ${said.join('; ')}. Give a default that fits the type`,
      });
    }
  }
  const format = changed.get('format');
  if (format && typeof node.format === 'string' && !KNOWN_FORMATS.includes(node.format)) {
    warnings?.push(
      `${format.location.file}:${format.location.line}: @${format.tag}: ${path}: unknown format ${JSON.stringify(node.format)}: the API server ignores it (did you mean ${nearestFormat(node.format)}?)`,
    );
  }
  return out;
}

/** The keywords a constraint problem involves besides its own (either marker may be the one to fix). */
const PARTNERS: Readonly<Record<string, readonly string[]>> = {
  maximum: ['minimum', 'exclusiveMinimum', 'exclusiveMaximum'],
  maxLength: ['minLength'],
  maxItems: ['minItems'],
  maxProperties: ['minProperties'],
};

function applyMarker(out: JSONSchemaProps, m: CrdMarker, where: Where, celRules: PendingCelRule[]): void {
  const effect = m.spec.effect;
  if (!effect || effect.on !== 'schema') return;
  let target = out;
  if (m.items) {
    if (!out.items) {
      throw markerError(
        m.location,
        m.tag,
        `${where.path} is not an array`,
        `Use @${m.spec.name} without items:`,
      );
    }
    out.items = { ...out.items };
    target = out.items;
  }
  const allowed = SCALAR_TYPES[m.spec.name];
  if (allowed && !target['x-kubernetes-int-or-string'] && !(target.type && allowed.includes(target.type))) {
    throw markerError(
      m.location,
      m.tag,
      `applies to ${allowed.join(' or ')} values, but ${where.path}${m.items ? '[]' : ''} is ${target.type ?? 'untyped'}`,
      'Remove the marker or change the type',
    );
  }
  if (target['x-kubernetes-validations'])
    target['x-kubernetes-validations'] = [...target['x-kubernetes-validations']];
  if (target['x-kubernetes-list-map-keys'])
    target['x-kubernetes-list-map-keys'] = [...target['x-kubernetes-list-map-keys']];
  const before = target['x-kubernetes-validations']?.length ?? 0;
  effect.apply(target, m);
  const rules = target['x-kubernetes-validations'] ?? [];
  for (let i = before; i < rules.length; i++) {
    const rule = rules[i];
    if (rule) celRules.push({ rule: rule.rule, self: target, location: m.location, path: where.path });
  }
}
