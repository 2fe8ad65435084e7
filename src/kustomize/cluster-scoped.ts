/**
 * Kinds the Kubernetes API serves cluster-scoped (kustomize reads this from its built-in OpenAPI
 * document): the namespace transformer leaves them without a namespace. Other kinds, custom
 * resources included, are namespaced to kustomize.
 */
const CLUSTER_SCOPED = new Set([
  'APIService',
  'CertificateSigningRequest',
  'ClusterRole',
  'ClusterRoleBinding',
  'ClusterTrustBundle',
  'ComponentStatus',
  'CSIDriver',
  'CSINode',
  'CustomResourceDefinition',
  'DeviceClass',
  'FlowSchema',
  'IngressClass',
  'IPAddress',
  'MutatingAdmissionPolicy',
  'MutatingAdmissionPolicyBinding',
  'MutatingWebhookConfiguration',
  'Namespace',
  'Node',
  'PersistentVolume',
  'PodSecurityPolicy',
  'PriorityClass',
  'PriorityLevelConfiguration',
  'RuntimeClass',
  'SelfSubjectAccessReview',
  'SelfSubjectRulesReview',
  'SelfSubjectReview',
  'ServiceCIDR',
  'StorageClass',
  'StorageVersion',
  'StorageVersionMigration',
  'SubjectAccessReview',
  'TokenReview',
  'ValidatingAdmissionPolicy',
  'ValidatingAdmissionPolicyBinding',
  'ValidatingWebhookConfiguration',
  'VolumeAttachment',
  'VolumeAttributesClass',
]);

export function isClusterScoped(kind: string): boolean {
  return CLUSTER_SCOPED.has(kind);
}
