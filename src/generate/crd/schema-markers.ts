import type { JSONSchemaProps } from '../../api-types/json-schema.ts';
import { markerError, type SourceLocation } from '../../markers/index.ts';
import { OpGenError } from '../../errors.ts';
import { ProblemsError, type Problem } from '../../shared/problems.ts';
import type { CrdMarker } from './markers.ts';

/**
 * What both front ends of the CRD walk (the type checker's, schema-builder.ts, and the syntax
 * reader's, syntax-schema.ts) do the same way: the schema of a format-tagged scalar and the
 * application of schema markers. One copy, so the two cannot drift.
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
): JSONSchemaProps {
  if (markers.length === 0) return schema;
  const out: JSONSchemaProps = { ...schema };
  const problems: Problem[] = [];
  for (const m of markers) {
    try {
      applyMarker(out, m, where, celRules);
    } catch (err) {
      if (!(err instanceof OpGenError)) throw err;
      problems.push({ text: err.message });
    }
  }
  if (problems.length > 0) throw new ProblemsError(problems);
  return out;
}

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
