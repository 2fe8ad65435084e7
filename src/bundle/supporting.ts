import { OpGenError } from '../errors.ts';
import type { Located, Manifest } from './manifests.ts';
import { SUPPORTED_KINDS } from './supported-kinds.ts';
import { compareNames } from '../shared/compare-names.ts';

/** A manifest the bundle ships next to the CSV (the metrics Service, a metrics-reader ClusterRole, ...). */
export interface SupportingManifest {
  /** operator-sdk's naming: `<name>_<group>_<version>_<kind>.yaml`, the group left out for core kinds. */
  readonly fileName: string;
  readonly object: Manifest;
  /** The config/ file it came from, and the name it has there. */
  readonly source: string;
  readonly sourceName: string;
}

/** What the CSV already carries, or OLM makes itself: never copied as a supporting manifest. */
const CARRIED_BY_CSV = new Set([
  'ClusterServiceVersion',
  'CustomResourceDefinition',
  'Deployment',
  'Namespace',
]);

interface RoleRef {
  kind?: string;
  name?: string;
}
interface Subject {
  kind?: string;
  name?: string;
  namespace?: string;
}

/**
 * The manager's RBAC: the bindings whose subjects include its ServiceAccount, and the Roles and
 * ClusterRoles they bind (a RoleBinding's Role, a ClusterRoleBinding's ClusterRole). OLM makes these
 * from the CSV's `permissions` and `clusterPermissions`.
 */
export function managerRbac(
  objects: readonly Located[],
  serviceAccount: string,
): { readonly roles: ReadonlySet<Located>; readonly bindings: ReadonlySet<Located> } {
  const bindings = new Set<Located>();
  const roleKeys = new Set<string>();
  for (const b of objects) {
    const roleKind =
      b.object.kind === 'RoleBinding'
        ? 'Role'
        : b.object.kind === 'ClusterRoleBinding'
          ? 'ClusterRole'
          : undefined;
    if (!roleKind) continue;
    const subjects = (b.object.subjects as Subject[] | undefined) ?? [];
    const ref = b.object.roleRef as RoleRef | undefined;
    if (ref?.kind !== roleKind || !ref.name) continue;
    if (!subjects.some((s) => s.kind === 'ServiceAccount' && s.name === serviceAccount)) continue;
    bindings.add(b);
    roleKeys.add(`${roleKind}/${ref.name}`);
  }
  const roles = new Set(objects.filter((o) => roleKeys.has(`${o.object.kind}/${o.object.metadata?.name}`)));
  return { roles, bindings };
}

export interface SupportingResult {
  readonly manifests: SupportingManifest[];
  /** `<file>: <kind> <name>` of objects OLM cannot install from a bundle, left out. */
  readonly skipped: string[];
}

/**
 * The objects of config/ that OLM installs from the bundle besides the CSV: everything of a kind OLM
 * supports except the manager's ServiceAccount and the roles bound to it, with their bindings (OLM
 * creates those from the CSV's permissions). Names get config/default's namePrefix, as kustomize
 * would give them; namespaces are dropped (OLM installs into the operator's namespace).
 */
export function supportingManifests(
  objects: readonly Located[],
  serviceAccount: string,
  namePrefix: string,
): SupportingResult {
  const manager = managerRbac(objects, serviceAccount);
  const ours = new Set(objects.map((o) => `${o.object.kind}/${o.object.metadata?.name ?? ''}`));
  ours.add(`ServiceAccount/${serviceAccount}`);
  const prefixed = (kind: string | undefined, name: string | undefined): string | undefined =>
    name !== undefined && ours.has(`${kind}/${name}`) ? `${namePrefix}${name}` : name;

  const manifests: SupportingManifest[] = [];
  const skipped: string[] = [];
  for (const located of objects) {
    const o = located.object;
    const kind = o.kind ?? '';
    if (CARRIED_BY_CSV.has(kind)) continue;
    if (kind === 'ServiceAccount' && o.metadata?.name === serviceAccount) continue;
    if (manager.roles.has(located) || manager.bindings.has(located)) continue;
    if (!SUPPORTED_KINDS.has(kind)) {
      skipped.push(`${located.file}: ${kind} ${o.metadata?.name ?? ''}`.trimEnd());
      continue;
    }
    const object = rewrite(o, namePrefix, prefixed);
    manifests.push({
      fileName: fileName(object),
      object,
      source: located.file,
      sourceName: o.metadata?.name ?? '',
    });
  }
  manifests.sort((a, b) => compareNames(a.fileName, b.fileName));
  const seen = new Map<string, string>();
  for (const m of manifests) {
    const first = seen.get(m.fileName);
    if (first) {
      throw new OpGenError(
        `${first} and ${m.source}: two ${m.object.kind} objects named ${m.sourceName} in config/. Rename one.`,
      );
    }
    seen.set(m.fileName, m.source);
  }
  return { manifests, skipped };
}

function rewrite(
  o: Manifest,
  namePrefix: string,
  prefixed: (kind: string | undefined, name: string | undefined) => string | undefined,
): Manifest {
  const copy = structuredClone(o) as Manifest & {
    metadata: NonNullable<Manifest['metadata']>;
    roleRef?: RoleRef;
    subjects?: Subject[];
  };
  copy.metadata = { ...(copy.metadata ?? {}) };
  if (copy.metadata.name !== undefined) copy.metadata.name = `${namePrefix}${copy.metadata.name}`;
  delete copy.metadata.namespace;
  if (copy.roleRef) copy.roleRef = { ...copy.roleRef, name: prefixed(copy.roleRef.kind, copy.roleRef.name) };
  if (copy.subjects) {
    copy.subjects = copy.subjects.map((s) => {
      if (s.kind !== 'ServiceAccount' || prefixed('ServiceAccount', s.name) === s.name) return s;
      // One of the project's ServiceAccounts: OLM creates it in the install namespace.
      const { namespace: _ns, ...rest } = s;
      return { ...rest, name: prefixed('ServiceAccount', s.name) };
    });
  }
  return copy;
}

function fileName(o: Manifest): string {
  const [group, version] = (o.apiVersion ?? '').includes('/')
    ? (o.apiVersion ?? '').split('/')
    : ['', o.apiVersion ?? ''];
  const parts = [
    o.metadata?.name ?? 'unnamed',
    ...(group ? [group] : []),
    version,
    (o.kind ?? '').toLowerCase(),
  ];
  return `${parts.join('_')}.yaml`;
}
