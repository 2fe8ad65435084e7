/** CEL reserved words: Kubernetes exposes such property names as `__name__`. */
export const CEL_RESERVED: ReadonlySet<string> = new Set([
  'true',
  'false',
  'null',
  'in',
  'as',
  'break',
  'const',
  'continue',
  'else',
  'for',
  'function',
  'if',
  'import',
  'let',
  'loop',
  'package',
  'namespace',
  'return',
  'var',
  'void',
  'while',
]);

/** The property name as CEL sees it (apiserver's escaping of reserved words and odd characters). */
export function celPropertyName(name: string): string {
  if (CEL_RESERVED.has(name)) return `__${name}__`;
  return name
    .replace(/__/g, '__underscores__')
    .replace(/\./g, '__dot__')
    .replace(/-/g, '__dash__')
    .replace(/\//g, '__slash__');
}

/** A CEL string literal: single-quoted when that needs no escapes, else a JSON (double-quoted) string. */
export function celString(value: string): string {
  return /^[^'\\\n\r]*$/.test(value) ? `'${value}'` : JSON.stringify(value);
}
