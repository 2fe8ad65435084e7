/**
 * The permissions the runtime's sample Memcached operator (test/fixtures/runtime/memcached-operator.ts)
 * needs beyond what `generate rbac` infers from its builder chain: what its reconciler writes.
 * ensureFinalizer updates the Memcached; the owned Deployment and Service are server-side applied
 * (patch, and create the first time). In a user's project these markers sit in the reconciler's JSDoc.
 *
 * @rbac groups=cache.example.com resources=memcacheds verbs=update
 * @rbac groups=apps resources=deployments verbs=create;patch
 * @rbac groups="" resources=services verbs=create;patch
 */
export const memcachedOperatorSources = [
  'test/fixtures/runtime/memcached-operator.ts',
  'test/integration/rbac/memcached-operator-rbac.ts',
] as const;
