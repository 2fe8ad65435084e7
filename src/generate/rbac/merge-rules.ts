import type { PolicyRule, RbacRule } from './rule.ts';

/**
 * Merging follows controller-gen's `NormalizeRules` so that op-gen's role.yaml matches what a
 * kubebuilder user expects:
 *   1. a declaration is split into one rule per resource;
 *   2. rules for the same groups + resource + resourceNames + URLs get their verbs unioned;
 *   3. rules that differ only in resources are merged (same verbs merged across resources),
 *      then those that differ only in groups, then those that differ only in URLs;
 *   4. rules are sorted by `groups + resources + resourceNames + URLs` (bytewise);
 *   5. a rule holding the `*` verb keeps only `*`.
 * Every list is de-duplicated and sorted, and the group name `core` means the core group `""`.
 */
interface WorkingRule {
  groups: string[];
  resources: string[];
  resourceNames: string[];
  urls: string[];
  verbs: string[];
}

export type RuleLists = Pick<RbacRule, 'groups' | 'resources' | 'resourceNames' | 'urls' | 'verbs'>;

/** Bytewise comparison (Go's strings.Compare for ASCII), independent of the locale. */
export function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function uniqueSorted(values: readonly string[]): string[] {
  return [...new Set(values)].sort(compareStrings);
}

function normalized(rule: WorkingRule): WorkingRule {
  return {
    groups: uniqueSorted(rule.groups),
    resources: uniqueSorted(rule.resources),
    resourceNames: uniqueSorted(rule.resourceNames),
    urls: uniqueSorted(rule.urls),
    verbs: uniqueSorted(rule.verbs),
  };
}

type Field = keyof WorkingRule;

function keyOf(rule: WorkingRule, fields: readonly Field[]): string {
  return fields.map((f) => rule[f].join('&')).join(' + ');
}

const IDENTITY: readonly Field[] = ['groups', 'resources', 'resourceNames', 'urls'];

/** Groups rules by every field but `field` and unions `field` within each group. */
function mergeAcross(rules: readonly WorkingRule[], field: Field): WorkingRule[] {
  const others = (['groups', 'resources', 'resourceNames', 'urls', 'verbs'] as const).filter(
    (f) => f !== field,
  );
  const byKey = new Map<string, WorkingRule>();
  for (const rule of rules) {
    const key = keyOf(rule, others);
    const existing = byKey.get(key);
    if (existing) byKey.set(key, normalized({ ...existing, [field]: [...existing[field], ...rule[field]] }));
    else byKey.set(key, rule);
  }
  return [...byKey.values()];
}

export function normalizeRules(rules: readonly RuleLists[]): PolicyRule[] {
  // 1. one rule per resource (a rule without resources stays whole)
  const split: WorkingRule[] = [];
  for (const rule of rules) {
    const groups = rule.groups.map((g) => (g === 'core' ? '' : g));
    const base = {
      groups,
      resourceNames: [...rule.resourceNames],
      urls: [...rule.urls],
      verbs: [...rule.verbs],
    };
    if (rule.resources.length === 0) split.push(normalized({ ...base, resources: [] }));
    for (const resource of rule.resources) split.push(normalized({ ...base, resources: [resource] }));
  }
  // 2. union verbs of identical targets
  let merged = mergeAcross(split, 'verbs');
  // 3. same verbs merged across resources, then groups, then URLs
  merged = mergeAcross(merged, 'resources');
  merged = mergeAcross(merged, 'groups');
  merged = mergeAcross(merged, 'urls');
  // 4. sort by identity key
  merged.sort((a, b) => compareStrings(keyOf(a, IDENTITY), keyOf(b, IDENTITY)));
  // 5. `*` swallows the other verbs
  return merged.map((rule) => toPolicyRule(rule.verbs.includes('*') ? { ...rule, verbs: ['*'] } : rule));
}

function toPolicyRule(rule: WorkingRule): PolicyRule {
  const out: PolicyRule = { verbs: rule.verbs };
  if (rule.groups.length > 0 || rule.resources.length > 0) out.apiGroups = rule.groups;
  if (rule.urls.length > 0) out.nonResourceURLs = rule.urls;
  if (rule.resourceNames.length > 0) out.resourceNames = rule.resourceNames;
  if (rule.resources.length > 0) out.resources = rule.resources;
  return out;
}

/** One generated ClusterRole (no namespace) or Role. */
export interface RoleSpec {
  readonly name: string;
  readonly namespace?: string;
  readonly rules: PolicyRule[];
}

/**
 * Splits rules into roles by (namespace, role name), sorted by namespace then name, so the
 * ClusterRole(s) come first. A role is emitted even with no rules when it is the default ClusterRole
 * (bindings refer to it).
 */
export function rolesFromRules(rules: readonly RbacRule[], defaultRoleName: string): RoleSpec[] {
  const byRole = new Map<string, { name: string; namespace: string; rules: RbacRule[] }>();
  const ensure = (namespace: string, name: string) => {
    const key = `${namespace}\u0000${name}`;
    let entry = byRole.get(key);
    if (!entry) {
      entry = { name, namespace, rules: [] };
      byRole.set(key, entry);
    }
    return entry;
  };
  ensure('', defaultRoleName);
  for (const rule of rules) ensure(rule.namespace ?? '', rule.roleName ?? defaultRoleName).rules.push(rule);
  return [...byRole.values()]
    .sort((a, b) => compareStrings(a.namespace, b.namespace) || compareStrings(a.name, b.name))
    .map((entry) => ({
      name: entry.name,
      ...(entry.namespace ? { namespace: entry.namespace } : {}),
      rules: normalizeRules(entry.rules),
    }));
}
