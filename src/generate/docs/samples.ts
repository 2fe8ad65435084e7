import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { OpGenError } from '../../errors.ts';
import { readYamlDocuments } from '../../shared/yaml-documents.ts';

/** One object from the samples folder, as written there. */
export interface Sample {
  /** File relative to the project root. */
  readonly file: string;
  /** `group/version` of the object. */
  readonly apiVersion: string;
  readonly kind: string;
  /** The object's YAML document, as written. */
  readonly text: string;
}

/**
 * Every object in the YAML files of `dir` (kubebuilder's `config/samples`; kustomization files are
 * not objects), by file name; a missing folder has none.
 */
export function readSamples(cwd: string, dir: string): Sample[] {
  const full = resolve(cwd, dir);
  if (!existsSync(full)) return [];
  const files = readdirSync(full, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && /\.ya?ml$/.test(e.name) && !/^kustomization\.ya?ml$/.test(e.name))
    .map((e) => join(e.parentPath, e.name))
    .sort();
  const samples: Sample[] = [];
  for (const path of files) {
    const file = relative(cwd, path);
    const docs = readYamlDocuments(
      readFileSync(path, 'utf8'),
      (p) =>
        new OpGenError(
          `${file}:${p.line}: not valid YAML (${p.message}). Fix the sample or move it out of ${dir}.`,
        ),
    );
    for (const { value, document: doc } of docs) {
      if (typeof value !== 'object' || value === null) continue;
      const { apiVersion, kind } = value as { apiVersion?: unknown; kind?: unknown };
      if (typeof apiVersion !== 'string' || typeof kind !== 'string') continue;
      // A comment above the first object is about the file, not the object.
      const text = doc
        .toString()
        .replace(/^---\n/, '')
        .replace(/^(#[^\n]*\n)+/, '');
      samples.push({ file, apiVersion, kind, text });
    }
  }
  return samples;
}
