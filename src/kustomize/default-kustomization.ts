import { OpGenError } from '../errors.ts';
import { applyDeploymentTransforms } from './apply-one.ts';
import type { ImageEntry } from './transformers.ts';
import type { JsonObject } from '../json/json.ts';

/** The manager patch `op-gen create webhook` adds: OLM mounts the webhook certificate itself. */
const OLM_REPLACED_PATCHES = new Set(['manager_webhook_patch.yaml']);

/** What the bundle applies of config/default/kustomization.yaml, and how. */
const APPLIED = new Set([
  'apiVersion',
  'kind',
  'metadata',
  'resources', // folders read one by one, files as config/default's own objects
  'namespace', // OLM installs into the namespace of the OperatorGroup
  'namePrefix',
  'labels',
  'commonLabels',
  'images', // on the manager Deployment
  'replicas', // on the manager Deployment
  'patches', // only the webhook manager patch (OLM replaces it)
]);

/**
 * Checks config/default's kustomization for what the bundle does not apply (it builds the CSV from
 * the folders config/default lists, not from `kustomize build`): each such field is an error naming
 * the file and field. Returns config/default's images and replicas, which the bundle applies to the
 * manager Deployment.
 */
export function checkDefaultKustomization(
  kustomization: Record<string, unknown> | undefined,
  file: string,
): { images: ImageEntry[]; replicas: { name: string; count: number }[] } {
  if (!kustomization) return { images: [], replicas: [] };
  for (const key of Object.keys(kustomization)) {
    if (!APPLIED.has(key)) {
      throw new OpGenError(
        `${file}: ${key}: \`op-gen bundle\` does not apply this field of config/default (it applies resources, namePrefix, labels, commonLabels, images, replicas). Move it into the folder it changes (config/manager, config/rbac, ...), where it is rendered, or remove it.`,
      );
    }
  }
  const patches = kustomization.patches;
  if (patches !== undefined && patches !== null) {
    if (!Array.isArray(patches)) throw new OpGenError(`${file}: patches: must be a list`);
    patches.forEach((p: unknown, i) => {
      const path = (p as { path?: unknown } | null)?.path;
      if (typeof path !== 'string' || !OLM_REPLACED_PATCHES.has(path)) {
        throw new OpGenError(
          `${file}: patches[${i}]: \`op-gen bundle\` does not apply config/default's patches (only ${[...OLM_REPLACED_PATCHES].join(', ')}, which OLM replaces). Move the patch into config/manager/kustomization.yaml, where it is rendered.`,
        );
      }
    });
  }
  const images = Array.isArray(kustomization.images) ? (kustomization.images as ImageEntry[]) : [];
  const replicas = Array.isArray(kustomization.replicas)
    ? (kustomization.replicas as { name: string; count: number }[])
    : [];
  return { images, replicas };
}

/** config/default's images and replicas on (a copy of) the manager Deployment. */
export function withDefaultTransforms<T extends object>(
  deployment: T,
  transforms: { images: ImageEntry[]; replicas: { name: string; count: number }[] },
): T {
  if (transforms.images.length === 0 && transforms.replicas.length === 0) return deployment;
  return applyDeploymentTransforms(deployment as JsonObject, transforms) as unknown as T;
}
