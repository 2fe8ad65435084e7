/**
 * Where kustomize's built-in transformers write, as its default configuration lists them
 * (sigs.k8s.io/kustomize/api v0.21, internal/konfig/builtinpluginconsts), for the transformers
 * op-gen renders.
 */
export interface FieldSpec {
  readonly path: string;
  readonly kind?: string;
  readonly group?: string;
  readonly create: boolean;
}

const WORKLOADS = ['ReplicationController', 'Deployment', 'ReplicaSet', 'DaemonSet'] as const;

/** Pod template labels (labels with includeTemplates, and commonLabels). */
export const TEMPLATE_LABELS: readonly FieldSpec[] = [
  { path: 'metadata/labels', create: true },
  ...WORKLOADS.map((kind) => ({ path: 'spec/template/metadata/labels', kind, create: true })),
  { path: 'spec/template/metadata/labels', kind: 'StatefulSet', group: 'apps', create: true },
  { path: 'spec/template/metadata/labels', kind: 'Job', group: 'batch', create: true },
  { path: 'spec/jobTemplate/metadata/labels', kind: 'CronJob', group: 'batch', create: true },
  { path: 'spec/jobTemplate/spec/template/metadata/labels', kind: 'CronJob', group: 'batch', create: true },
];

const AFFINITY = [
  'spec/template/spec/affinity/podAffinity/preferredDuringSchedulingIgnoredDuringExecution/podAffinityTerm/labelSelector/matchLabels',
  'spec/template/spec/affinity/podAffinity/requiredDuringSchedulingIgnoredDuringExecution/labelSelector/matchLabels',
  'spec/template/spec/affinity/podAntiAffinity/preferredDuringSchedulingIgnoredDuringExecution/podAffinityTerm/labelSelector/matchLabels',
  'spec/template/spec/affinity/podAntiAffinity/requiredDuringSchedulingIgnoredDuringExecution/labelSelector/matchLabels',
  'spec/template/spec/topologySpreadConstraints/labelSelector/matchLabels',
];

/** commonLabels (and labels with includeSelectors): selectors too. */
export const COMMON_LABELS: readonly FieldSpec[] = [
  { path: 'spec/selector', kind: 'Service', create: true },
  { path: 'spec/selector', kind: 'ReplicationController', create: true },
  { path: 'spec/selector/matchLabels', kind: 'Deployment', create: true },
  ...AFFINITY.map((path) => ({ path, kind: 'Deployment', group: 'apps', create: false })),
  { path: 'spec/selector/matchLabels', kind: 'ReplicaSet', create: true },
  { path: 'spec/selector/matchLabels', kind: 'DaemonSet', create: true },
  { path: 'spec/selector/matchLabels', kind: 'StatefulSet', group: 'apps', create: true },
  ...AFFINITY.map((path) => ({ path, kind: 'StatefulSet', group: 'apps', create: false })),
  { path: 'spec/selector/matchLabels', kind: 'Job', group: 'batch', create: false },
  { path: 'spec/jobTemplate/spec/selector/matchLabels', kind: 'CronJob', group: 'batch', create: false },
  { path: 'spec/selector/matchLabels', kind: 'PodDisruptionBudget', group: 'policy', create: false },
  { path: 'spec/podSelector/matchLabels', kind: 'NetworkPolicy', group: 'networking.k8s.io', create: false },
  {
    path: 'spec/ingress/from/podSelector/matchLabels',
    kind: 'NetworkPolicy',
    group: 'networking.k8s.io',
    create: false,
  },
  {
    path: 'spec/egress/to/podSelector/matchLabels',
    kind: 'NetworkPolicy',
    group: 'networking.k8s.io',
    create: false,
  },
  ...TEMPLATE_LABELS,
  { path: 'spec/volumeClaimTemplates[]/metadata/labels', kind: 'StatefulSet', group: 'apps', create: true },
];

export const COMMON_ANNOTATIONS: readonly FieldSpec[] = [
  { path: 'metadata/annotations', create: true },
  ...WORKLOADS.map((kind) => ({ path: 'spec/template/metadata/annotations', kind, create: true })),
  { path: 'spec/template/metadata/annotations', kind: 'StatefulSet', create: true },
  { path: 'spec/template/metadata/annotations', kind: 'Job', group: 'batch', create: true },
  { path: 'spec/jobTemplate/metadata/annotations', kind: 'CronJob', group: 'batch', create: true },
  {
    path: 'spec/jobTemplate/spec/template/metadata/annotations',
    kind: 'CronJob',
    group: 'batch',
    create: true,
  },
];

export const IMAGES: readonly string[] = [
  'spec/containers[]/image',
  'spec/initContainers[]/image',
  'spec/volumes[]/image/reference',
  'spec/template/spec/containers[]/image',
  'spec/template/spec/initContainers[]/image',
  'spec/template/spec/volumes[]/image/reference',
  'spec/jobTemplate/spec/template/spec/volumes[]/image/reference',
];

export const REPLICA_KINDS: readonly string[] = [
  'Deployment',
  'ReplicationController',
  'ReplicaSet',
  'StatefulSet',
];

export function appliesTo(spec: { kind?: string; group?: string }, kind: string, group: string): boolean {
  return (
    (spec.kind === undefined || spec.kind === kind) && (spec.group === undefined || spec.group === group)
  );
}
