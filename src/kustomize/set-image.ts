import { yamlPackage } from '../shared/yaml-package.ts';
import { OpGenError } from '../errors.ts';
import { parseKustomizationDocument } from './kustomization-document.ts';

/** The manager container's image placeholder in config/manager (kubebuilder's `controller`). */
export const MANAGER_IMAGE_NAME = 'controller';

/** name, tag and digest of `IMG` as `kustomize edit set image controller=IMG` splits it. */
export function splitImageArg(image: string): { newName: string; newTag?: string; digest?: string } {
  const at = image.indexOf('@');
  if (at >= 0) return { newName: image.slice(0, at), digest: image.slice(at + 1) };
  const slash = image.lastIndexOf('/');
  const colon = image.lastIndexOf(':');
  if (colon > slash) return { newName: image.slice(0, colon), newTag: image.slice(colon + 1) };
  return { newName: image };
}

/**
 * config/manager/kustomization.yaml with its `controller` image entry pointing at `image`, as
 * `kustomize edit set image controller=<image>` (kubebuilder's `make build-installer`) writes it.
 */
export function withManagerImage(text: string, image: string, file: string): string {
  const { isMap, isSeq } = yamlPackage();
  const doc = parseKustomizationDocument(text, file);
  const { newName, newTag, digest } = splitImageArg(image);
  const entry: Record<string, string> = { name: MANAGER_IMAGE_NAME, newName };
  if (newTag !== undefined) entry.newTag = newTag;
  if (digest !== undefined) entry.digest = digest;
  const images = doc.get('images', true);
  if (images === undefined || images === null) {
    doc.set('images', doc.createNode([entry]));
  } else if (isSeq(images)) {
    const at = images.items.findIndex((i) => isMap(i) && i.get('name') === MANAGER_IMAGE_NAME);
    if (at < 0) images.add(doc.createNode(entry));
    else images.items[at] = doc.createNode(entry);
  } else {
    throw new OpGenError(`${file}: images: must be a list. Fix it, then run the command again.`);
  }
  return doc.toString({ lineWidth: 0 });
}
