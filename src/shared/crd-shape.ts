/**
 * The shape checks of a CRD read by `generate types` and `bundle`: every field the type writer reads has the JSON
 * type the apiextensions API gives it, so a hand-edited or truncated CRD is a list of messages naming
 * each wrong field (`spec.versions[0].schema.openAPIV3Schema.properties.spec.type: must be a string`),
 * never a crash in the writer.
 */

import { describeValue, isMapping } from './value-shape.ts';

type Check = (value: unknown) => boolean;

const isString: Check = (v) => typeof v === 'string';
const isBoolean: Check = (v) => typeof v === 'boolean';
const isNumber: Check = (v) => typeof v === 'number' && Number.isFinite(v);
const isArray: Check = (v) => Array.isArray(v);
const isStringArray: Check = (v) => Array.isArray(v) && v.every((x) => typeof x === 'string');

const SCALAR_FIELDS: Readonly<Record<string, readonly [Check, string]>> = {
  type: [isString, 'a string'],
  format: [isString, 'a string'],
  description: [isString, 'a string'],
  title: [isString, 'a string'],
  pattern: [isString, 'a string'],
  required: [isStringArray, 'a list of strings'],
  enum: [isArray, 'a list'],
  nullable: [isBoolean, 'true or false'],
  uniqueItems: [isBoolean, 'true or false'],
  exclusiveMinimum: [isBoolean, 'true or false'],
  exclusiveMaximum: [isBoolean, 'true or false'],
  minimum: [isNumber, 'a number'],
  maximum: [isNumber, 'a number'],
  multipleOf: [isNumber, 'a number'],
  minLength: [isNumber, 'a number'],
  maxLength: [isNumber, 'a number'],
  minItems: [isNumber, 'a number'],
  maxItems: [isNumber, 'a number'],
  minProperties: [isNumber, 'a number'],
  maxProperties: [isNumber, 'a number'],
  'x-kubernetes-preserve-unknown-fields': [isBoolean, 'true or false'],
  'x-kubernetes-int-or-string': [isBoolean, 'true or false'],
  'x-kubernetes-embedded-resource': [isBoolean, 'true or false'],
  'x-kubernetes-list-type': [isString, 'a string'],
  'x-kubernetes-map-type': [isString, 'a string'],
  'x-kubernetes-list-map-keys': [isStringArray, 'a list of strings'],
};

/** Every shape problem of one schema node and the nodes below it, each `path: what is wrong`. */
export function schemaShapeProblems(node: unknown, path: string): string[] {
  if (!isMapping(node)) return [`${path}: must be a schema (a mapping), found ${describeValue(node)}`];
  const problems: string[] = [];
  for (const [field, [check, want]] of Object.entries(SCALAR_FIELDS)) {
    const value = node[field];
    if (value !== undefined && !check(value))
      problems.push(`${path}.${field}: must be ${want}, found ${describeValue(value)}`);
  }
  const properties = node['properties'];
  if (properties !== undefined) {
    if (!isMapping(properties))
      problems.push(`${path}.properties: must be a mapping, found ${describeValue(properties)}`);
    else
      for (const [name, child] of Object.entries(properties))
        problems.push(...schemaShapeProblems(child, `${path}.properties.${name}`));
  }
  for (const field of ['items', 'not']) {
    if (node[field] !== undefined) problems.push(...schemaShapeProblems(node[field], `${path}.${field}`));
  }
  const additional = node['additionalProperties'];
  if (additional !== undefined && typeof additional !== 'boolean')
    problems.push(...schemaShapeProblems(additional, `${path}.additionalProperties`));
  for (const field of ['allOf', 'anyOf', 'oneOf']) {
    const list = node[field];
    if (list === undefined) continue;
    if (!Array.isArray(list))
      problems.push(`${path}.${field}: must be a list of schemas, found ${describeValue(list)}`);
    else list.forEach((child, i) => problems.push(...schemaShapeProblems(child, `${path}.${field}[${i}]`)));
  }
  return problems;
}

/** The shape problems of a CRD's spec (names, versions and their schemas), each `path: what is wrong`. */
export function crdShapeProblems(spec: unknown): string[] {
  if (!isMapping(spec)) return [`spec: must be a mapping, found ${describeValue(spec)}`];
  const problems: string[] = [];
  const names = spec['names'];
  if (!isString(spec['group']) || spec['group'] === '')
    problems.push('spec.group: must be a non-empty string');
  if (!isMapping(names)) problems.push(`spec.names: must be a mapping, found ${describeValue(names)}`);
  else
    for (const field of ['kind', 'plural', 'singular', 'listKind']) {
      const value = names[field];
      const required = field === 'kind' || field === 'plural';
      if ((required || value !== undefined) && (!isString(value) || value === ''))
        problems.push(`spec.names.${field}: must be a non-empty string, found ${describeValue(value)}`);
    }
  const versions = spec['versions'];
  if (!Array.isArray(versions)) {
    problems.push(`spec.versions: must be a list, found ${describeValue(versions)}`);
    return problems;
  }
  versions.forEach((version, i) => {
    const at = `spec.versions[${i}]`;
    if (!isMapping(version)) {
      problems.push(`${at}: must be a mapping, found ${describeValue(version)}`);
      return;
    }
    if (!isString(version['name']) || version['name'] === '')
      problems.push(`${at}.name: must be a non-empty string, found ${describeValue(version['name'])}`);
    for (const field of ['served', 'storage', 'deprecated']) {
      if (version[field] !== undefined && !isBoolean(version[field]))
        problems.push(`${at}.${field}: must be true or false, found ${describeValue(version[field])}`);
    }
    const schema = version['schema'];
    if (!isMapping(schema) || schema['openAPIV3Schema'] === undefined)
      problems.push(
        `${at}.schema.openAPIV3Schema: is required (apiextensions.k8s.io/v1 requires a schema in every version)`,
      );
    else problems.push(...schemaShapeProblems(schema['openAPIV3Schema'], `${at}.schema.openAPIV3Schema`));
  });
  return problems;
}
