/**
 * The spellings of an API's names that op-gen accepts from `create api` and reads back from
 * op-gen.yaml: a kind is PascalCase (it names a TypeScript type and files), a version is Kubernetes'
 * v<N>[alpha|beta<M>] form (it orders versions and names folders).
 */

const PASCAL_CASE = /^[A-Z][a-zA-Z0-9]*$/;
const API_VERSION = /^v[1-9][0-9]*((alpha|beta)[1-9][0-9]*)?$/;

/** `Memcached`, `MemcachedBackup`: an uppercase letter, then letters and digits, at most 63 characters. */
export function isKindName(kind: string): boolean {
  return kind.length <= 63 && PASCAL_CASE.test(kind);
}

/** `v1`, `v1alpha1`, `v2beta3`. */
export function isApiVersion(version: string): boolean {
  return API_VERSION.test(version);
}
