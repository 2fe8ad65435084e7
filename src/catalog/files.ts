/**
 * Reading a catalog file as operator-registry does: YAML documents, or (a `.json` file, what `opm
 * render` writes by default) a stream of JSON objects one after another. Blobs only: empty documents
 * are left out. A syntax error is one line naming the file and line.
 */
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { OpGenError } from '../errors.ts';
import { readYamlDocuments } from '../shared/yaml-documents.ts';

export function readCatalogFile(path: string, shown: string): unknown[] {
  const text = readFileSync(path, 'utf8');
  if (path.endsWith('.json')) return jsonStream(text, shown);
  return yamlValues(text, shown);
}

/**
 * The YAML documents of the file a flag names (`--from`, `--deprecations`), empty ones left out; a
 * missing file is one line naming the flag, a YAML error one naming the file and line.
 */
export function readFlagYamlFile(cwd: string, flag: string, file: string): unknown[] {
  const full = resolve(cwd, file);
  if (!existsSync(full)) throw new OpGenError(`${flag} ${file}: no such file`);
  return yamlValues(readFileSync(full, 'utf8'), file);
}

/** The values of `text`'s YAML documents, empty ones left out; `shown` names the file in errors. */
function yamlValues(text: string, shown: string): unknown[] {
  return readYamlDocuments(
    text,
    (p) =>
      new OpGenError(
        `${shown}:${p.line}: YAML ${p.kind === 'syntax' ? 'syntax error' : 'error'}: ${p.message}`,
      ),
  )
    .map((d) => d.value)
    .filter((v) => v !== null && v !== undefined);
}

/** Concatenated JSON values (objects or arrays), whitespace between them. */
function jsonStream(text: string, shown: string): unknown[] {
  const values: unknown[] = [];
  const lineAt = (i: number): number => text.slice(0, i).split('\n').length;
  let i = 0;
  for (;;) {
    while (i < text.length && /\s/.test(text[i]!)) i++;
    if (i >= text.length) return values;
    if (text[i] !== '{' && text[i] !== '[')
      throw new OpGenError(
        `${shown}:${lineAt(i)}: JSON syntax error: expected an object, found ${JSON.stringify(text[i])}`,
      );
    let depth = 0;
    let inString = false;
    let escaped = false;
    let end = -1;
    for (let j = i; j < text.length && end < 0; j++) {
      const c = text[j];
      if (inString) {
        if (escaped) escaped = false;
        else if (c === '\\') escaped = true;
        else if (c === '"') inString = false;
      } else if (c === '"') inString = true;
      else if (c === '{' || c === '[') depth++;
      else if ((c === '}' || c === ']') && --depth === 0) end = j;
    }
    if (end < 0) throw new OpGenError(`${shown}:${lineAt(i)}: JSON syntax error: this value never ends`);
    try {
      values.push(JSON.parse(text.slice(i, end + 1)));
    } catch (err) {
      throw new OpGenError(
        `${shown}:${lineAt(i)}: JSON syntax error in the value starting here: ${(err as Error).message}`,
      );
    }
    i = end + 1;
  }
}
