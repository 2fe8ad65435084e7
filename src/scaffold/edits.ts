import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { yamlPackage } from '../shared/yaml-package.ts';
import { OpGenError } from '../errors.ts';
import { parseKustomizationDocument } from '../kustomize/kustomization-document.ts';

/**
 * In-place edits of files `init` wrote and `create api` extends: lines inserted above marker
 * comments (like kubebuilder's `+kubebuilder:scaffold:*`) and entries added to kustomization lists.
 * Both are pure functions of the file text so that a failed edit writes nothing.
 */

/** Inserts `line` (indented like the marker) above the line holding `marker`, unless present. */
export function insertAboveMarker(text: string, marker: string, line: string, file: string): string {
  const lines = text.split('\n');
  const at = lines.findIndex((l) => l.trim() === `// ${marker}`);
  if (at < 0) {
    throw new OpGenError(
      `${file}: the marker comment \`// ${marker}\` is missing, so op-gen cannot add \`${line}\`. ` +
        'Put the marker back where new entries belong (see a freshly scaffolded project), then run the command again.',
    );
  }
  if (lines.some((l) => l.trim() === line.trim())) return text;
  const indent = /^\s*/.exec(lines[at] ?? '')?.[0] ?? '';
  lines.splice(at, 0, `${indent}${line}`);
  return lines.join('\n');
}

/** Adds `entry` to the top-level `resources` list of a kustomization.yaml, keeping its comments. */
export function addKustomizeResource(text: string, entry: string, file: string): string {
  const { isSeq } = yamlPackage();
  const doc = parseKustomizationDocument(text, file);
  const resources = doc.get('resources', true);
  if (resources === undefined || resources === null) {
    doc.set('resources', doc.createNode([entry]));
  } else if (isSeq(resources)) {
    const items = resources.items.map((item) => String((item as { value?: unknown }).value ?? item));
    if (items.includes(entry)) return text;
    resources.flow = false;
    resources.add(doc.createNode(entry));
  } else {
    throw new OpGenError(`${file}: \`resources\` must be a list. Fix it, then run the command again.`);
  }
  return doc.toString({ lineWidth: 0, indent: 2, indentSeq: true });
}

/**
 * A file of the scaffolded project that `command` edits (`op-gen create api`): an error naming what
 * to do when it is gone.
 */
export function readScaffoldedFile(root: string, path: string, command: string): string {
  const full = join(root, path);
  if (!existsSync(full)) {
    throw new OpGenError(
      `${full} is missing: \`${command}\` adds entries to it. Restore it from a freshly scaffolded project, then run the command again.`,
    );
  }
  return readFileSync(full, 'utf8');
}
