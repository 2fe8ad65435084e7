/**
 * Kubernetes APIs that were served once and are removed, with the minor release that removed them. A
 * bundle shipping one of them fails to install on that release and later. Checked up to v1.37.
 *
 * Up to v1.32: Kubernetes' deprecation guide (kubernetes.io/docs/reference/using-api/deprecation-guide/),
 * whose newest section is v1.32 (flowcontrol.apiserver.k8s.io/v1beta3): no API served by default was
 * removed in v1.33 to v1.37.
 *
 * v1.33 to v1.37: beta APIs that were never served by default (only with kube-apiserver
 * `--runtime-config`) and have stopped being served, from k8s.io/api v0.37.2's
 * `APILifecycleRemoved` (zz_generated.prerelease-lifecycle.go) and the CHANGELOGs of v1.35 to v1.37,
 * confirmed on the real kube-apiserver v1.37.2 with `--runtime-config=api/all=true` (none of them is
 * served) and v1.35.4 (those removed in v1.37 still are); test/integration/bundle/removed-apis.test.ts
 * checks this table against the running release. Alpha APIs (e.g. storage.k8s.io/v1alpha1
 * VolumeAttributesClass, gone in v1.35) are not listed: they can go in any release without deprecation.
 *
 * Group versions that came back with new kinds after a removal (admissionregistration.k8s.io/v1beta1:
 * MutatingAdmissionPolicy; authentication.k8s.io/v1beta1: SelfSubjectReview until v1.33;
 * certificates.k8s.io/v1beta1: ClusterTrustBundle, PodCertificateRequest; coordination.k8s.io/v1beta1:
 * LeaseCandidate) list the removed kinds, so the new ones are not reported.
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
    kinds: ['MutatingWebhookConfiguration', 'ValidatingWebhookConfiguration'],
    removedIn: '1.22',
    use: 'admissionregistration.k8s.io/v1',
  },
  { groupVersion: 'apiregistration.k8s.io/v1beta1', removedIn: '1.22', use: 'apiregistration.k8s.io/v1' },
  {
    groupVersion: 'authentication.k8s.io/v1beta1',
    kinds: ['TokenReview'],
    removedIn: '1.22',
    use: 'authentication.k8s.io/v1',
  },
  { groupVersion: 'authorization.k8s.io/v1beta1', removedIn: '1.22', use: 'authorization.k8s.io/v1' },
  {
    groupVersion: 'certificates.k8s.io/v1beta1',
    kinds: ['CertificateSigningRequest'],
    removedIn: '1.22',
    use: 'certificates.k8s.io/v1',
  },
  {
    groupVersion: 'coordination.k8s.io/v1beta1',
    kinds: ['Lease'],
    removedIn: '1.22',
    use: 'coordination.k8s.io/v1',
  },
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
  // Beta, never served by default (see above).
  {
    groupVersion: 'authentication.k8s.io/v1beta1',
    kinds: ['SelfSubjectReview'],
    removedIn: '1.33',
    use: 'authentication.k8s.io/v1',
  },
  {
    groupVersion: 'admissionregistration.k8s.io/v1beta1',
    kinds: ['ValidatingAdmissionPolicy', 'ValidatingAdmissionPolicyBinding'],
    removedIn: '1.34',
    use: 'admissionregistration.k8s.io/v1',
  },
  {
    groupVersion: 'networking.k8s.io/v1beta1',
    kinds: ['IPAddress', 'ServiceCIDR'],
    removedIn: '1.37',
    use: 'networking.k8s.io/v1',
  },
  {
    groupVersion: 'storage.k8s.io/v1beta1',
    kinds: ['VolumeAttributesClass'],
    removedIn: '1.37',
    use: 'storage.k8s.io/v1',
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
