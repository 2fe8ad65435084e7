import type { KindSpec } from '../../client/kind.ts';
import type { ObjectLike } from '../../client/resource-client.ts';

/** A dependent's readiness: `true`, or not ready (`false`, or a string saying why). */
export type ReadyResult = boolean | string;

interface Workload {
  metadata?: { generation?: number };
  spec?: { replicas?: number; type?: string };
  status?: {
    observedGeneration?: number;
    replicas?: number;
    availableReplicas?: number;
    readyReplicas?: number;
    updatedReplicas?: number;
    currentRevision?: string;
    updateRevision?: string;
    phase?: string;
    conditions?: { type?: string; status?: string; reason?: string; message?: string }[];
    loadBalancer?: { ingress?: unknown[] };
  };
}

/** The observed generation lags the spec: the controller of the kind has not looked yet. */
function stale(o: Workload): string | undefined {
  const generation = o.metadata?.generation;
  const observed = o.status?.observedGeneration;
  if (generation !== undefined && (observed === undefined || observed < generation))
    return `generation ${generation} not observed yet (observed ${observed ?? 'none'})`;
  return undefined;
}

/** `kubectl rollout status`'s test: observed, every replica updated, old ones gone, updated ones available. */
function deploymentReady(o: Workload): ReadyResult {
  const lag = stale(o);
  if (lag) return lag;
  const status = o.status ?? {};
  const stuck = status.conditions?.find(
    (c) => c.type === 'Progressing' && c.reason === 'ProgressDeadlineExceeded',
  );
  if (stuck) return `progress deadline exceeded${stuck.message ? `: ${stuck.message}` : ''}`;
  const want = o.spec?.replicas ?? 1;
  const updated = status.updatedReplicas ?? 0;
  if (updated < want) return `${updated}/${want} replicas updated`;
  const total = status.replicas ?? 0;
  if (total > updated) return `${total - updated} old replicas pending termination`;
  const available = status.availableReplicas ?? 0;
  if (available < updated) return `${available}/${updated} updated replicas available`;
  return true;
}

function statefulSetReady(o: Workload): ReadyResult {
  const lag = stale(o);
  if (lag) return lag;
  const want = o.spec?.replicas ?? 1;
  const ready = o.status?.readyReplicas ?? 0;
  if (ready !== want) return `${ready}/${want} replicas ready`;
  const { currentRevision, updateRevision } = o.status ?? {};
  if (updateRevision !== undefined && currentRevision !== updateRevision)
    return `rolling out revision ${updateRevision}`;
  return true;
}

function jobReady(o: Workload): ReadyResult {
  const conditions = o.status?.conditions ?? [];
  const failed = conditions.find((c) => c.type === 'Failed' && c.status === 'True');
  if (failed) return `failed${failed.message ? `: ${failed.message}` : ''}`;
  return conditions.some((c) => c.type === 'Complete' && c.status === 'True') ? true : 'not complete';
}

function serviceReady(o: Workload): ReadyResult {
  if (o.spec?.type !== 'LoadBalancer') return true;
  return (o.status?.loadBalancer?.ingress?.length ?? 0) > 0 ? true : 'no load balancer ingress assigned';
}

function pvcReady(o: Workload): ReadyResult {
  const phase = o.status?.phase;
  return phase === 'Bound' ? true : `phase ${phase ?? 'unknown'}, not Bound`;
}

const BY_KIND: Record<string, (o: Workload) => ReadyResult> = {
  'apps/Deployment': deploymentReady,
  'apps/StatefulSet': statefulSetReady,
  'batch/Job': jobReady,
  '/Service': serviceReady,
  '/PersistentVolumeClaim': pvcReady,
};

/**
 * The readiness a dependent of `kind` has when it declares none: Deployment (`kubectl rollout
 * status`'s test: observed generation current, spec.replicas updated, no old replica left, the
 * updated ones available; not past its progress deadline), StatefulSet (ready replicas = spec.replicas, on the
 * update revision), Job (Complete; Failed says so), Service of type LoadBalancer (an ingress
 * assigned), PersistentVolumeClaim (Bound); any other kind is ready once it exists.
 */
export function defaultReady(kind: KindSpec): (actual: ObjectLike) => ReadyResult {
  const check = BY_KIND[`${kind.group}/${kind.kind}`];
  return check ? (actual) => check(actual as Workload) : () => true;
}
