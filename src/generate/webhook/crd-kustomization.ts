import type { Document } from 'yaml';
import { yamlPackage } from '../../shared/yaml-package.ts';
import { OpGenError } from '../../errors.ts';
import { parseKustomizationDocument } from '../../kustomize/kustomization-document.ts';

/** The patch files `generate webhook` owns in config/crd, as config/crd/kustomization.yaml names them. */
export const CONVERSION_PATCH_PREFIX = 'patches/webhook_in_';

function patchPath(item: unknown): string | undefined {
  if (!yamlPackage().isMap(item)) return undefined;
  const path = item.get('path');
  return typeof path === 'string' ? path : undefined;
}

function listOf(doc: Document, key: string, file: string): ReturnType<Document['createNode']> | undefined {
  const node = doc.get(key, true);
  if (node === undefined || node === null) return undefined;
  if (!yamlPackage().isSeq(node))
    throw new OpGenError(`${file}: \`${key}\` must be a list. Fix it, then run the command again.`);
  return node;
}

/**
 * config/crd/kustomization.yaml with exactly the conversion patches `patches` (paths relative to
 * config/crd) among its `patches/webhook_in_*` entries, and `kustomizeconfig.yaml` among its
 * `configurations` while there are any (and not once there are none). Other entries and comments are kept; the text is returned
 * unchanged when nothing changes.
 */
export function withConversionPatches(text: string, patches: readonly string[], file: string): string {
  const { isScalar, isSeq } = yamlPackage();
  const doc = parseKustomizationDocument(text, file);
  let changed = false;
  const existing = listOf(doc, 'patches', file);
  const present: string[] = [];
  if (existing && isSeq(existing)) {
    const keep = existing.items.filter((item) => {
      const path = patchPath(item);
      if (path?.startsWith(CONVERSION_PATCH_PREFIX) && !patches.includes(path)) {
        changed = true;
        return false;
      }
      if (path) present.push(path);
      return true;
    });
    existing.items = keep;
  }
  const missing = patches.filter((p) => !present.includes(p));
  if (missing.length > 0) {
    changed = true;
    const seq = existing && isSeq(existing) ? existing : doc.createNode([]);
    if (!isSeq(seq)) throw new Error('internal: not a sequence');
    seq.flow = false;
    for (const path of missing) seq.add(doc.createNode({ path }));
    if (!existing) doc.set('patches', seq);
  }
  if (existing && isSeq(existing) && existing.items.length === 0) doc.delete('patches');

  const configurations = listOf(doc, 'configurations', file);
  const hasConfig =
    configurations !== undefined &&
    isSeq(configurations) &&
    configurations.items.some((i) => isScalar(i) && i.value === 'kustomizeconfig.yaml');
  if (patches.length > 0 && !hasConfig) {
    changed = true;
    if (configurations && isSeq(configurations)) {
      configurations.flow = false;
      configurations.add(doc.createNode('kustomizeconfig.yaml'));
    } else doc.set('configurations', doc.createNode(['kustomizeconfig.yaml']));
  }
  if (patches.length === 0 && hasConfig && configurations && isSeq(configurations)) {
    // No conversion left: the generated kustomizeconfig.yaml goes away, so does its entry.
    changed = true;
    configurations.items = configurations.items.filter(
      (i) => !(isScalar(i) && i.value === 'kustomizeconfig.yaml'),
    );
    if (configurations.items.length === 0) doc.delete('configurations');
  }
  return changed ? doc.toString({ lineWidth: 0, indent: 2, indentSeq: true }) : text;
}
