/**
 * Small pieces the shape checks of user files share (op-gen.yaml, a CRD for `generate types`, the
 * manager Deployment for `bundle`): telling a mapping from other values, and naming what was found
 * where something else was expected.
 */

/** A YAML mapping (a plain object), not a list, a scalar or null. */
export function isMapping(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** What a value is, for `must be X, found Y`: `nothing`, `null`, `a list`, `a mapping`, `string "x"`, `number 5`. */
export function describeValue(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  return typeof value === 'object' ? 'a mapping' : `${typeof value} ${JSON.stringify(value)}`;
}
