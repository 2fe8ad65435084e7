/**
 * Parses the arguments of an `@rbac` marker: `key=value` pairs separated by spaces (or commas, as in
 * controller-gen), list values separated by `;`, each item optionally double-quoted (`groups=""`).
 */
export interface MarkerArgument {
  readonly key: string;
  readonly values: string[];
}

export class MarkerSyntaxError extends Error {}

function splitTopLevel(text: string, separators: string, keepEmpty: boolean): string[] {
  const parts: string[] = [];
  let current = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i] ?? '';
    if (ch === '\\' && quoted && i + 1 < text.length) {
      current += ch + (text[i + 1] ?? '');
      i++;
      continue;
    }
    if (ch === '"') quoted = !quoted;
    if (!quoted && separators.includes(ch)) {
      if (current !== '' || keepEmpty) parts.push(current);
      current = '';
      continue;
    }
    current += ch;
  }
  if (quoted) throw new MarkerSyntaxError(`unterminated quote in \`${text}\``);
  if (current !== '' || keepEmpty) parts.push(current);
  return parts;
}

function unquote(item: string): string {
  if (item.length >= 2 && item.startsWith('"') && item.endsWith('"')) {
    return item.slice(1, -1).replace(/\\(.)/g, '$1');
  }
  if (item.includes('"')) throw new MarkerSyntaxError(`stray quote in \`${item}\``);
  return item;
}

export function parseMarkerArguments(text: string): MarkerArgument[] {
  const args: MarkerArgument[] = [];
  for (const token of splitTopLevel(text.trim(), ' \t\n\r,', false)) {
    const eq = token.indexOf('=');
    if (eq <= 0) {
      throw new MarkerSyntaxError(`expected \`key=value\`, got \`${token}\``);
    }
    const key = token.slice(0, eq);
    const raw = token.slice(eq + 1);
    const values = raw === '' ? [] : splitTopLevel(raw, ';', true).map(unquote);
    args.push({ key, values });
  }
  return args;
}
