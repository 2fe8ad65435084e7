import { ProblemsError, type Problem } from '../../shared/problems.ts';
import type { SourceLocation } from '../../markers/index.ts';
import type { JSONSchemaProps } from '../../api-types/json-schema.ts';
import { trimDescriptions } from './size-budget.ts';

type Origins = WeakMap<JSONSchemaProps, { path: string; location: SourceLocation }>;

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
  skip: WeakSet<JSONSchemaProps> = new WeakSet(),
): void {
  const problems: Problem[] = [];
  const fail = (node: JSONSchemaProps, path: string, problem: string, fix: string): void => {
    const where = origins.get(node)?.location ?? fallback;
    problems.push({ text: `${where.file}:${where.line}: ${path}: ${problem}. ${fix}` });
  };
  const walk = (node: JSONSchemaProps, path: string, inside: { root: boolean }): void => {
    if (skip.has(node)) return;
    const intOrString = node['x-kubernetes-int-or-string'] === true;
    const preserve = node['x-kubernetes-preserve-unknown-fields'] === true;
    if (!node.type && !intOrString && !preserve) {
      fail(
        node,
        path,
        'has no type (a structural schema needs one everywhere)',
        'Give the field a type, or add @preserveUnknownFields',
      );
    }
    if (node.properties && node.additionalProperties !== undefined) {
      fail(node, path, 'has both properties and additionalProperties', 'Move the map into its own field');
    }
    if (intOrString) {
      const types = (node.anyOf ?? []).map((s) => s.type).join(',');
      if (node.type || types !== 'integer,string') {
        fail(
          node,
          path,
          'is int-or-string but its schema is not anyOf [integer, string]',
          'Use the IntOrString helper type or @intOrString alone',
        );
      }
    }
    if (node['x-kubernetes-embedded-resource'] && node.type !== 'object') {
      fail(node, path, '@embeddedResource needs an object', 'Use it on an object type');
    }
    if (node.uniqueItems === true) {
      fail(
        node,
        path,
        'has uniqueItems: true, which the API server rejects in CRDs',
        'Use @listType set instead',
      );
    }
    if (node.type === 'array' && !node.items)
      fail(node, path, 'is an array without items', 'Give the array an element type');
    const listType = node['x-kubernetes-list-type'];
    const keys = node['x-kubernetes-list-map-keys'];
    if (keys && listType !== 'map')
      fail(node, path, '@listMapKey needs @listType map', 'Add @listType map or remove @listMapKey');
    if (listType === 'map') {
      const items = node.items;
      if (!keys || keys.length === 0)
        fail(node, path, '@listType map needs at least one @listMapKey', 'Add @listMapKey <field>');
      if (!items || items.type !== 'object' || !items.properties) {
        fail(
          node,
          path,
          '@listType map needs elements that are objects',
          'Use @listType atomic or set for lists of scalars',
        );
      }
      for (const key of keys ?? []) {
        const prop = items?.properties?.[key];
        if (!prop)
          fail(
            node,
            path,
            `@listMapKey ${key}: the elements have no field "${key}"`,
            'Name a field of the element type',
          );
        if (!(items?.required ?? []).includes(key) && prop?.default === undefined) {
          fail(
            node,
            path,
            `@listMapKey ${key}: the key field must be required or have a @default`,
            `Make ${key} required (remove the ?)`,
          );
        }
        if (prop && prop.type !== 'string' && prop.type !== 'integer' && prop.type !== 'boolean') {
          fail(
            node,
            path,
            `@listMapKey ${key}: a map key must be a string, integer or boolean`,
            'Use a scalar key field',
          );
        }
      }
    }
    if (listType === 'set' && node.items && (node.items.type === 'object' || node.items.type === 'array')) {
      fail(
        node,
        path,
        '@listType set needs scalar elements',
        'Use @listType map with @listMapKey for objects',
      );
    }
    if (node.default !== undefined) {
      const problem = valueProblem(node.default, node);
      if (problem)
        fail(
          node,
          path,
          `@default ${JSON.stringify(node.default)} ${problem}`,
          'Give a default that fits the type',
        );
    }
    for (const [name, child] of Object.entries(node.properties ?? {})) {
      if (inside.root && name === 'metadata') {
        const allowed = new Set(['name', 'generateName']);
        const extra = Object.keys(child.properties ?? {}).filter((k) => !allowed.has(k));
        if (child.type !== 'object' || extra.length > 0) {
          fail(
            child,
            `${path}.metadata`,
            'may only restrict name and generateName',
            'Remove other metadata fields from the schema',
          );
        }
        continue;
      }
      walk(child, `${path}.${name}`, { root: false });
    }
    if (node.items) walk(node.items, `${path}[]`, { root: false });
    if (node.additionalProperties && typeof node.additionalProperties === 'object') {
      walk(node.additionalProperties, `${path}.*`, { root: false });
    }
  };
  walk(root, kind, { root: true });
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
