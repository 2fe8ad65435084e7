/**
 * A YAML writer for generated manifests (CRDs, RBAC, ...): plain objects, arrays, strings, numbers,
 * booleans and null, written exactly as the `yaml` package's `stringify` writes them with the options
 * of `toYaml` (block style, 2-space indent with indented sequences, no line folding, YAML 1.1
 * quoting, no directives, no aliases). It is several times faster: no document tree is built.
 *
 * For anything outside the cases it implements (a key that would need quoting over several lines,
 * control characters, a multi-line string that must be quoted, `<<`, values other than JSON-like
 * ones) it returns undefined and the caller uses the `yaml` package instead. The byte equality with
 * the `yaml` package is a property test (test/unit/shared/yaml-writer.test.ts) plus every golden.
 */

/**
 * Plain scalars the YAML 1.1 schema would read as something other than a string: null, booleans,
 * integers (binary, octal, decimal, hex, sexagesimal), floats, timestamps, the merge key. The same
 * tests as the `yaml` package's 1.1 schema tags (a unit test compares them).
 */
export const YAML11_IMPLICIT_TAG_TESTS: readonly RegExp[] = [
  /^(?:~|[Nn]ull|NULL)?$/,
  /^(?:Y|y|[Yy]es|YES|[Tt]rue|TRUE|[Oo]n|ON)$/,
  /^(?:N|n|[Nn]o|NO|[Ff]alse|FALSE|[Oo]ff|OFF)$/,
  /^[-+]?0b[0-1_]+$/,
  /^[-+]?0[0-7_]+$/,
  /^[-+]?[0-9][0-9_]*$/,
  /^[-+]?0x[0-9a-fA-F_]+$/,
  /^(?:[-+]?\.(?:inf|Inf|INF)|\.nan|\.NaN|\.NAN)$/,
  /^[-+]?(?:[0-9][0-9_]*)?(?:\.[0-9_]*)?[eE][-+]?[0-9]+$/,
  /^[-+]?(?:[0-9][0-9_]*)?\.[0-9_]*$/,
  /^<<$/,
  /^[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+$/,
  /^[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*$/,
  /^([0-9]{4})-([0-9]{1,2})-([0-9]{1,2})(?:(?:t|T|[ \t]+)([0-9]{1,2}):([0-9]{1,2}):([0-9]{1,2}(\.[0-9]+)?)(?:[ \t]*(Z|[-+][012]?[0-9](?::[0-9]{2})?))?)?$/,
];

/** Characters that force double quotes with escapes (control characters, lone surrogates). */
// eslint-disable-next-line no-control-regex -- control characters are what it looks for
const NEEDS_ESCAPES = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u{D800}-\u{DFFF}]/u;
/** A string that cannot be a plain scalar (indicator first, `: `, ` #`, trailing space or colon, ...). */
const NOT_PLAIN = /^[\n\t ,[\]{}#&*!|>'"%@`]|^[?-]$|^[?-][ \t]|[\n:][ \t]|[ \t]\n|[\n\t ]#|[\n\t :]$/;
const DOCUMENT_MARKER = /^(%|---|\.\.\.)/m;
/** Simple strings (the common case) need none of the checks above except the implicit-tag ones. */
const SIMPLE = /^[A-Za-z_/][A-Za-z0-9_./() ,=;'-]*[A-Za-z0-9_./)]$|^[A-Za-z_/]$/;
const SIMPLE_NOT_PLAIN = /[:#]/;

/** The tests a plain scalar starting with a letter can match: null, true, false, and `e5`-like floats. */
const [NULL_TEST, TRUE_TEST, FALSE_TEST] = YAML11_IMPLICIT_TAG_TESTS as [RegExp, RegExp, RegExp];
const LETTER_FLOAT = /^[eE][-+]?[0-9]+$/;
const BOOL_OR_NULL_START = /^[nNyYtTfFoO]/;
const OTHER_START = /^[~0-9+\-.<]/;
const ARRAY_INDEX = /^(?:0|[1-9][0-9]*)$/;

/** Thrown inside the writer when a value needs the `yaml` package. */
class Unsupported {}
const UNSUPPORTED = new Unsupported();

function readsAsOtherType(value: string): boolean {
  // Every test needs a first character of `~nNyYtTfFoOeE0-9+-.<` or the empty string; those starting
  // with a letter are null and the booleans (at most 5 characters) and YAML 1.1 floats with an
  // exponent and no mantissa (`E0`, `e-5`: the fuzz of random values found them written plain).
  // (Indexed loops and module-level patterns: a one-shot run does not optimise this code, and there
  // a `for...of` step or a regular expression literal allocates; `type` is every schema's key.)
  const c = value.charCodeAt(0);
  if ((c >= 65 && c <= 90) || (c >= 97 && c <= 122)) {
    if (LETTER_FLOAT.test(value)) return true;
    if (value.length > 5 || !BOOL_OR_NULL_START.test(value)) return false;
    return NULL_TEST.test(value) || TRUE_TEST.test(value) || FALSE_TEST.test(value);
  }
  if (value.length > 0 && !OTHER_START.test(value)) return false;
  for (let i = 0; i < YAML11_IMPLICIT_TAG_TESTS.length; i++)
    if ((YAML11_IMPLICIT_TAG_TESTS[i] as RegExp).test(value)) return true;
  return false;
}

/** A single-line string in quotes, as the `yaml` package chooses them. */
function quoted(value: string): string {
  if (value.includes('"') && !value.includes("'")) return `'${value.replace(/'/g, "''")}'`;
  return JSON.stringify(value);
}

function key(k: string): string {
  if (k.length <= 1024 && SIMPLE.test(k) && !SIMPLE_NOT_PLAIN.test(k) && !readsAsOtherType(k)) return k;
  if (k.includes('\n') || NEEDS_ESCAPES.test(k) || DOCUMENT_MARKER.test(k) || k === '<<') throw UNSUPPORTED;
  const s = NOT_PLAIN.test(k) || readsAsOtherType(k) ? quoted(k) : k;
  if (s.length > 1024) throw UNSUPPORTED;
  return s;
}

/** A string value whose block content (if it becomes a block scalar) is indented by `indent`. */
function stringValue(value: string, indent: string): string {
  if (SIMPLE.test(value) && !SIMPLE_NOT_PLAIN.test(value)) {
    return readsAsOtherType(value) ? quoted(value) : value;
  }
  if (NEEDS_ESCAPES.test(value) || value === '<<') throw UNSUPPORTED;
  const multiLine = value.includes('\n');
  if (NOT_PLAIN.test(value)) return multiLine ? literal(value, indent) : quoted(value);
  if (multiLine) return literal(value, indent);
  return readsAsOtherType(value) ? quoted(value) : value;
}

/** A block literal (`|`, `|-`, `|+`, with an indentation indicator where the text starts with spaces). */
function literal(input: string, indent: string): string {
  // The `yaml` package quotes a string whose last line is only whitespace: quoted over lines, not here.
  if (/\n[\t ]+$/.test(input)) throw UNSUPPORTED;
  let value = input;
  let endStart = value.length;
  for (; endStart > 0; --endStart) {
    const ch = value[endStart - 1];
    if (ch !== '\n' && ch !== '\t' && ch !== ' ') break;
  }
  let end = value.substring(endStart);
  const endNl = end.indexOf('\n');
  let chomp: string;
  if (endNl === -1) chomp = '-';
  else if (value === end || endNl !== end.length - 1) chomp = '+';
  else chomp = '';
  if (chomp === '+') throw UNSUPPORTED; // "keep" changes how the next line is written; rare
  if (end) {
    value = value.slice(0, -end.length);
    if (end.endsWith('\n')) end = end.slice(0, -1);
    end = end.replace(/(^|(?<!\n))\n+(?!\n|$)/g, `$&${indent}`);
  }
  let startWithSpace = false;
  let startEnd = 0;
  let startNl = -1;
  for (; startEnd < value.length; ++startEnd) {
    const ch = value[startEnd];
    if (ch === ' ') startWithSpace = true;
    else if (ch === '\n') startNl = startEnd;
    else break;
  }
  let start = value.substring(0, startNl < startEnd ? startNl + 1 : startEnd);
  if (start) {
    value = value.substring(start.length);
    start = start.replace(/\n+/g, `$&${indent}`);
  }
  const header = (startWithSpace ? '2' : '') + chomp;
  value = value.replace(/\n+/g, `$&${indent}`);
  return `|${header}\n${indent}${start}${value}${end}`;
}

function scalar(value: unknown, indent: string): string {
  switch (typeof value) {
    case 'string':
      return stringValue(value, indent);
    case 'number':
      if (Object.is(value, -0)) return '-0';
      if (Number.isFinite(value)) return JSON.stringify(value);
      return Number.isNaN(value) ? '.nan' : value < 0 ? '-.inf' : '.inf';
    case 'boolean':
      return value ? 'true' : 'false';
    case 'object':
      if (value === null) return 'null';
      throw UNSUPPORTED;
    default:
      throw UNSUPPORTED;
  }
}

function isPlainObject(value: object): value is Record<string, unknown> {
  const proto = Object.getPrototypeOf(value) as unknown;
  return (proto === Object.prototype || proto === null) && !('toJSON' in value);
}

interface Writer {
  readonly sortKeys: boolean;
  readonly out: string[];
}

/** The entries that are written: undefined values are left out, as the `yaml` package does. */
function entries(w: Writer, obj: Record<string, unknown>): string[] {
  let keys = Object.keys(obj);
  for (let i = 0; i < keys.length; i++)
    if (obj[keys[i]!] === undefined) {
      keys = keys.filter((k) => obj[k] !== undefined);
      break;
    }
  if (!w.sortKeys) return keys;
  // sortKeysDeep inserts keys in sorted order into a new object, whose own key order puts integer
  // keys ("0", "12") first, numerically (the language's rule); Object.keys has them first already.
  let ints = 0;
  while (ints < keys.length && isArrayIndex(keys[ints]!)) ints++;
  if (ints === 0) return sortStrings(keys);
  return [...keys.slice(0, ints), ...keys.slice(ints).sort()];
}

/**
 * `keys.sort()` (UTF-16 code unit order, as `<` compares strings), in place; a schema node has a
 * handful of keys, which an insertion sort orders without the copy `Array.prototype.sort` makes.
 */
function sortStrings(keys: string[]): string[] {
  if (keys.length > 16) return keys.sort();
  for (let i = 1; i < keys.length; i++) {
    const k = keys[i]!;
    let j = i - 1;
    while (j >= 0 && keys[j]! > k) {
      keys[j + 1] = keys[j]!;
      j--;
    }
    keys[j + 1] = k;
  }
  return keys;
}

function isArrayIndex(k: string): boolean {
  return ARRAY_INDEX.test(k) && Number(k) < 4294967295;
}

/** The entries of a map value (a plain object; anything else needs the `yaml` package). */
function mapEntries(w: Writer, value: object): string[] {
  if (!isPlainObject(value)) throw UNSUPPORTED;
  return entries(w, value);
}

/** A non-empty map whose items are at `indent` (the first item is written where the caller is). */
function writeMap(w: Writer, obj: Record<string, unknown>, keys: readonly string[], indent: string): void {
  const child = `${indent}  `;
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i]!;
    if (i > 0) w.out.push('\n', indent);
    w.out.push(key(k), ':');
    writeValueAfter(w, obj[k], child, ' ');
  }
}

/** A non-empty sequence whose items are at `indent`. */
function writeSeq(w: Writer, items: readonly unknown[], indent: string): void {
  const child = `${indent}  `;
  for (let i = 0; i < items.length; i++) {
    if (i > 0) w.out.push('\n', indent);
    w.out.push('-');
    const item = items[i];
    if (item === undefined) throw UNSUPPORTED;
    if (Array.isArray(item)) {
      if (item.length === 0) w.out.push(' []');
      else {
        w.out.push(' ');
        writeSeq(w, item, child);
      }
    } else if (item !== null && typeof item === 'object') {
      const obj = item as Record<string, unknown>;
      const keys = mapEntries(w, obj);
      if (keys.length === 0) w.out.push(' {}');
      else {
        w.out.push(' ');
        writeMap(w, obj, keys, child);
      }
    } else w.out.push(' ', scalar(item, child));
  }
}

/** The value of a map entry, after `key:`; `indent` is where a nested collection's items go. */
function writeValueAfter(w: Writer, value: unknown, indent: string, space: string): void {
  // An empty collection is written `[]` or `{}` after the key (a map whose values are all undefined
  // is empty: its entries leave those out).
  if (Array.isArray(value)) {
    if (value.length === 0) w.out.push(space, '[]');
    else {
      w.out.push('\n', indent);
      writeSeq(w, value, indent);
    }
  } else if (value !== null && typeof value === 'object') {
    const obj = value as Record<string, unknown>;
    const keys = mapEntries(w, obj);
    if (keys.length === 0) w.out.push(space, '{}');
    else {
      w.out.push('\n', indent);
      writeMap(w, obj, keys, indent);
    }
  } else {
    w.out.push(space, scalar(value, indent));
  }
}

/**
 * The document for `value` (a plain object), as `yaml`'s `stringify` with `toYaml`'s options writes
 * it; with `sortKeys`, object keys in sorted order (as if the value went through `sortKeysDeep`).
 * Undefined when the value needs the `yaml` package.
 */
export function writeYamlDocument(value: unknown, options: { sortKeys?: boolean } = {}): string | undefined {
  if (value === null || typeof value !== 'object' || Array.isArray(value) || !isPlainObject(value)) {
    return undefined;
  }
  const w: Writer = { sortKeys: options.sortKeys === true, out: [] };
  try {
    const keys = entries(w, value);
    if (keys.length === 0) return undefined;
    writeMap(w, value, keys, '');
  } catch (err) {
    if (err === UNSUPPORTED) return undefined;
    throw err;
  }
  w.out.push('\n');
  return w.out.join('');
}
