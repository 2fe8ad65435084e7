import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { loadApiModel } from '../generate/crd/index.ts';
import { OpGenError } from '../errors.ts';
import { csvMarkers } from '../markers/csv.ts';

export interface Descriptor {
  path: string;
  displayName: string;
  description?: string;
  'x-descriptors'?: string[];
}

/** What the API types' `@csv:` markers add to one owned CRD entry of the CSV. */
export interface OwnedCrdExtras {
  displayName?: string;
  resources?: { kind: string; version: string; name?: string }[];
  specDescriptors?: Descriptor[];
  statusDescriptors?: Descriptor[];
}

/** `<plural>.<group>/<version>` → the extras from `@csv:` markers on that kind's types. */
export async function readCsvMarkers(cwd: string, apiDir: string): Promise<Map<string, OwnedCrdExtras>> {
  const out = new Map<string, OwnedCrdExtras>();
  if (!existsSync(join(cwd, apiDir))) return out;
  for (const kind of await loadApiModel({ cwd, apiDir })) {
    const extras: OwnedCrdExtras = {};
    for (const tag of kind.tags) {
      if (!csvMarkers.knows(tag.name)) continue;
      const m = csvMarkers.parse(tag, 'type', kind.location.file);
      if (!m) continue;
      if (m.spec.name === 'csv:displayName') extras.displayName = String(m.value);
      if (m.spec.name === 'csv:resource') {
        (extras.resources ??= []).push({
          kind: String(m.args.kind),
          version: String(m.args.version),
          ...(m.args.name !== undefined ? { name: String(m.args.name) } : {}),
        });
      }
    }
    for (const field of kind.fields) {
      for (const tag of field.tags) {
        if (!csvMarkers.knows(tag.name)) continue;
        const m = csvMarkers.parse(tag, 'field', field.location.file);
        if (!m) continue;
        const [root, ...rest] = field.path.split('.');
        if ((root !== 'spec' && root !== 'status') || rest.length === 0) {
          throw new OpGenError(
            `${field.location.file}:${tag.line}: @csv:descriptor on ${kind.kind}.${field.path}: only fields under spec or status have descriptors`,
          );
        }
        const path = rest.join('.').replace(/\[\]/g, '[0]');
        const descriptor: Descriptor = {
          path,
          displayName:
            m.args.displayName !== undefined
              ? String(m.args.displayName)
              : (rest.at(-1) ?? path).replace(/\[\]$/, ''),
          ...(field.description ? { description: field.description } : {}),
          ...(Array.isArray(m.args.xDescriptors) ? { 'x-descriptors': m.args.xDescriptors.map(String) } : {}),
        };
        (root === 'spec' ? (extras.specDescriptors ??= []) : (extras.statusDescriptors ??= [])).push(
          descriptor,
        );
      }
    }
    extras.specDescriptors?.sort((a, b) => a.path.localeCompare(b.path));
    extras.statusDescriptors?.sort((a, b) => a.path.localeCompare(b.path));
    if (Object.keys(extras).length > 0) out.set(`${kind.plural}.${kind.group}/${kind.version}`, extras);
  }
  return out;
}
