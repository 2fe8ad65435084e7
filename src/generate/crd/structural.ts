import { ProblemsError, type Problem } from '../../shared/problems.ts';
import type { SourceLocation } from '../../markers/index.ts';
import type { JSONSchemaProps } from '../../api-types/json-schema.ts';
import { trimDescriptions } from './size-budget.ts';

type Origins = { get(node: JSONSchemaProps): { path: string; location: SourceLocation } | undefined };

/** What is wrong with a schema node and what to do about it. */
interface Violation {
  readonly problem: string;
  readonly fix: string;
}

/** One structural rule: the violations of one schema node (its children are checked on their own). */
type StructuralRule = (node: JSONSchemaProps) => readonly Violation[];

const violation = (problem: string, fix: string): Violation[] => [{ problem, fix }];

/** No violation (one shared array: the rules run on every node of every schema). */
const NONE: readonly Violation[] = [];

const hasType: StructuralRule = (node) =>
  !node.type &&
  node['x-kubernetes-int-or-string'] !== true &&
  node['x-kubernetes-preserve-unknown-fields'] !== true
    ? violation(
        'has no type (a structural schema needs one everywhere)',
        'Give the field a type, or add @preserveUnknownFields',
      )
    : NONE;

const propertiesOrMap: StructuralRule = (node) =>
  node.properties && node.additionalProperties !== undefined
    ? violation('has both properties and additionalProperties', 'Move the map into its own field')
    : NONE;

const intOrStringShape: StructuralRule = (node) => {
  if (node['x-kubernetes-int-or-string'] !== true) return NONE;
  const types = (node.anyOf ?? []).map((s) => s.type).join(',');
  return node.type || types !== 'integer,string'
    ? violation(
        'is int-or-string but its schema is not anyOf [integer, string]',
        'Use the IntOrString helper type or @intOrString alone',
      )
    : NONE;
};

const embeddedResourceObject: StructuralRule = (node) =>
  node['x-kubernetes-embedded-resource'] && node.type !== 'object'
    ? violation('@embeddedResource needs an object', 'Use it on an object type')
    : NONE;

const noUniqueItems: StructuralRule = (node) =>
  node.uniqueItems === true
    ? violation('has uniqueItems: true, which the API server rejects in CRDs', 'Use @listType set instead')
    : NONE;

const arrayItems: StructuralRule = (node) =>
  node.type === 'array' && !node.items
    ? violation('is an array without items', 'Give the array an element type')
    : NONE;

const mapKeysNeedMapList: StructuralRule = (node) =>
  node['x-kubernetes-list-map-keys'] && node['x-kubernetes-list-type'] !== 'map'
    ? violation('@listMapKey needs @listType map', 'Add @listType map or remove @listMapKey')
    : NONE;

const mapList: StructuralRule = (node) => {
  if (node['x-kubernetes-list-type'] !== 'map') return NONE;
  const keys = node['x-kubernetes-list-map-keys'];
  const items = node.items;
  const out: Violation[] = [];
  if (!keys || keys.length === 0)
    out.push(...violation('@listType map needs at least one @listMapKey', 'Add @listMapKey <field>'));
  if (!items || items.type !== 'object' || !items.properties)
    out.push(
      ...violation(
        '@listType map needs elements that are objects',
        'Use @listType atomic or set for lists of scalars',
      ),
    );
  for (const key of keys ?? []) {
    const prop = items?.properties?.[key];
    if (!prop)
      out.push(
        ...violation(
          `@listMapKey ${key}: the elements have no field "${key}"`,
          'Name a field of the element type',
        ),
      );
    if (!(items?.required ?? []).includes(key) && prop?.default === undefined)
      out.push(
        ...violation(
          `@listMapKey ${key}: the key field must be required or have a @default`,
          `Make ${key} required (remove the ?)`,
        ),
      );
    if (prop && prop.type !== 'string' && prop.type !== 'integer' && prop.type !== 'boolean')
      out.push(
        ...violation(
          `@listMapKey ${key}: a map key must be a string, integer or boolean`,
          'Use a scalar key field',
        ),
      );
  }
  return out;
};

const setListScalars: StructuralRule = (node) =>
  node['x-kubernetes-list-type'] === 'set' &&
  node.items &&
  (node.items.type === 'object' || node.items.type === 'array')
    ? violation('@listType set needs scalar elements', 'Use @listType map with @listMapKey for objects')
    : NONE;

const defaultFits: StructuralRule = (node) => {
  if (node.default === undefined) return NONE;
  const problem = valueProblem(node.default, node);
  return problem
    ? violation(`@default ${JSON.stringify(node.default)} ${problem}`, 'Give a default that fits the type')
    : NONE;
};

/** The rules every node is checked against, in the order their problems are reported. */
const STRUCTURAL_RULES: readonly StructuralRule[] = [
  hasType,
  propertiesOrMap,
  intOrStringShape,
  embeddedResourceObject,
  noUniqueItems,
  arrayItems,
  mapKeysNeedMapList,
  mapList,
  setListScalars,
  defaultFits,
];

/** The kind's `metadata` may only restrict name and generateName (the API server owns the rest). */
const rootMetadata: StructuralRule = (metadata) => {
  const allowed = new Set(['name', 'generateName']);
  const extra = Object.keys(metadata.properties ?? {}).filter((k) => !allowed.has(k));
  return metadata.type !== 'object' || extra.length > 0
    ? violation('may only restrict name and generateName', 'Remove other metadata fields from the schema')
    : NONE;
};

/**
 * The structural-schema rules of apiextensions.k8s.io/v1 (and a few API server rejections), checked
 * at generate time so the user gets file:line instead of an API server error at apply time.
 */
export function checkStructural(
  root: JSONSchemaProps,
  kind: string,
  origins: Origins,
  fallback: SourceLocation,
  /** Stand-ins for fields whose problem is already reported: not checked. */
  skip: { has(node: JSONSchemaProps): boolean } = new WeakSet(),
): void {
  const problems: Problem[] = [];
  const report = (node: JSONSchemaProps, path: string, violations: readonly Violation[]): void => {
    if (violations.length === 0) return;
    const where = origins.get(node)?.location ?? fallback;
    for (const v of violations)
      problems.push({ text: `${where.file}:${where.line}: ${path}: ${v.problem}. ${v.fix}` });
  };
  const walk = (node: JSONSchemaProps, path: string, isRoot: boolean): void => {
    if (skip.has(node)) return;
    // Indexed loops: a one-shot run does not optimise this code, where a `for...of` step allocates.
    for (let i = 0; i < STRUCTURAL_RULES.length; i++) report(node, path, STRUCTURAL_RULES[i]!(node));
    const properties = node.properties;
    if (properties)
      for (let i = 0, names = Object.keys(properties); i < names.length; i++) {
        const name = names[i]!;
        const child = properties[name] as JSONSchemaProps;
        if (isRoot && name === 'metadata') report(child, `${path}.metadata`, rootMetadata(child));
        else walk(child, `${path}.${name}`, false);
      }
    if (node.items) walk(node.items, `${path}[]`, false);
    if (node.additionalProperties && typeof node.additionalProperties === 'object')
      walk(node.additionalProperties, `${path}.*`, false);
  };
  walk(root, kind, true);
  if (problems.length > 0) throw new ProblemsError(problems);
}

/** controller-gen's --max-desc-len: cut descriptions at a word boundary and add "..."; 0 drops them. */
export function truncateDescriptions(node: JSONSchemaProps, maxLen: number): JSONSchemaProps {
  return trimDescriptions(node, maxLen);
}

/** Why `value` does not fit `schema`'s type or enum (undefined when it fits; shallow). */
function valueProblem(value: unknown, schema: JSONSchemaProps): string | undefined {
  if (value === null) return schema.nullable ? undefined : 'is null but the field is not nullable';
  if (schema['x-kubernetes-int-or-string']) {
    return typeof value === 'string' || Number.isInteger(value)
      ? undefined
      : 'is neither an integer nor a string';
  }
  const actual = Array.isArray(value) ? 'array' : typeof value === 'object' ? 'object' : typeof value;
  const fits =
    schema.type === undefined ||
    (schema.type === 'integer' && Number.isInteger(value)) ||
    (schema.type === 'number' && actual === 'number') ||
    schema.type === actual;
  if (!fits)
    return `is ${actual === 'number' && schema.type === 'integer' ? 'not an integer' : `a ${actual}`}, the field is ${schema.type}`;
  if (schema.enum && !schema.enum.some((e) => JSON.stringify(e) === JSON.stringify(value))) {
    return `is not one of ${schema.enum.map((e) => JSON.stringify(e)).join(', ')}`;
  }
  return undefined;
}
