import { readFileSync } from 'node:fs';
import { relative, sep } from 'node:path';
import { loadTypeScript } from '../../source/typescript.ts';
import { goFormLines, goFormProblems } from '../go-forms.ts';
import { parseDocComment } from '../../markers/jsdoc.ts';
import { webhookMarkers, type WebhookMarker } from './markers.ts';
import { jsDocComments } from '../../source/jsdoc-comments.ts';
import { listSourceFiles } from '../../source/source-files.ts';
import { ProblemCollector } from '../../shared/problems.ts';
import { parseProblems } from '../../source/source-set.ts';

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

/** Every `@name` in a text, wherever it is: a superset of the tag names its JSDoc comments hold. */
const ANY_TAG = /@([A-Za-z][\w:.-]*)/g;

/**
 * Whether reading a file's comments could give a webhook marker or a problem: it holds a Go-form
 * webhook marker, or an `@name` that is a webhook marker or close enough to one to be reported as a
 * misspelling. Tag names are the same token wherever they stand (jsdoc.ts), so a file this passes
 * over has nothing the parse would find; the rest are parsed as before.
 */
export function mayHoldWebhookMarkers(text: string): boolean {
  if (text.includes('+kubebuilder:webhook')) return true;
  if (!text.includes('@')) return false;
  for (const m of text.matchAll(ANY_TAG)) {
    const name = m[1] ?? '';
    if (webhookMarkers.knows(name) || webhookMarkers.suggest(name) !== undefined) return true;
  }
  return false;
}

/**
 * The `@webhook` and `@webhookconfiguration` tags of every JSDoc comment of the sources under
 * `paths` (tests and declarations left out), parsed and checked against the registry. Only syntax
 * is needed, so each file is parsed on its own (no program, no type checker), and only the files
 * that may hold a marker: without any, the compiler is not even loaded. Every problem of every
 * file is reported at once; `+kubebuilder:webhook` (controller-gen's Go form) is one, naming the
 * `@webhook` to write.
 */
export function readWebhookMarkers(root: string, paths: readonly string[]): SourceWebhookMarkers {
  const webhooks: WebhookMarker[] = [];
  const configurations: WebhookMarker[] = [];
  const problems = new ProblemCollector();
  const displayOf = (path: string): string => relative(root, path).split(sep).join('/');
  const candidates = listSourceFiles(root, paths)
    .map((path) => ({ path, text: readFileSync(path, 'utf8') }))
    .filter((f) => mayHoldWebhookMarkers(f.text));
  if (candidates.length === 0) return { webhooks, configurations };
  const ts = loadTypeScript();
  const parsed = candidates.map((f) =>
    // JSDoc left unparsed: op-gen reads the comments itself, and TypeScript 6.0's JSDoc parser never
    // returns on a file ending inside a JSDoc comment after a tag like `@a-b:` (then a syntax error).
    ts.createSourceFile(
      f.path,
      f.text,
      { languageVersion: ts.ScriptTarget.ES2023, jsDocParsingMode: ts.JSDocParsingMode.ParseNone },
      false,
      ts.ScriptKind.TS,
    ),
  );
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
