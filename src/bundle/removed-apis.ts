/**
 * Kubernetes APIs that were served once and are removed, with the minor release that removed them
 * (https://kubernetes.io/docs/reference/using-api/deprecation-guide/). A bundle shipping one of
 * them fails to install on that release and later.
 */
interface RemovedApi {
  readonly groupVersion: string;
  /** The kinds removed from that group version; absent: every kind of it. */
  readonly kinds?: readonly string[];
  readonly removedIn: string;
  readonly use: string;
}

export const REMOVED_APIS: readonly RemovedApi[] = [
  { groupVersion: 'apiextensions.k8s.io/v1beta1', removedIn: '1.22', use: 'apiextensions.k8s.io/v1' },
  {
    groupVersion: 'admissionregistration.k8s.io/v1beta1',
    removedIn: '1.22',
    use: 'admissionregistration.k8s.io/v1',
  },
  { groupVersion: 'apiregistration.k8s.io/v1beta1', removedIn: '1.22', use: 'apiregistration.k8s.io/v1' },
  { groupVersion: 'authentication.k8s.io/v1beta1', removedIn: '1.22', use: 'authentication.k8s.io/v1' },
  { groupVersion: 'authorization.k8s.io/v1beta1', removedIn: '1.22', use: 'authorization.k8s.io/v1' },
  { groupVersion: 'certificates.k8s.io/v1beta1', removedIn: '1.22', use: 'certificates.k8s.io/v1' },
  { groupVersion: 'coordination.k8s.io/v1beta1', removedIn: '1.22', use: 'coordination.k8s.io/v1' },
  { groupVersion: 'extensions/v1beta1', kinds: ['Ingress'], removedIn: '1.22', use: 'networking.k8s.io/v1' },
  {
    groupVersion: 'networking.k8s.io/v1beta1',
    kinds: ['Ingress', 'IngressClass'],
    removedIn: '1.22',
    use: 'networking.k8s.io/v1',
  },
  {
    groupVersion: 'rbac.authorization.k8s.io/v1beta1',
    removedIn: '1.22',
    use: 'rbac.authorization.k8s.io/v1',
  },
  { groupVersion: 'scheduling.k8s.io/v1beta1', removedIn: '1.22', use: 'scheduling.k8s.io/v1' },
  {
    groupVersion: 'storage.k8s.io/v1beta1',
    kinds: ['CSIDriver', 'CSINode', 'StorageClass', 'VolumeAttachment'],
    removedIn: '1.22',
    use: 'storage.k8s.io/v1',
  },
  { groupVersion: 'batch/v1beta1', kinds: ['CronJob'], removedIn: '1.25', use: 'batch/v1' },
  { groupVersion: 'discovery.k8s.io/v1beta1', removedIn: '1.25', use: 'discovery.k8s.io/v1' },
  { groupVersion: 'events.k8s.io/v1beta1', removedIn: '1.25', use: 'events.k8s.io/v1' },
  { groupVersion: 'autoscaling/v2beta1', removedIn: '1.25', use: 'autoscaling/v2' },
  { groupVersion: 'policy/v1beta1', kinds: ['PodDisruptionBudget'], removedIn: '1.25', use: 'policy/v1' },
  {
    groupVersion: 'policy/v1beta1',
    kinds: ['PodSecurityPolicy'],
    removedIn: '1.25',
    use: 'Pod Security Admission',
  },
  { groupVersion: 'node.k8s.io/v1beta1', removedIn: '1.25', use: 'node.k8s.io/v1' },
  { groupVersion: 'autoscaling/v2beta2', removedIn: '1.26', use: 'autoscaling/v2' },
  {
    groupVersion: 'flowcontrol.apiserver.k8s.io/v1beta1',
    removedIn: '1.26',
    use: 'flowcontrol.apiserver.k8s.io/v1',
  },
  {
    groupVersion: 'storage.k8s.io/v1beta1',
    kinds: ['CSIStorageCapacity'],
    removedIn: '1.27',
    use: 'storage.k8s.io/v1',
  },
  {
    groupVersion: 'flowcontrol.apiserver.k8s.io/v1beta2',
    removedIn: '1.29',
    use: 'flowcontrol.apiserver.k8s.io/v1',
  },
  {
    groupVersion: 'flowcontrol.apiserver.k8s.io/v1beta3',
    removedIn: '1.32',
    use: 'flowcontrol.apiserver.k8s.io/v1',
  },
];

export interface RemovedUse {
  readonly removedIn: string;
  readonly use: string;
}

/** The removal of `apiVersion` `kind`, if Kubernetes removed it. */
export function removedApi(apiVersion: string, kind: string): RemovedUse | undefined {
  const hit = REMOVED_APIS.find(
    (r) => r.groupVersion === apiVersion && (r.kinds === undefined || r.kinds.includes(kind)),
  );
  return hit ? { removedIn: hit.removedIn, use: hit.use } : undefined;
}

/** `1.25.0`, `v1.25`, `1.25` → [1, 25]; undefined when unreadable. */
export function kubeMinor(version: string | undefined): [number, number] | undefined {
  const m = /^v?(\d+)\.(\d+)/.exec(version ?? '');
  return m ? [Number(m[1]), Number(m[2])] : undefined;
}

/** Whether Kubernetes `version` (e.g. a CSV's minKubeVersion) is at or after `removedIn`. */
export function atOrAfter(version: string | undefined, removedIn: string): boolean {
  const v = kubeMinor(version);
  const r = kubeMinor(removedIn);
  if (!v || !r) return false;
  return v[0] > r[0] || (v[0] === r[0] && v[1] >= r[1]);
}
