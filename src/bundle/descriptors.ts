import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { loadApiModel } from '../generate/api-model.ts';
import { OpGenError } from '../errors.ts';
import { csvMarkers, type CsvMarker } from '../generate/csv-markers.ts';
import type { RawTag } from '../markers/types.ts';
import { ProblemCollector } from '../shared/problems.ts';
import { compareNames } from '../shared/compare-names.ts';

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
  const problems = new ProblemCollector();
  for (const kind of await loadApiModel({ cwd, apiDir })) {
    const extras: OwnedCrdExtras = {};
    for (const tag of kind.tags) {
      const m = problems.attempt(() => parseCsvTag(tag, 'type', kind.location.file), undefined);
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
        const m = problems.attempt(() => parseCsvTag(tag, 'field', field.location.file), undefined);
        if (!m) continue;
        const [root, ...rest] = field.path.split('.');
        if ((root !== 'spec' && root !== 'status') || rest.length === 0) {
          problems.add(
            `${field.location.file}:${tag.line}: @csv:descriptor on ${kind.kind}.${field.path}: only fields under spec or status have descriptors`,
          );
          continue;
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
    extras.specDescriptors?.sort((a, b) => compareNames(a.path, b.path));
    extras.statusDescriptors?.sort((a, b) => compareNames(a.path, b.path));
    if (Object.keys(extras).length > 0) out.set(`${kind.plural}.${kind.group}/${kind.version}`, extras);
  }
  problems.throwIfAny();
  return out;
}

/**
 * A `@csv:` tag parsed, undefined for other tags. An unknown `@csv:` tag is an error (with the
 * closest `@csv:` marker when it looks like a typo), as the CRD markers' are.
 */
function parseCsvTag(tag: RawTag, target: 'type' | 'field', file: string): CsvMarker | undefined {
  if (csvMarkers.knows(tag.name)) return csvMarkers.parse(tag, target, file);
  const suggestion = csvMarkers.suggest(tag.name);
  if (suggestion) {
    throw new OpGenError(
      `${file}:${tag.line}: @${tag.name}: unknown marker. Did you mean @${suggestion}? (see docs/bundle.md)`,
    );
  }
  if (tag.name.toLowerCase().startsWith('csv:')) {
    throw new OpGenError(
      `${file}:${tag.line}: @${tag.name}: unknown marker. The @csv: markers are ${csvMarkers.specs.map((s) => `@${s.name}`).join(', ')} (see docs/bundle.md)`,
    );
  }
  return undefined;
}
