import type { JsonObject } from '../json/json.ts';
import type { Resource } from './resource.ts';
import { applyImages, applyLabels, applyReplicas, type ImageEntry, type LabelEntry } from './transformers.ts';

/** One object, copied, as the single resource of a build, for a transformer to apply to. */
function copyAsResource(object: object): Resource {
  return {
    object: structuredClone(object) as JsonObject,
    file: '',
    previousNames: [],
    previousNamespaces: [],
  };
}

/** A kustomization's `images` and `replicas` applied to a copy of one object, as kustomize applies them. */
export function applyDeploymentTransforms(
  object: JsonObject,
  transforms: { images: readonly ImageEntry[]; replicas: readonly { name: string; count: number }[] },
): JsonObject {
  const resource = copyAsResource(object);
  applyReplicas([resource], transforms.replicas);
  applyImages([resource], transforms.images);
  return resource.object;
}

/**
 * Label entries (see labelEntries) applied to a copy of one object by the renderer's own label
 * transformer, with the field specs of `kustomize build`: metadata labels always; with
 * includeSelectors, selectors and pod templates; with includeTemplates, pod templates.
 */
export function withLabels<T extends object>(object: T, entries: readonly LabelEntry[]): T {
  if (entries.length === 0) return object;
  const resource = copyAsResource(object);
  for (const entry of entries) applyLabels([resource], entry);
  return resource.object as unknown as T;
}
