import { isClusterScoped } from './cluster-scoped.ts';
import { visitPath } from './field-path.ts';
import { isObject, type Json, type JsonObject } from '../json/json.ts';
import { gvkOf, nameOf, namespaceOf, priorNames, type Resource } from './resource.ts';

/** A kustomize nameReference entry: objects of `kind` are named at these fields of other kinds. */
export interface NameReference {
  readonly kind: string;
  readonly group?: string;
  readonly version?: string;
  readonly fieldSpecs: readonly { path: string; kind?: string; group?: string; version?: string }[];
}

const POD_PATHS = (leaf: string): { path: string; kind: string }[] => [
  { path: `spec/${leaf}`, kind: 'Pod' },
  { path: `template/spec/${leaf}`, kind: 'PodTemplate' },
  ...['Deployment', 'ReplicaSet', 'DaemonSet', 'StatefulSet', 'Job', 'ReplicationController'].map((kind) => ({
    path: `spec/template/spec/${leaf}`,
    kind,
  })),
  { path: `spec/jobTemplate/spec/template/spec/${leaf}`, kind: 'CronJob' },
];

const CONTAINER_REFS = (ref: string, envFrom: string): string[] => [
  `containers/env/valueFrom/${ref}/name`,
  `initContainers/env/valueFrom/${ref}/name`,
  `containers/envFrom/${envFrom}/name`,
  `initContainers/envFrom/${envFrom}/name`,
];

/**
 * The part of kustomize's built-in nameReference table op-gen renders: the references between the
 * kinds an operator's config holds (ServiceAccounts, Roles, ClusterRoles, Services, ConfigMaps,
 * Secrets, Deployments). `configurations:` files add entries.
 */
export const BUILTIN_NAME_REFERENCES: readonly NameReference[] = [
  {
    kind: 'ConfigMap',
    version: 'v1',
    fieldSpecs: [
      ...POD_PATHS('volumes/configMap/name'),
      ...POD_PATHS('volumes/projected/sources/configMap/name'),
      ...CONTAINER_REFS('configMapKeyRef', 'configMapRef').flatMap(POD_PATHS),
      { path: 'rules/resourceNames', kind: 'Role' },
      { path: 'rules/resourceNames', kind: 'ClusterRole' },
    ],
  },
  {
    kind: 'Secret',
    version: 'v1',
    fieldSpecs: [
      ...POD_PATHS('volumes/secret/secretName'),
      ...POD_PATHS('volumes/projected/sources/secret/name'),
      ...POD_PATHS('imagePullSecrets/name'),
      ...CONTAINER_REFS('secretKeyRef', 'secretRef').flatMap(POD_PATHS),
      { path: 'imagePullSecrets/name', kind: 'ServiceAccount' },
      { path: 'rules/resourceNames', kind: 'Role' },
      { path: 'rules/resourceNames', kind: 'ClusterRole' },
    ],
  },
  {
    kind: 'Service',
    version: 'v1',
    fieldSpecs: [
      { path: 'spec/serviceName', kind: 'StatefulSet', group: 'apps' },
      { path: 'spec/service/name', kind: 'APIService', group: 'apiregistration.k8s.io' },
      {
        path: 'webhooks/clientConfig/service',
        kind: 'ValidatingWebhookConfiguration',
        group: 'admissionregistration.k8s.io',
      },
      {
        path: 'webhooks/clientConfig/service',
        kind: 'MutatingWebhookConfiguration',
        group: 'admissionregistration.k8s.io',
      },
    ],
  },
  {
    kind: 'Role',
    group: 'rbac.authorization.k8s.io',
    fieldSpecs: [{ path: 'roleRef/name', kind: 'RoleBinding', group: 'rbac.authorization.k8s.io' }],
  },
  {
    kind: 'ClusterRole',
    group: 'rbac.authorization.k8s.io',
    fieldSpecs: [
      { path: 'roleRef/name', kind: 'RoleBinding', group: 'rbac.authorization.k8s.io' },
      { path: 'roleRef/name', kind: 'ClusterRoleBinding', group: 'rbac.authorization.k8s.io' },
    ],
  },
  {
    kind: 'ServiceAccount',
    version: 'v1',
    fieldSpecs: [
      { path: 'subjects', kind: 'RoleBinding', group: 'rbac.authorization.k8s.io' },
      { path: 'subjects', kind: 'ClusterRoleBinding', group: 'rbac.authorization.k8s.io' },
      ...POD_PATHS('serviceAccountName'),
    ],
  },
  {
    kind: 'Deployment',
    fieldSpecs: [{ path: 'spec/scaleTargetRef/name', kind: 'HorizontalPodAutoscaler' }],
  },
  {
    kind: 'StatefulSet',
    fieldSpecs: [{ path: 'spec/scaleTargetRef/name', kind: 'HorizontalPodAutoscaler' }],
  },
];

export class NameReferenceError extends Error {}

function selects(
  sel: { kind?: string; group?: string; version?: string },
  gvk: { kind: string; group: string; version: string },
): boolean {
  return (
    (!sel.kind || sel.kind === gvk.kind) &&
    (!sel.group || sel.group === gvk.group) &&
    (!sel.version || sel.version === gvk.version)
  );
}

function select(
  referrer: Resource,
  ref: NameReference,
  oldName: string,
  candidates: readonly Resource[],
  path: string,
): Resource | undefined {
  let found = candidates.filter((c) => priorNames(c).includes(oldName) && selects(ref, gvkOf(c.object)));
  if (path.endsWith('roleRef/name')) {
    const roleRef = referrer.object.roleRef;
    if (isObject(roleRef) && typeof roleRef.kind === 'string') {
      found = found.filter((c) => gvkOf(c.object).kind === roleRef.kind);
    }
  }
  const { kind } = gvkOf(referrer.object);
  if (!isClusterScoped(kind)) {
    found = found.filter((c) => {
      const ck = gvkOf(c.object).kind;
      return (
        isClusterScoped(ck) ||
        ck === 'ServiceAccount' ||
        namespaceOf(c.object) === namespaceOf(referrer.object)
      );
    });
  }
  if (found.length <= 1) return found[0];
  const first = found[0] as Resource;
  if (
    found.every(
      (c) => nameOf(c.object) === nameOf(first.object) && namespaceOf(c.object) === namespaceOf(first.object),
    )
  )
    return first;
  throw new NameReferenceError(
    `${referrer.file}: ${path} of ${kind} ${nameOf(referrer.object)} names ${oldName}, which several objects had: ${found
      .map((c) => `${c.file} (${nameOf(c.object)})`)
      .join(', ')}`,
  );
}

function candidatesIn(node: JsonObject, all: readonly Resource[]): readonly Resource[] {
  if (typeof node.namespace !== 'string') return all;
  const ns = node.namespace;
  const byOriginal = all.filter((c) => (c.previousNamespaces[0] ?? namespaceOf(c.object)) === ns);
  return byOriginal.length > 0 ? byOriginal : all.filter((c) => namespaceOf(c.object) === ns);
}

/** Points every reference at the final name (and, for `{name, namespace}` references, namespace). */
export function fixNameReferences(
  resources: readonly Resource[],
  references: readonly NameReference[],
): void {
  for (const ref of references) {
    const targets = resources.filter((r) => selects(ref, gvkOf(r.object)));
    if (targets.length === 0) continue;
    for (const referrer of resources) {
      const gvk = gvkOf(referrer.object);
      for (const spec of ref.fieldSpecs) {
        if (!selects(spec, gvk)) continue;
        const setOne = (value: Json | undefined): Json | undefined => {
          if (typeof value === 'string') {
            const referral = select(referrer, ref, value, targets, spec.path);
            return referral ? nameOf(referral.object) : undefined;
          }
          if (isObject(value) && typeof value.name === 'string') {
            const referral = select(referrer, ref, value.name, candidatesIn(value, targets), spec.path);
            if (!referral) return undefined;
            value.name = nameOf(referral.object);
            const ns = namespaceOf(referral.object);
            if (ns !== '') value.namespace = ns;
            return value;
          }
          return undefined;
        };
        visitPath(referrer.object, spec.path, (value) => {
          if (Array.isArray(value)) {
            return value.map((item) => setOne(item) ?? item);
          }
          return setOne(value);
        });
      }
    }
  }
}
