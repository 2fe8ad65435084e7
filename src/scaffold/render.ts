import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import Handlebars from 'handlebars';
import { OpGenError } from '../errors.ts';

/**
 * The one template engine of the scaffolds: every file under `templates/<set>/` ending in `.hbs` is a
 * handlebars template; its path (relative to the set, `.hbs` removed) is a template too, so
 * `src/api/{{group}}/{{version}}/{{kindFile}}.ts.hbs` lands where the resource says. A path segment
 * starting with `_` becomes a dot file (`_gitignore` -> `.gitignore`: npm drops real dot files from
 * published packages). Output is plain text: nothing is HTML-escaped. A template that renders to
 * whitespace only produces no file (optional files, e.g. the license header).
 */

export interface RenderedFile {
  /** Path relative to the project root, with `/` separators. */
  readonly path: string;
  readonly content: string;
}

/** op-gen's `templates/` folder: two levels above this module in both src/ and dist/. */
export const TEMPLATES_DIR = fileURLToPath(new URL('../../templates/', import.meta.url));

const engine = Handlebars.create();
/** `{{json value}}`: a JSON string literal, for values inside JSON and YAML files. */
engine.registerHelper('json', (value: unknown) => JSON.stringify(value));
const compiled = new Map<string, HandlebarsTemplateDelegate>();

function compile(source: string, name: string): HandlebarsTemplateDelegate {
  let template = compiled.get(name);
  if (!template) {
    template = engine.compile(source, { noEscape: true, strict: true });
    compiled.set(name, template);
  }
  return template;
}

function renderString(source: string, name: string, context: object): string {
  try {
    return compile(source, name)(context);
  } catch (err) {
    throw new OpGenError(`template ${name}: ${(err as Error).message}`, { exitCode: 70, cause: err });
  }
}

function listTemplates(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { recursive: true })) {
    const path = join(dir, String(entry));
    if (path.endsWith('.hbs') && statSync(path).isFile()) out.push(path);
  }
  return out.sort();
}

/** Renders every template of `templates/<set>` with `context`; sorted by output path. */
export function renderTemplateSet(
  set: string,
  context: object,
  root: string = TEMPLATES_DIR,
): RenderedFile[] {
  const dir = join(root, set);
  const files = listTemplates(dir).flatMap((file) => {
    const rel = relative(dir, file).split(sep).join('/').slice(0, -'.hbs'.length);
    const path = renderString(rel, `${set}/${rel} (path)`, context)
      .split('/')
      .map((segment) => (segment.startsWith('_') ? `.${segment.slice(1)}` : segment))
      .join('/');
    const content = renderString(readFileSync(file, 'utf8'), `${set}/${rel}`, context);
    return content.trim() === '' ? [] : [{ path, content }];
  });
  return files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}
