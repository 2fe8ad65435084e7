/**
 * Whether the live object already holds every value of the desired one: a desired field must be
 * present in `actual` with the same value; fields only in `actual` (server defaults, other managers'
 * fields, status) are ignored. Objects compare field by field, lists of objects element by element
 * (each desired element must match one live element, so server-added list items and defaulted
 * fields inside items pass), lists of scalars and scalars exactly. `null`/`undefined` desired values
 * and empty desired objects ask for nothing.
 *
 * Values the API server normalizes (a quantity `1000m` read back as `1`) never match: write them in
 * their canonical form, or every reconcile applies again (harmless, but a write).
 */
export function containsDesired(desired: unknown, actual: unknown): boolean {
  if (desired === undefined || desired === null) return true;
  if (Array.isArray(desired)) {
    if (!Array.isArray(actual)) return desired.length === 0 && actual === undefined;
    if (desired.every(isPlainObject)) {
      if (desired.length > actual.length) return false;
      return desired.every((d) => actual.some((a) => containsDesired(d, a)));
    }
    return desired.length === actual.length && desired.every((d, i) => containsDesired(d, actual[i]));
  }
  if (isPlainObject(desired)) {
    if (actual === undefined || actual === null) return Object.values(desired).every(asksNothing);
    if (!isPlainObject(actual)) return false;
    return Object.entries(desired).every(([k, v]) => containsDesired(v, actual[k]));
  }
  return desired === actual;
}

function asksNothing(v: unknown): boolean {
  if (v === undefined || v === null) return true;
  if (isPlainObject(v)) return Object.values(v).every(asksNothing);
  return false;
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
