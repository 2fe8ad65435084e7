import { readFileSync } from 'node:fs';
import { relative, sep } from 'node:path';
import type { ts as TS } from 'ts-morph';
import { ts } from '../../source/ts.ts';
import { goFormLines, goFormProblems } from '../go-forms.ts';
import { parseDocComment } from '../../markers/jsdoc.ts';
import { webhookMarkers, type WebhookMarker } from './markers.ts';
import { jsDocComments } from '../rbac/rbac-markers.ts';
import { listSourceFiles } from '../../source/source-program.ts';
import { ProblemCollector } from '../../shared/problems.ts';
import { parseProblems } from '../../shared/ts-diagnostics.ts';

/** `groups=""` names the core group, as in controller-gen; the list parser takes it as `core`. */
function coreGroupAlias(text: string): string {
  return text.replace(/(^|\s)groups=(\S*)/g, (_m, lead: string, value: string) => {
    const items = value.split(';').map((item) => (item === '""' || item === "''" ? 'core' : item));
    return `${lead}groups=${items.join(';')}`;
  });
}

export interface SourceWebhookMarkers {
  /** `@webhook` markers in file order. */
  readonly webhooks: readonly WebhookMarker[];
  /** `@webhookconfiguration` markers. */
  readonly configurations: readonly WebhookMarker[];
}

/**
 * The `@webhook` and `@webhookconfiguration` tags of every JSDoc comment of the sources under
 * `paths` (tests and declarations left out), parsed and checked against the registry. Only syntax
 * is needed, so each file is parsed on its own (no program, no type checker). Every problem of every
 * file is reported at once; `+kubebuilder:webhook` (controller-gen's Go form) is one, naming the
 * `@webhook` to write.
 */
export function readWebhookMarkers(root: string, paths: readonly string[]): SourceWebhookMarkers {
  const webhooks: WebhookMarker[] = [];
  const configurations: WebhookMarker[] = [];
  const problems = new ProblemCollector();
  const displayOf = (path: string): string => relative(root, path).split(sep).join('/');
  const parsed: TS.SourceFile[] = [];
  for (const path of listSourceFiles(root, paths)) {
    const text = readFileSync(path, 'utf8');
    if (!text.includes('@') && !text.includes('+kubebuilder:webhook')) continue;
    parsed.push(ts.createSourceFile(path, text, ts.ScriptTarget.ES2023, false, ts.ScriptKind.TS));
  }
  // A file that does not parse is not read: its comments may not be where they seem. The others are,
  // so one run reports every problem.
  const syntax = parseProblems(ts, parsed, displayOf);
  for (const p of [...syntax.values()].flat()) problems.add(p.text);
  for (const sourceFile of parsed.filter((f) => !syntax.has(f))) {
    const path = sourceFile.fileName;
    const text = sourceFile.text;
    const display = displayOf(path);
    for (const range of jsDocComments(sourceFile)) {
      const line = sourceFile.getLineAndCharacterOfPosition(range.pos).line + 1;
      const comment = parseDocComment(text.slice(range.pos, range.end), line, goFormLines);
      const webhookSpec = (spec: { readonly name: string } | undefined): boolean =>
        spec !== undefined && webhookMarkers.knows(spec.name);
      for (const p of goFormProblems(comment, display, { accept: webhookSpec })) problems.add(p);
      for (const tag of comment.tags) {
        if (!webhookMarkers.knows(tag.name)) {
          const suggestion = webhookMarkers.suggest(tag.name);
          if (suggestion) {
            problems.add(
              `${display}:${tag.line}: @${tag.name}: unknown tag. Did you mean @${suggestion}? (see docs/markers.md)`,
            );
          }
          continue;
        }
        const parsed = problems.attempt(
          () => webhookMarkers.parse({ ...tag, text: coreGroupAlias(tag.text) }, 'package', display),
          undefined,
        );
        if (!parsed) continue;
        (parsed.spec.name === 'webhook' ? webhooks : configurations).push(parsed);
      }
    }
  }
  problems.throwIfAny();
  return { webhooks, configurations };
}
