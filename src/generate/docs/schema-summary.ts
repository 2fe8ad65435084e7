import type { JSONSchemaProps } from '../../api-types/json-schema.ts';
import { code } from './markdown.ts';

/** An object type with fields of its own: it gets a section of the reference, and links point to it. */
export function hasSection(s: JSONSchemaProps): boolean {
  return s.type === 'object' && Object.keys(s.properties ?? {}).length > 0;
}

/**
 * The type of a field as a reader writes it: `string`, `integer (int32)`, `[]string`,
 * `map[string]string`, `int-or-string`; an object with fields is a link made by `link`.
 */
export function typeText(s: JSONSchemaProps, link: (s: JSONSchemaProps) => string | undefined): string {
  if (s['x-kubernetes-int-or-string']) return 'int-or-string';
  if (s['x-kubernetes-embedded-resource']) return 'object (a Kubernetes object)';
  if (s.type === 'array') return `[]${s.items ? typeText(s.items, link) : 'any'}`;
  if (s.type === 'object') {
    const linked = link(s);
    if (linked !== undefined) return linked;
    if (typeof s.additionalProperties === 'object')
      return `map[string]${typeText(s.additionalProperties, link)}`;
    if (s['x-kubernetes-preserve-unknown-fields']) return 'object (any fields)';
    return 'object';
  }
  if (s.type === undefined) return 'any';
  return s.format ? `${s.type} (${s.format})` : s.type;
}

const show = (v: unknown): string => code(JSON.stringify(v));

/** The constraints of a field, one short item each, in a fixed order. */
export function validationItems(s: JSONSchemaProps): string[] {
  const items: string[] = [];
  if (s.enum) items.push(`one of ${s.enum.map(show).join(', ')}`);
  if (s.minimum !== undefined) items.push(`${s.exclusiveMinimum ? '>' : '>='} ${s.minimum}`);
  if (s.maximum !== undefined) items.push(`${s.exclusiveMaximum ? '<' : '<='} ${s.maximum}`);
  if (s.multipleOf !== undefined) items.push(`multiple of ${s.multipleOf}`);
  if (s.minLength !== undefined) items.push(`min length ${s.minLength}`);
  if (s.maxLength !== undefined) items.push(`max length ${s.maxLength}`);
  if (s.pattern !== undefined) items.push(`pattern ${code(s.pattern)}`);
  if (s.minItems !== undefined) items.push(`min items ${s.minItems}`);
  if (s.maxItems !== undefined) items.push(`max items ${s.maxItems}`);
  if (s.uniqueItems) items.push('unique items');
  const listType = s['x-kubernetes-list-type'];
  if (listType === 'map')
    items.push(`list map, keys ${(s['x-kubernetes-list-map-keys'] ?? []).map(code).join(', ')}`);
  else if (listType) items.push(`list type ${listType}`);
  if (s.minProperties !== undefined) items.push(`min properties ${s.minProperties}`);
  if (s.maxProperties !== undefined) items.push(`max properties ${s.maxProperties}`);
  if (s['x-kubernetes-map-type'] === 'atomic') items.push('replaced as a whole');
  if (s.nullable) items.push('nullable');
  if (s['x-kubernetes-preserve-unknown-fields'] && s.type === 'object' && s.properties)
    items.push('unknown fields kept');
  // Array items' own constraints are the items' (`@items:minimum`).
  if (s.type === 'array' && s.items && !hasSection(s.items)) {
    const inner = validationItems(s.items);
    if (inner.length > 0) items.push(`each item: ${inner.join(', ')}`);
  }
  for (const rule of s['x-kubernetes-validations'] ?? []) items.push(ruleText(rule));
  return items;
}

/** A CEL rule as its message says it (the expression when there is no message). */
export function ruleText(rule: NonNullable<JSONSchemaProps['x-kubernetes-validations']>[number]): string {
  if (rule.message) return `rule: ${rule.message}`;
  if (rule.messageExpression)
    return `rule: ${code(rule.rule)} (message computed by ${code(rule.messageExpression)})`;
  return `rule: ${code(rule.rule)}`;
}
