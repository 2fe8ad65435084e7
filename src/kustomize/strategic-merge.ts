import { isObject, type Json, type JsonObject } from '../json/json.ts';

export class StrategicMergeError extends Error {}

const POD_LISTS: Readonly<Record<string, string>> = {
  containers: 'name',
  initContainers: 'name',
  ephemeralContainers: 'name',
  volumes: 'name',
  imagePullSecrets: 'name',
  hostAliases: 'ip',
  topologySpreadConstraints: 'topologyKey',
  resourceClaims: 'name',
};
const CONTAINER_LISTS: Readonly<Record<string, string>> = {
  env: 'name',
  ports: 'containerPort',
  volumeMounts: 'mountPath',
  volumeDevices: 'devicePath',
  resizePolicy: 'resourceName',
};
/** Kinds whose lists op-gen merges by their Kubernetes patch merge keys. */
const POD_KINDS = new Set([
  'Pod',
  'PodTemplate',
  'Deployment',
  'ReplicaSet',
  'DaemonSet',
  'StatefulSet',
  'Job',
  'CronJob',
  'ReplicationController',
]);

/**
 * The merge key of the list at `path` (field names from the object's root) in an object of `kind`,
 * or undefined when the list is replaced (atomic lists, and every list of kinds without a table here:
 * kustomize replaces the lists of custom resources too).
 */
export function mergeKeyOf(kind: string, path: readonly string[]): string | undefined {
  const field = path.at(-1) ?? '';
  if (kind === 'Service' && path.join('.') === 'spec.ports') return 'port';
  if (!POD_KINDS.has(kind)) return undefined;
  const parent = path.at(-2);
  if (parent === 'containers' || parent === 'initContainers' || parent === 'ephemeralContainers')
    return CONTAINER_LISTS[field];
  if (parent === 'spec') return POD_LISTS[field];
  return undefined;
}

function checkDirectives(patch: JsonObject, where: string): void {
  for (const key of Object.keys(patch)) {
    if (key.startsWith('$'))
      throw new StrategicMergeError(
        `${where}${key}: strategic merge patch directives ($patch, $setElementOrder, $retainKeys, $deleteFromPrimitiveList) are not rendered by op-gen`,
      );
  }
}

function mergeValue(base: Json | undefined, patch: Json, kind: string, path: string[]): Json | undefined {
  if (patch === null) return undefined;
  if (isObject(patch)) {
    checkDirectives(patch, path.length > 0 ? `${path.join('.')}.` : '');
    const out: JsonObject = isObject(base) ? base : {};
    for (const [key, value] of Object.entries(patch)) {
      const merged = mergeValue(out[key], value, kind, [...path, key]);
      if (merged === undefined) delete out[key];
      else out[key] = merged;
    }
    return out;
  }
  if (Array.isArray(patch)) {
    const key = mergeKeyOf(kind, path);
    if (key === undefined || !Array.isArray(base)) {
      if (key !== undefined)
        for (const item of patch) if (isObject(item)) checkDirectives(item, `${path.join('.')}[].`);
      return structuredClone(patch);
    }
    // As kustomize's merge: the patch's items first, in its order (each merged with the item it
    // names), then the items the patch does not name, in their order.
    const out: Json[] = [];
    const used = new Set<number>();
    for (const item of patch) {
      if (!isObject(item))
        throw new StrategicMergeError(`${path.join('.')}: items must be objects with ${key}`);
      checkDirectives(item, `${path.join('.')}[].`);
      const at = base.findIndex(
        (o, i) => !used.has(i) && isObject(o) && o[key] !== undefined && o[key] === item[key],
      );
      if (at < 0) out.push(structuredClone(item));
      else {
        used.add(at);
        out.push(mergeValue(base[at], item, kind, path) ?? item);
      }
    }
    base.forEach((o, i) => {
      if (!used.has(i)) out.push(o);
    });
    return out;
  }
  return patch;
}

/**
 * Applies a strategic merge patch to `target` in place: maps merge key by key, `null` deletes, lists
 * of Pod templates (containers, volumes, env, ports, ...) and a Service's ports merge item by item on
 * their merge key, every other list is replaced.
 */
export function applyStrategicMerge(target: JsonObject, patch: JsonObject): void {
  const kind = typeof target.kind === 'string' ? target.kind : '';
  const body: JsonObject = { ...patch };
  // apiVersion/kind/name identify the target; they are not changed by the patch.
  delete body.apiVersion;
  delete body.kind;
  if (isObject(body.metadata)) {
    const metadata: JsonObject = { ...body.metadata };
    delete metadata.name;
    delete metadata.namespace;
    body.metadata = metadata;
  }
  mergeValue(target, body, kind, []);
}
