/**
 * JSON values as parsed YAML manifests, admission requests and API objects hold them, shared by
 * kustomize/ and the runtime's webhooks (json-patch.ts).
 */
export type Json = string | number | boolean | null | Json[] | JsonObject;
/** The same type under the name the webhooks, markers and api-types use. */
export type JsonValue = Json;
export interface JsonObject {
  [key: string]: Json;
}

export const isObject = (v: unknown): v is JsonObject =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

export function deepEqual(a: Json | undefined, b: Json | undefined): boolean {
  if (a === b) return true;
  if (Array.isArray(a) && Array.isArray(b))
    return a.length === b.length && a.every((x, i) => deepEqual(x, b[i]));
  if (isObject(a) && isObject(b)) {
    const ka = Object.keys(a);
    return ka.length === Object.keys(b).length && ka.every((k) => k in b && deepEqual(a[k], b[k]));
  }
  return false;
}
