import type { Document } from 'yaml';
import { yamlPackage } from '../shared/yaml-package.ts';
import { OpGenError } from '../errors.ts';
import { unresolvedAliasOffset, yamlErrorMessage } from '../shared/yaml-documents.ts';

/**
 * A kustomization.yaml parsed for editing with its comments kept; an error naming `file` when it is
 * not YAML or not a mapping (the commands that edit it stop before writing anything).
 */
export function parseKustomizationDocument(text: string, file: string): Document {
  const { isMap, LineCounter, parseDocument } = yamlPackage();
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter });
  const syntax = doc.errors[0];
  if (syntax) {
    // The parser's message ends with a code frame; its first line and the position are enough.
    const at = syntax.linePos?.[0];
    const place = at ? `${file}:${at.line}:${at.col}` : file;
    throw new OpGenError(
      `${place}: not valid YAML (${yamlErrorMessage(syntax.message)}). Fix it, then run the command again.`,
    );
  }
  // An alias without its anchor parses, and only fails when the edited file is printed.
  const alias = unresolvedAliasOffset(doc);
  if (alias !== undefined) {
    throw new OpGenError(
      `${file}:${lineCounter.linePos(alias).line}: not valid YAML (an alias without its anchor). Fix it, then run the command again.`,
    );
  }
  if (!isMap(doc.contents)) {
    throw new OpGenError(
      `${file}: expected a kustomization (a YAML mapping). Fix it, then run the command again.`,
    );
  }
  return doc;
}
