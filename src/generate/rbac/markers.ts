import { MarkerRegistry } from '../../markers/registry.ts';
import type { ArgSpec, MarkerSpec, ParsedMarker } from '../../markers/types.ts';

/** The RBAC generator's marker table: one marker, `@rbac`, read by `op-gen generate rbac`. */
export type RbacMarker = ParsedMarker<never>;

const list = (help: string): ArgSpec => ({ type: 'string[]', help });

export const rbacMarkerSpecs: readonly MarkerSpec<never>[] = [
  {
    name: 'rbac',
    targets: ['package', 'type'],
    repeatable: true,
    controllerGen: '+kubebuilder:rbac',
    help:
      'Grants the manager a permission: a rule of its ClusterRole, or of a Role with `namespace=`. ' +
      'On a reconciler class or in the JSDoc of the module that builds the controller.',
    args: {
      groups: list('API groups, `;`-separated; `""` or `core` is the core group'),
      resources: list('resources (lowercase plurals), subresources as `deployments/status`'),
      resourceNames: list('restricts the rule to objects with these names'),
      verbs: { type: 'string[]', required: true, help: 'verbs, e.g. `get;list;watch`' },
      urls: list('non-resource URLs such as `/metrics` (ClusterRole only)'),
      namespace: { type: 'string', help: 'puts the rule into a Role in this namespace' },
      roleName: { type: 'string', help: 'puts the rule into a role of this name instead of the default' },
    },
  },
];

export const rbacMarkers = new MarkerRegistry<never>(rbacMarkerSpecs);
