import type { OwnerReference } from '../api-types/meta.ts';
import type { ObjectLike } from '../client/resource-client.ts';

/**
 * Sets `owner` as the controller of `child` (controller-runtime's SetControllerReference), so the
 * garbage collector deletes the child with its owner and `owns()` maps child events to the owner.
 * Fails if another controller already owns the child, or on a namespaced owner of a child in another
 * namespace / a cluster-scoped child (which Kubernetes' GC does not allow).
 */
export function setControllerReference<C extends ObjectLike>(
  owner: ObjectLike,
  child: C,
  options: { ownerNamespaced?: boolean } = {},
): C {
  const om = owner.metadata ?? {};
  if (!owner.apiVersion || !owner.kind || !om.name || !om.uid) {
    throw new Error(
      'setControllerReference: the owner needs apiVersion, kind, metadata.name and metadata.uid (read it from the API first)',
    );
  }
  const ownerNamespaced = options.ownerNamespaced ?? om.namespace !== undefined;
  const cm = child.metadata ?? {};
  if (ownerNamespaced && cm.namespace !== om.namespace) {
    throw new Error(
      `setControllerReference: ${owner.kind} ${om.namespace}/${om.name} is namespaced and cannot own an object in ${cm.namespace ? `namespace ${cm.namespace}` : 'the cluster scope'}`,
    );
  }
  const refs = [
    ...(((cm as { ownerReferences?: OwnerReference[] }).ownerReferences ?? []) as OwnerReference[]),
  ];
  const existing = refs.find((r) => r.controller);
  if (existing && existing.uid !== om.uid) {
    throw new Error(`setControllerReference: already controlled by ${existing.kind} ${existing.name}`);
  }
  const ref: OwnerReference = {
    apiVersion: owner.apiVersion,
    kind: owner.kind,
    name: om.name,
    uid: om.uid,
    controller: true,
    blockOwnerDeletion: true,
  };
  const i = refs.findIndex((r) => r.uid === om.uid);
  if (i >= 0) refs[i] = ref;
  else refs.push(ref);
  return { ...child, metadata: { ...cm, ownerReferences: refs } };
}

/** The controller ownerReference of an object, if any. */
export function controllerOf(obj: ObjectLike): OwnerReference | undefined {
  return ((obj.metadata as { ownerReferences?: OwnerReference[] } | undefined)?.ownerReferences ?? []).find(
    (r) => r.controller,
  );
}
