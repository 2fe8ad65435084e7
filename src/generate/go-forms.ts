import { GoFormIndex } from '../markers/go-form.ts';
import type { DocComment } from '../markers/jsdoc.ts';
import type { MarkerSpec } from '../markers/types.ts';
import { MARKER_TABLES } from './generator-markers.ts';

/**
 * The controller-gen names of every marker table the generators declare (generator-markers.ts: CRD,
 * RBAC, webhook, and bundle's CSV): its specs' `controllerGen` names are all a table needs for its
 * Go-form hints.
 */
export const goForms = new GoFormIndex(MARKER_TABLES.flatMap((table) => table.specs));

/** Whether a tag name is an op-gen marker of any table (`@k8s:optional` is op-gen's own alias). */
function opGenTag(name: string): boolean {
  return MARKER_TABLES.some((table) => table.knows(name));
}

/** The option for parseDocComment that recognises controller-gen marker lines. */
export const goFormLines = { isGoFormLine: (line: string): boolean => goForms.isGoFormLine(line) };

/**
 * `file:line: +kubebuilder:validation:Minimum=0 is controller-gen's (Go) form, which op-gen does not
 * read. Write @minimum 0`: the error for a Go-form marker, `written` as the user wrote it.
 */
export function goFormMessage(file: string, line: number, written: string, docs = 'docs/markers.md'): string {
  const hint = goForms.hint(written.replace(/^[+@]/, ''));
  const head = `${file}:${line}: ${written.trim()} is controller-gen's (Go) form, which op-gen does not read`;
  if (hint.unsupported) return `${head}; op-gen has no such marker: ${hint.unsupported}`;
  if (hint.write) return `${head}. Write ${hint.write} (see ${docs})`;
  return `${head}. Write the op-gen marker (JSDoc tag) instead (see ${docs})`;
}

/**
 * The Go-form markers of a doc comment: `+...` lines and `@kubebuilder:...`-style tags. `accept`
 * limits them to one generator's markers (generate rbac reports only its own).
 */
export function goFormProblems(
  doc: Pick<DocComment, 'goForm' | 'tags'>,
  file: string,
  options: { accept?: (spec: MarkerSpec<unknown> | undefined) => boolean; docs?: string } = {},
): string[] {
  const out: string[] = [];
  const accept = options.accept ?? (() => true);
  for (const g of doc.goForm) {
    if (accept(goForms.hint(g.text).spec)) out.push(goFormMessage(file, g.line, `+${g.text}`, options.docs));
  }
  for (const tag of doc.tags) {
    if (opGenTag(tag.name) || !goForms.recognizes(tag.name)) continue;
    const written = `@${tag.name}${tag.text ? ` ${tag.text.split('\n')[0]}` : ''}`;
    if (accept(goForms.hint(written.slice(1)).spec))
      out.push(goFormMessage(file, tag.line, written, options.docs));
  }
  return out;
}
