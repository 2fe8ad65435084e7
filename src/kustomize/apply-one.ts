import type { JsonObject } from '../json/json.ts';
import { applyImages, applyReplicas, type ImageEntry } from './transformers.ts';

/** A kustomization's `images` and `replicas` applied to a copy of one object, as kustomize applies them. */
export function applyDeploymentTransforms(
  object: JsonObject,
  transforms: { images: readonly ImageEntry[]; replicas: readonly { name: string; count: number }[] },
): JsonObject {
  const resource = { object: structuredClone(object), file: '', previousNames: [], previousNamespaces: [] };
  applyReplicas([resource], transforms.replicas);
  applyImages([resource], transforms.images);
  return resource.object;
}
