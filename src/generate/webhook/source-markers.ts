import { readFileSync } from 'node:fs';
import { relative, sep } from 'node:path';
import { ts } from 'ts-morph';
import { OpGenError } from '../../errors.ts';
import { parseDocComment } from '../../markers/jsdoc.ts';
import { webhookMarkers, type WebhookMarker } from '../../markers/webhook.ts';
import { jsDocComments } from '../rbac/rbac-markers.ts';
import { listSourceFiles } from '../rbac/source-files.ts';

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
 * is needed, so each file is parsed on its own (no program, no type checker).
 */
export function readWebhookMarkers(root: string, paths: readonly string[]): SourceWebhookMarkers {
  const webhooks: WebhookMarker[] = [];
  const configurations: WebhookMarker[] = [];
  for (const path of listSourceFiles(root, paths)) {
    const text = readFileSync(path, 'utf8');
    if (!text.includes('@')) continue;
    const display = relative(root, path).split(sep).join('/');
    const sourceFile = ts.createSourceFile(path, text, ts.ScriptTarget.ES2023, false, ts.ScriptKind.TS);
    for (const range of jsDocComments(sourceFile)) {
      const line = sourceFile.getLineAndCharacterOfPosition(range.pos).line + 1;
      const comment = parseDocComment(text.slice(range.pos, range.end), line);
      for (const tag of comment.tags) {
        if (!webhookMarkers.knows(tag.name)) {
          const suggestion = webhookMarkers.suggest(tag.name);
          if (suggestion) {
            throw new OpGenError(
              `${display}:${tag.line}: @${tag.name}: unknown tag. Did you mean @${suggestion}? (see docs/markers.md)`,
            );
          }
          continue;
        }
        const parsed = webhookMarkers.parse({ ...tag, text: coreGroupAlias(tag.text) }, 'package', display);
        if (!parsed) continue;
        (parsed.spec.name === 'webhook' ? webhooks : configurations).push(parsed);
      }
    }
  }
  return { webhooks, configurations };
}
