/** Where a rule came from: shown in errors and in `--explain` style messages. */
export interface RuleOrigin {
  /** Path relative to the project root, with forward slashes. */
  readonly file: string;
  /** 1-based line. */
  readonly line: number;
  /** What produced the rule, e.g. `@rbac` or `.for(Memcached)`. */
  readonly source: string;
}

/**
 * One permission declaration (an `@rbac` marker or an inferred need), in the shape of controller-gen's
 * `+kubebuilder:rbac` marker: every list may hold several values.
 */
export interface RbacRule {
  /** API groups; `''` (or `core`) is the core group. */
  readonly groups: readonly string[];
  /** Resources, with subresources as `deployments/status`. */
  readonly resources: readonly string[];
  readonly resourceNames: readonly string[];
  /** Non-resource URLs such as `/metrics` (ClusterRole only). */
  readonly urls: readonly string[];
  readonly verbs: readonly string[];
  /** When set, the rule goes to a Role in this namespace instead of the ClusterRole. */
  readonly namespace?: string;
  /** When set, the rule goes to a role with this name instead of the default one. */
  readonly roleName?: string;
  readonly origin: RuleOrigin;
}

/** rbac.authorization.k8s.io/v1 PolicyRule, keys in the order the YAML prints them. */
export interface PolicyRule {
  apiGroups?: string[];
  nonResourceURLs?: string[];
  resourceNames?: string[];
  resources?: string[];
  verbs: string[];
}

export function formatOrigin(origin: RuleOrigin): string {
  return `${origin.file}:${origin.line}`;
}
