import { writeYamlDocument } from './yaml-writer.ts';
import { yamlPackage } from './yaml-package.ts';

/**
 * The one YAML emitter for generated manifests: block style, 2-space indent, no line folding,
 * keys in the order the value has them (callers sort where order has no meaning). Scalars are quoted
 * by YAML 1.1 rules (`"on"`, `"no"`, `"y"`, `"09:00"`): kubectl and client-go read YAML 1.1, where
 * those plain scalars would be booleans or numbers. The output is valid YAML 1.2 as well.
 */
export function toYaml(value: unknown): string {
  return writeYamlDocument(value) ?? withYamlPackage(value);
}

/** `toYaml(sortKeysDeep(value))` without the copy. */
export function toSortedYaml(value: unknown): string {
  return writeYamlDocument(value, { sortKeys: true }) ?? withYamlPackage(sortKeysDeep(value));
}

/** The `yaml` package, for what yaml-writer.ts does not write itself (it gives the same bytes). */
function withYamlPackage(value: unknown): string {
  return yamlPackage().stringify(value, {
    lineWidth: 0,
    indent: 2,
    aliasDuplicateObjects: false,
    version: '1.1',
    // No %YAML/%TAG lines are wanted; false also skips the whole-tree walk that looks for tags to declare.
    directives: false,
  });
}

/** Several documents in one file, separated by `---`. */
export function toYamlDocuments(values: readonly unknown[]): string {
  return values.map((v) => toYaml(v)).join('---\n');
}

/** Deep copy of a JSON-like value with object keys sorted; arrays keep their order. */
export function sortKeysDeep<T>(value: T): T {
  if (Array.isArray(value)) return value.map((v: unknown) => sortKeysDeep(v)) as T;
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value).sort())
      out[key] = sortKeysDeep((value as Record<string, unknown>)[key]);
    return out as T;
  }
  return value;
}
