/**
 * Group and plural of the built-in kinds `builtinKinds.X` from `op-gen/runtime` names, for reading
 * `.owns(builtinKinds.Deployment)` statically. Keep in step with the runtime's `builtinKinds`.
 */
// A type alias (not an interface) so that it reads as a StaticObject.
export type KindInfo = {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
  readonly plural: string;
  readonly namespaced: boolean;
};

const k = (group: string, version: string, kind: string, plural: string, namespaced = true): KindInfo => ({
  group,
  version,
  kind,
  plural,
  namespaced,
});

export const BUILTIN_KINDS: Readonly<Record<string, KindInfo>> = {
  ConfigMap: k('', 'v1', 'ConfigMap', 'configmaps'),
  Endpoints: k('', 'v1', 'Endpoints', 'endpoints'),
  Event: k('', 'v1', 'Event', 'events'),
  Namespace: k('', 'v1', 'Namespace', 'namespaces', false),
  Node: k('', 'v1', 'Node', 'nodes', false),
  PersistentVolume: k('', 'v1', 'PersistentVolume', 'persistentvolumes', false),
  PersistentVolumeClaim: k('', 'v1', 'PersistentVolumeClaim', 'persistentvolumeclaims'),
  Pod: k('', 'v1', 'Pod', 'pods'),
  Secret: k('', 'v1', 'Secret', 'secrets'),
  Service: k('', 'v1', 'Service', 'services'),
  ServiceAccount: k('', 'v1', 'ServiceAccount', 'serviceaccounts'),
  DaemonSet: k('apps', 'v1', 'DaemonSet', 'daemonsets'),
  Deployment: k('apps', 'v1', 'Deployment', 'deployments'),
  ReplicaSet: k('apps', 'v1', 'ReplicaSet', 'replicasets'),
  StatefulSet: k('apps', 'v1', 'StatefulSet', 'statefulsets'),
  HorizontalPodAutoscaler: k('autoscaling', 'v2', 'HorizontalPodAutoscaler', 'horizontalpodautoscalers'),
  CronJob: k('batch', 'v1', 'CronJob', 'cronjobs'),
  Job: k('batch', 'v1', 'Job', 'jobs'),
  Lease: k('coordination.k8s.io', 'v1', 'Lease', 'leases'),
  EndpointSlice: k('discovery.k8s.io', 'v1', 'EndpointSlice', 'endpointslices'),
  Ingress: k('networking.k8s.io', 'v1', 'Ingress', 'ingresses'),
  NetworkPolicy: k('networking.k8s.io', 'v1', 'NetworkPolicy', 'networkpolicies'),
  PodDisruptionBudget: k('policy', 'v1', 'PodDisruptionBudget', 'poddisruptionbudgets'),
  ClusterRole: k('rbac.authorization.k8s.io', 'v1', 'ClusterRole', 'clusterroles', false),
  ClusterRoleBinding: k(
    'rbac.authorization.k8s.io',
    'v1',
    'ClusterRoleBinding',
    'clusterrolebindings',
    false,
  ),
  Role: k('rbac.authorization.k8s.io', 'v1', 'Role', 'roles'),
  RoleBinding: k('rbac.authorization.k8s.io', 'v1', 'RoleBinding', 'rolebindings'),
  StorageClass: k('storage.k8s.io', 'v1', 'StorageClass', 'storageclasses', false),
  CustomResourceDefinition: k(
    'apiextensions.k8s.io',
    'v1',
    'CustomResourceDefinition',
    'customresourcedefinitions',
    false,
  ),
};
