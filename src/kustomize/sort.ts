import { gvkOf, nameOf, namespaceOf, type Resource } from './resource.ts';

/** kustomize's legacy order (the default of `kustomize build` and `kubectl kustomize`). */
const ORDER_FIRST = [
  'Namespace',
  'ResourceQuota',
  'StorageClass',
  'CustomResourceDefinition',
  'ServiceAccount',
  'PodSecurityPolicy',
  'Role',
  'ClusterRole',
  'RoleBinding',
  'ClusterRoleBinding',
  'ConfigMap',
  'Secret',
  'Endpoints',
  'Service',
  'LimitRange',
  'PriorityClass',
  'PersistentVolume',
  'PersistentVolumeClaim',
  'Deployment',
  'StatefulSet',
  'CronJob',
  'PodDisruptionBudget',
];
const ORDER_LAST = ['MutatingWebhookConfiguration', 'ValidatingWebhookConfiguration'];

function rank(kind: string): number {
  const first = ORDER_FIRST.indexOf(kind);
  if (first >= 0) return first - ORDER_FIRST.length;
  const last = ORDER_LAST.indexOf(kind);
  return last >= 0 ? last + 1 : 0;
}

function gvkString(r: Resource): string {
  const { group, version, kind } = gvkOf(r.object);
  return `${group || '~G'}_${version || '~V'}_${kind || '~K'}`;
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Sorts as kustomize's legacy sorter: kind rank, then group/version/kind, then namespace and name. */
export function legacySort(resources: readonly Resource[]): Resource[] {
  return [...resources].sort((a, b) => {
    const ga = gvkOf(a.object);
    const gb = gvkOf(b.object);
    const sa = gvkString(a);
    const sb = gvkString(b);
    if (sa !== sb) {
      const ra = rank(ga.kind);
      const rb = rank(gb.kind);
      if (ra !== rb) return ra - rb;
      if (ga.kind === 'Namespace' && gb.kind === 'Namespace' && (ga.group === '' || gb.group === ''))
        return compare(sb, sa);
      return compare(sa, sb);
    }
    const id = (r: Resource): string =>
      `${gvkString(r)}|${namespaceOf(r.object) || '~X'}|${nameOf(r.object) || '~N'}`;
    return compare(id(a), id(b));
  });
}
