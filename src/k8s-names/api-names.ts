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

const KUBE_VERSION = /^v([1-9][0-9]*)(?:(alpha|beta)([1-9][0-9]*))?$/;

/**
 * Orders versions the way the API server does (apimachinery's CompareKubeAwareVersionStrings), from
 * the least to the most stable: alpha < beta < GA, then by major and minor number; a name not of the
 * Kubernetes form sorts before all of them, by name.
 */
export function compareApiVersions(a: string, b: string): number {
  const rank = (v: string): [number, number, number] | undefined => {
    const m = KUBE_VERSION.exec(v);
    if (!m) return undefined;
    const stability = m[2] === undefined ? 2 : m[2] === 'beta' ? 1 : 0;
    return [stability, Number(m[1]), Number(m[3] ?? 0)];
  };
  const ra = rank(a);
  const rb = rank(b);
  if (!ra || !rb) {
    if (ra) return 1;
    if (rb) return -1;
    return a < b ? -1 : a > b ? 1 : 0;
  }
  for (let i = 0; i < 3; i++) {
    const d = (ra[i] ?? 0) - (rb[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}
