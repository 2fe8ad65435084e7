import type { ArgSpec, ArgType, ArgValue, JsonValue } from './types.ts';

/** A marker argument that does not fit its schema; the registry adds file:line and the tag. */
export class MarkerArgumentError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'MarkerArgumentError';
  }
}

const WORD_START = /[A-Za-z_]/;
const KEY_CHAR = /[\w.-]/;

/** Splits `key=value key2="quoted value"` into raw (unconverted) strings, in order. */
export function splitNamedArgs(text: string): { key: string; raw: string; quoted: boolean }[] {
  const out: { key: string; raw: string; quoted: boolean }[] = [];
  let i = 0;
  const n = text.length;
  const isSpace = (c: string | undefined): boolean => c === ' ' || c === '\t' || c === '\n' || c === '\r';
  while (i < n) {
    while (i < n && isSpace(text[i])) i++;
    if (i >= n) break;
    if (!WORD_START.test(text[i] ?? '')) {
      throw new MarkerArgumentError(`expected an argument name at "${excerpt(text, i)}" (write key=value)`);
    }
    const keyStart = i;
    while (i < n && KEY_CHAR.test(text[i] ?? '')) i++;
    const key = text.slice(keyStart, i);
    if (text[i] !== '=') {
      throw new MarkerArgumentError(`argument "${key}" has no value (write ${key}=<value>)`);
    }
    i++;
    const c = text[i];
    if (c === '"' || c === "'") {
      const end = closingQuote(text, i);
      if (end < 0) throw new MarkerArgumentError(`argument "${key}": the ${c} quote is not closed`);
      const quotedText = text.slice(i, end + 1);
      out.push({
        key,
        raw: c === '"' ? decodeJsonString(quotedText, key) : quotedText.slice(1, -1),
        quoted: true,
      });
      i = end + 1;
      if (i < n && !isSpace(text[i])) {
        throw new MarkerArgumentError(`argument "${key}": expected a space after the closing quote`);
      }
    } else if (c === '{' || c === '[') {
      const end = closingBracket(text, i);
      if (end < 0) throw new MarkerArgumentError(`argument "${key}": the ${c} is not closed`);
      out.push({ key, raw: text.slice(i, end + 1), quoted: false });
      i = end + 1;
    } else {
      const start = i;
      while (i < n && !isSpace(text[i])) i++;
      out.push({ key, raw: text.slice(start, i), quoted: false });
    }
  }
  return out;
}

function excerpt(text: string, i: number): string {
  const s = text.slice(i, i + 20);
  return i + 20 < text.length ? `${s}...` : s;
}

function closingQuote(text: string, start: number): number {
  const q = text[start];
  for (let i = start + 1; i < text.length; i++) {
    if (text[i] === '\\') i++;
    else if (text[i] === q) return i;
  }
  return -1;
}

function closingBracket(text: string, start: number): number {
  let depth = 0;
  for (let i = start; i < text.length; i++) {
    const c = text[i];
    if (c === '"') {
      const end = closingQuote(text, i);
      if (end < 0) return -1;
      i = end;
    } else if (c === '{' || c === '[') depth++;
    else if (c === '}' || c === ']') {
      depth--;
      if (depth === 0) return i;
    }
  }
  return -1;
}

function decodeJsonString(quoted: string, what: string): string {
  try {
    return JSON.parse(quoted.replace(/\n/g, '\\n')) as string;
  } catch {
    throw new MarkerArgumentError(`${what}: ${quoted} is not a valid quoted string`);
  }
}

/** Splits `a;b;"c;d"` on semicolons outside quotes and brackets. */
export function splitList(text: string): string[] {
  const items: string[] = [];
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '"' || c === "'") {
      const end = closingQuote(text, i);
      if (end >= 0) i = end;
    } else if (c === '{' || c === '[') {
      const end = closingBracket(text, i);
      if (end >= 0) i = end;
    } else if (c === ';') {
      items.push(text.slice(start, i).trim());
      start = i + 1;
    }
  }
  items.push(text.slice(start).trim());
  // `a;b;` (a trailing separator) is allowed.
  if (items.length > 1 && items[items.length - 1] === '') items.pop();
  return items;
}

function jsonOrWord(text: string, what: string): JsonValue {
  const t = text.trim();
  if (t === '') throw new MarkerArgumentError(`${what}: empty value`);
  const first = t[0] ?? '';
  if (/[{["0-9-]/.test(first) || t === 'true' || t === 'false' || t === 'null') {
    try {
      return JSON.parse(t) as JsonValue;
    } catch (err) {
      if (/[{["]/.test(first)) {
        throw new MarkerArgumentError(`${what}: ${t} is not valid JSON (${(err as Error).message})`);
      }
    }
  }
  if (first === "'" && t.endsWith("'") && t.length >= 2) return t.slice(1, -1);
  return t;
}

function toNumber(text: string, what: string, integer: boolean): number {
  const t = text.trim();
  const v = t === '' ? NaN : Number(t);
  if (!Number.isFinite(v) || (integer && !Number.isInteger(v))) {
    throw new MarkerArgumentError(`${what}: expected ${integer ? 'an integer' : 'a number'}, got "${t}"`);
  }
  return v;
}

function unquote(text: string, what: string): string {
  const t = text.trim();
  if (t.startsWith('"')) return decodeJsonString(t, what);
  if (t.startsWith("'") && t.endsWith("'") && t.length >= 2) return t.slice(1, -1);
  return t;
}

/**
 * Converts one argument's text to its value. `quoted` (named arguments only) means the text came
 * from a quoted string: it is then a string whatever the type says, except for lists.
 */
export function convertArg(
  type: ArgType,
  text: string,
  what: string,
  spec?: Pick<ArgSpec, 'oneOf' | 'required'>,
  quoted = false,
): ArgValue {
  let value: ArgValue;
  switch (type) {
    case 'raw':
      value = text.trim();
      break;
    case 'string':
      value = quoted ? text : unquote(text, what);
      break;
    case 'int':
    case 'number':
      value = toNumber(text, what, type === 'int');
      break;
    case 'bool': {
      const t = text.trim();
      if (t === '' || t === 'true') value = true;
      else if (t === 'false') value = false;
      else throw new MarkerArgumentError(`${what}: expected true or false, got "${t}"`);
      break;
    }
    case 'string[]':
      value = splitList(text).map((item) => unquote(item, what));
      if (value.some((v) => v === ''))
        throw new MarkerArgumentError(`${what}: empty item in "${text.trim()}"`);
      break;
    case 'json':
      value = quoted ? text : jsonOrWord(text, what);
      break;
    case 'json[]':
      value = splitList(text).map((item) => jsonOrWord(item, what));
      break;
  }
  if (spec?.oneOf && typeof value === 'string' && !spec.oneOf.includes(value)) {
    throw new MarkerArgumentError(`${what}: "${value}" is not one of ${spec.oneOf.join(', ')}`);
  }
  if (spec?.required && (value === '' || (Array.isArray(value) && value.length === 0))) {
    throw new MarkerArgumentError(`${what}: a value is required`);
  }
  return value;
}

/** Parses the named arguments of a marker against their schema. */
export function parseNamedArgs(
  text: string,
  specs: Readonly<Record<string, ArgSpec>>,
): Record<string, ArgValue> {
  const result: Record<string, ArgValue> = {};
  const known = Object.keys(specs);
  for (const { key, raw, quoted } of splitNamedArgs(text)) {
    // Argument names are matched case-insensitively (controller-gen writes JSONPath, we write jsonPath).
    const name = known.find((k) => k === key) ?? known.find((k) => k.toLowerCase() === key.toLowerCase());
    const spec = name === undefined ? undefined : specs[name];
    if (name === undefined || spec === undefined) {
      throw new MarkerArgumentError(
        `unknown argument "${key}"; known arguments: ${known.join(', ') || '(none)'}`,
      );
    }
    if (name in result) throw new MarkerArgumentError(`argument "${name}" is given twice`);
    result[name] = convertArg(
      spec.type === 'raw' ? 'string' : spec.type,
      raw,
      `argument "${name}"`,
      spec,
      quoted,
    );
  }
  for (const [name, spec] of Object.entries(specs)) {
    if (spec.required && !(name in result)) {
      throw new MarkerArgumentError(`missing required argument "${name}" (${spec.help})`);
    }
  }
  return result;
}
