import type { KubeConfig } from '@kubernetes/client-node';
import { apiRequest, type ApiCall, type ApiResult } from './api-request.ts';

/** What the operator works on. */
export interface OperatorTarget {
  /** Namespace of the Memcached object (and the Deployment it owns). */
  readonly namespace: string;
  readonly name: string;
  readonly uid: string;
  /** The manager's own namespace (leader election lease and its events). */
  readonly managerNamespace: string;
  /** Makes object names unique per run. */
  readonly run: string;
}

const GROUP = 'cache.example.com';
const VERSION = 'v1alpha1';

/**
 * The API calls the memcached sample operator makes while converging one Memcached, in order:
 * what its manager (informer cache, leader election, event recorder) and its reconciler do.
 */
export function memcachedOperatorCalls(t: OperatorTarget): ApiCall[] {
  const cr = `/apis/${GROUP}/${VERSION}/namespaces/${t.namespace}/memcacheds/${t.name}`;
  const deployments = `/apis/apps/v1/namespaces/${t.namespace}/deployments`;
  const deployment = `${deployments}/${t.name}-${t.run}`;
  const leases = `/apis/coordination.k8s.io/v1/namespaces/${t.managerNamespace}/leases`;
  const lease = `${leases}/memcached-operator-${t.run}`;
  const events = `/api/v1/namespaces/${t.namespace}/events`;
  const labels = { app: 'memcached', run: t.run };
  const deploymentBody = {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: {
      name: `${t.name}-${t.run}`,
      namespace: t.namespace,
      ownerReferences: [
        {
          apiVersion: `${GROUP}/${VERSION}`,
          kind: 'Memcached',
          name: t.name,
          uid: t.uid,
          controller: true,
          blockOwnerDeletion: true,
        },
      ],
    },
    spec: {
      replicas: 1,
      selector: { matchLabels: labels },
      template: {
        metadata: { labels },
        spec: { containers: [{ name: 'memcached', image: 'memcached:1.6' }] },
      },
    },
  };
  const now = new Date().toISOString();
  return [
    // leader election
    {
      name: 'create leases',
      method: 'POST',
      path: leases,
      body: {
        apiVersion: 'coordination.k8s.io/v1',
        kind: 'Lease',
        metadata: { name: `memcached-operator-${t.run}` },
        spec: { holderIdentity: 'me', leaseDurationSeconds: 15 },
      },
    },
    { name: 'get leases', method: 'GET', path: lease },
    {
      name: 'patch leases',
      method: 'PATCH',
      path: lease,
      body: { spec: { renewTime: now.replace('Z', '000Z') } },
    },
    {
      name: 'create events (leader election)',
      method: 'POST',
      path: `/api/v1/namespaces/${t.managerNamespace}/events`,
      body: {
        metadata: { name: `leader-${t.run}` },
        involvedObject: { kind: 'Lease', namespace: t.managerNamespace, name: `memcached-operator-${t.run}` },
        reason: 'LeaderElection',
        message: 'became leader',
        type: 'Normal',
      },
    },
    // informer cache: for(Memcached), owns(Deployment)
    { name: 'list memcacheds', method: 'GET', path: `/apis/${GROUP}/${VERSION}/memcacheds` },
    { name: 'watch memcacheds', method: 'GET', path: `/apis/${GROUP}/${VERSION}/memcacheds?watch=true` },
    { name: 'list deployments', method: 'GET', path: '/apis/apps/v1/deployments' },
    { name: 'watch deployments', method: 'GET', path: '/apis/apps/v1/deployments?watch=true' },
    // reconcile
    { name: 'get memcacheds', method: 'GET', path: cr },
    {
      name: 'patch memcacheds (add finalizer)',
      method: 'PATCH',
      path: cr,
      body: { metadata: { finalizers: ['cache.example.com/finalizer'] } },
    },
    // blockOwnerDeletion needs update on memcacheds/finalizers (OwnerReferencesPermissionEnforcement)
    { name: 'create deployments', method: 'POST', path: deployments, body: deploymentBody },
    { name: 'get deployments', method: 'GET', path: deployment },
    { name: 'patch deployments (scale)', method: 'PATCH', path: deployment, body: { spec: { replicas: 3 } } },
    {
      name: 'list pods',
      method: 'GET',
      path: `/api/v1/namespaces/${t.namespace}/pods?labelSelector=app%3Dmemcached`,
    },
    {
      name: 'patch memcacheds/status',
      method: 'PATCH',
      path: `${cr}/status`,
      body: { status: { nodes: [`${t.name}-0`] } },
    },
    {
      name: 'create events',
      method: 'POST',
      path: events,
      body: {
        metadata: { name: `${t.name}-${t.run}` },
        involvedObject: {
          apiVersion: `${GROUP}/${VERSION}`,
          kind: 'Memcached',
          namespace: t.namespace,
          name: t.name,
          uid: t.uid,
        },
        reason: 'Scaled',
        message: 'scaled to 3',
        type: 'Normal',
        count: 1,
        firstTimestamp: now,
        lastTimestamp: now,
      },
    },
    { name: 'patch events', method: 'PATCH', path: `${events}/${t.name}-${t.run}`, body: { count: 2 } },
    { name: 'delete deployments', method: 'DELETE', path: deployment },
    // the metrics endpoint authenticates and authorizes its scrapers (metrics_auth_role)
    {
      name: 'create tokenreviews',
      method: 'POST',
      path: '/apis/authentication.k8s.io/v1/tokenreviews',
      body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: { token: 'not-a-token' } },
    },
    {
      name: 'create subjectaccessreviews',
      method: 'POST',
      path: '/apis/authorization.k8s.io/v1/subjectaccessreviews',
      body: {
        apiVersion: 'authorization.k8s.io/v1',
        kind: 'SubjectAccessReview',
        spec: { user: 'prometheus', nonResourceAttributes: { path: '/metrics', verb: 'get' } },
      },
    },
  ];
}

export interface OperatorRun {
  readonly results: ReadonlyMap<string, ApiResult>;
  /** Calls the API server refused with 403, in order. */
  readonly forbidden: readonly string[];
  /** Calls that failed for another reason (a broken test, not an RBAC finding). */
  readonly failed: readonly string[];
}

/** Runs every call as `kc`'s user and counts the 403s. */
export async function runOperator(kc: KubeConfig, target: OperatorTarget): Promise<OperatorRun> {
  const results = new Map<string, ApiResult>();
  const forbidden: string[] = [];
  const failed: string[] = [];
  for (const call of memcachedOperatorCalls(target)) {
    const result = await apiRequest(kc, call);
    results.set(call.name, result);
    if (result.status === 403) forbidden.push(call.name);
    else if (result.status < 200 || result.status >= 300)
      failed.push(`${call.name}: ${result.status} ${result.body}`);
  }
  return { results, forbidden, failed };
}
