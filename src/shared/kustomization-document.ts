import { isMap, parseDocument, type Document } from 'yaml';
import { OpGenError } from '../errors.ts';

/**
 * A kustomization.yaml parsed for editing with its comments kept; an error naming `file` when it is
 * not YAML or not a mapping (the commands that edit it stop before writing anything).
 */
export function parseKustomizationDocument(text: string, file: string): Document {
  const doc = parseDocument(text);
  if (doc.errors.length > 0) {
    throw new OpGenError(
      `${file}: not valid YAML (${doc.errors[0]?.message}). Fix it, then run the command again.`,
    );
  }
  if (!isMap(doc.contents)) {
    throw new OpGenError(
      `${file}: expected a kustomization (a YAML mapping). Fix it, then run the command again.`,
    );
  }
  return doc;
}
