/**
 * Writes the TypeScript interface for a kind's schema directly: the text json-schema-to-typescript
 * followed by prettier (single quotes, print width 110, trailing commas) gives for the schemas
 * `toJsonSchema` makes, without loading either (they cost most of `generate types`' time).
 *
 * It covers what Kubernetes schemas use: objects (closed, with an index signature, or maps), arrays,
 * primitives, enums of strings, numbers, booleans and null, nullable members, and the `tsType`s
 * `toJsonSchema` sets. On anything else (a `$ref`, an enum of objects, a union prettier would lay
 * out in a way this writer does not reproduce) it returns undefined and the caller takes the
 * json-schema-to-typescript path. test/unit/types/write-interface.test.ts holds it to that path's
 * bytes on random schemas and on every golden.
 */
import type { TypeSchema } from './k8s-schema.ts';

const PRINT_WIDTH = 110;

/** A type as the writer lays it out. */
type Ty =
  | { readonly t: 'atom'; readonly text: string }
  | { readonly t: 'union'; readonly members: readonly Ty[] }
  | { readonly t: 'array'; readonly element: Ty }
  | { readonly t: 'object'; readonly members: readonly Member[] };

interface Member {
  /** The key as written (quoted when needed), or `[k: string]` for the index signature. */
  readonly key: string;
  readonly optional: boolean;
  readonly comment: string | undefined;
  readonly type: Ty;
}

/** Raised inside the writer for a schema it does not handle; `writeInterface` returns undefined. */
class Unsupported extends Error {}

/** `export interface <name> { ... }` for `schema` (an object schema), or undefined (see above). */
export function writeInterface(schema: TypeSchema, name: string): string | undefined {
  try {
    const root = typeOf(schema);
    if (root.t !== 'object') return undefined;
    const comment = commentOf(schema);
    const body = printObject(root, '');
    return `${comment === undefined ? '' : printComment(comment, '')}export interface ${name} ${body}\n`;
  } catch (err) {
    if (err instanceof Unsupported) return undefined;
    throw err;
  }
}

const KEYWORDS: Readonly<Record<string, string>> = {
  string: 'string',
  number: 'number',
  integer: 'number',
  boolean: 'boolean',
  null: 'null',
};

function typeOf(schema: TypeSchema): Ty {
  if (schema.$ref !== undefined || schema.allOf || schema.oneOf || schema.not) throw new Unsupported();
  if (schema.anyOf) return nullableOf(schema);
  if (schema.tsType !== undefined) return tsTypeOf(schema.tsType);
  if (schema.enum !== undefined) return enumOf(schema.enum);
  switch (schema.type) {
    case 'array':
      if (schema.items === undefined || Array.isArray(schema.items)) throw new Unsupported();
      return { t: 'array', element: typeOf(schema.items) };
    case 'object':
    case undefined:
      return objectOf(schema);
    default: {
      const keyword = typeof schema.type === 'string' ? KEYWORDS[schema.type] : undefined;
      if (keyword === undefined) throw new Unsupported();
      return { t: 'atom', text: keyword };
    }
  }
}

/** `toJsonSchema`'s nullable form: `anyOf: [<the type>, { type: 'null' }]`. */
function nullableOf(schema: TypeSchema): Ty {
  const [first, second, ...rest] = schema.anyOf ?? [];
  if (!first || !second || rest.length > 0 || second.type !== 'null' || Object.keys(second).length !== 1) {
    throw new Unsupported();
  }
  if (first.description !== undefined || first.deprecated) throw new Unsupported();
  return union([typeOf(first), { t: 'atom', text: 'null' }]);
}

/** The `tsType`s toJsonSchema and renderKindVersion set: `A | B`-lists of simple types or literals. */
function tsTypeOf(tsType: string): Ty {
  const parts = tsType.split(' | ');
  for (const p of parts) {
    if (!/^(?:[A-Za-z_$][\w$]*|'(?:[^'\\]|\\.)*')$/.test(p)) throw new Unsupported();
  }
  return union(parts.map((text) => ({ t: 'atom', text })));
}

function enumOf(values: readonly unknown[]): Ty {
  if (values.length === 0) throw new Unsupported();
  return union(values.map((v) => ({ t: 'atom', text: literal(v) })));
}

/**
 * A union of `members`; a member that is itself a union stays one, in parentheses, as
 * json-schema-to-typescript writes a nullable enum: `('A' | 'B') | null`.
 */
function union(members: readonly Ty[]): Ty {
  const seen = new Set<string>();
  const unique = members.filter((m) => {
    if (m.t !== 'atom') return true;
    if (seen.has(m.text)) return false;
    seen.add(m.text);
    return true;
  });
  return unique.length === 1 && unique[0] ? unique[0] : { t: 'union', members: unique };
}

function objectOf(schema: TypeSchema): Ty {
  const members: Member[] = [];
  const required = new Set(Array.isArray(schema.required) ? schema.required : []);
  for (const [key, child] of Object.entries(schema.properties ?? {})) {
    members.push({
      key: propertyKey(key),
      optional: !required.has(key),
      comment: memberComment(child),
      type: typeOf(child),
    });
  }
  const additional = schema.additionalProperties;
  if (additional === true || (additional === undefined && schema.type === undefined)) {
    members.push({
      key: '[k: string]',
      optional: false,
      comment: undefined,
      type: { t: 'atom', text: 'unknown' },
    });
  } else if (typeof additional === 'object' && additional !== null) {
    // Properties next to a map's values (not structural) widen the index signature: left to the oracle path.
    if (members.length > 0) throw new Unsupported();
    members.push({
      key: '[k: string]',
      optional: false,
      comment: memberComment(additional),
      type: indexSignatureType(typeOf(additional)),
    });
  }
  return { t: 'object', members };
}

/**
 * A member's JSDoc: its own, and for an array the description of its elements under `Items:`
 * (json-schema-to-typescript's place for it), unless the elements are arrays or their description
 * holds a tag.
 */
function memberComment(schema: TypeSchema): string | undefined {
  const own = commentOf(schema);
  const items = schema.type === 'array' && !schema.anyOf && !schema.tsType ? schema.items : undefined;
  if (items === undefined || Array.isArray(items) || items.type === 'array') return own;
  const text = items.description?.replace(/\*\//g, '* /');
  if (!text || /(^|\s)@\w/.test(text)) return own;
  return own === undefined ? `Items: ${text}` : `${own}\n\nItems: ${text}`;
}

/**
 * json-schema-to-typescript writes an index signature's union flat (`0 | 1 | null`, not
 * `(0 | 1) | null`), and `unknown` when a member is unknown.
 */
function indexSignatureType(ty: Ty): Ty {
  if (ty.t !== 'union') return ty;
  const members = ty.members.flatMap((m) => (m.t === 'union' ? m.members : [m]));
  if (members.some((m) => m.t === 'atom' && m.text === 'unknown')) return { t: 'atom', text: 'unknown' };
  return union(members);
}

/** The JSDoc json-schema-to-typescript writes: `@deprecated`, then the description, `*\/` escaped. */
function commentOf(schema: TypeSchema): string | undefined {
  const lines: string[] = [];
  if (schema.deprecated) lines.push('@deprecated');
  if (typeof schema.description === 'string')
    lines.push(...schema.description.replace(/\*\//g, '* /').split('\n'));
  if (lines.length === 0) return undefined;
  for (const line of lines) if (/[\r\u2028\u2029]/.test(line)) throw new Unsupported();
  return lines.join('\n');
}

/**
 * The comment as prettier leaves json-schema-to-typescript's: trailing whitespace dropped, except that
 * a line ending in two spaces keeps two (a Markdown line break).
 */
function printComment(comment: string, indent: string): string {
  const lines = comment.split('\n').map((line) => {
    const body = line.trimEnd();
    if (body === '') return `${indent} *`;
    return `${indent} * ${body}${line.endsWith('  ') ? '  ' : ''}`;
  });
  return `${indent}/**\n${lines.join('\n')}\n${indent} */\n`;
}

/** The type on one line, or undefined when it spans lines (an object type with members). */
function flat(ty: Ty): string | undefined {
  switch (ty.t) {
    case 'atom':
      return ty.text;
    case 'object':
      return ty.members.length === 0 ? '{}' : undefined;
    case 'array': {
      const inner = flat(ty.element);
      if (inner === undefined) return undefined;
      return ty.element.t === 'union' ? `(${inner})[]` : `${inner}[]`;
    }
    case 'union': {
      const parts = ty.members.map((m) => {
        const text = flat(m);
        return text !== undefined && m.t === 'union' ? `(${text})` : text;
      });
      return parts.every((p) => p !== undefined) ? parts.join(' | ') : undefined;
    }
  }
}

function printObject(ty: Extract<Ty, { t: 'object' }>, indent: string): string {
  if (ty.members.length === 0) return '{}';
  const inner = `${indent}  `;
  const lines = ty.members.map((m) => {
    const head = `${inner}${m.key}${m.optional ? '?' : ''}:`;
    return `${m.comment === undefined ? '' : printComment(m.comment, inner)}${head}${printValue(m.type, inner, head.length)};`;
  });
  return `{\n${lines.join('\n')}\n${indent}}`;
}

/**
 * A member's type after `key:` (`used` columns so far on the line, `;` follows): on the same line
 * when it fits in the print width, else as prettier breaks it.
 */
function printValue(ty: Ty, indent: string, used: number): string {
  const oneLine = flat(ty);
  if (oneLine !== undefined && used + 1 + oneLine.length + 1 <= PRINT_WIDTH) return ` ${oneLine}`;
  switch (ty.t) {
    case 'atom':
      return ` ${ty.text}`;
    case 'object':
      return ` ${printObject(ty, indent)}`;
    case 'array':
      return ` ${printArray(ty, indent)}`;
    case 'union': {
      const hugged = huggedObject(ty);
      if (hugged) return ` ${printObject(hugged, indent)} | null`;
      // On the next line when it fits there, else one member a line.
      if (oneLine !== undefined && indent.length + 2 + oneLine.length + 1 <= PRINT_WIDTH) {
        return `\n${indent}  ${oneLine}`;
      }
      const members = ty.members.map((m) => `\n${indent}  | ${memberLine(m, indent.length + 5)}`);
      return members.join('');
    }
  }
}

/**
 * A union member on a line of its own (`used` columns before and after it): a simple member that
 * fits; prettier breaks the others further, which this writer leaves to the oracle path.
 */
function memberLine(member: Ty, used: number): string {
  const text = flat(member);
  if (text === undefined || member.t === 'union' || used + text.length > PRINT_WIDTH) throw new Unsupported();
  return text;
}

/** prettier keeps `{ ... } | null` together: an object type whose only other members are null. */
function huggedObject(ty: Extract<Ty, { t: 'union' }>): Extract<Ty, { t: 'object' }> | undefined {
  const others = ty.members.filter((m) => !(m.t === 'atom' && m.text === 'null'));
  const [only] = others;
  return others.length === 1 && only?.t === 'object' && ty.members.length === 2 ? only : undefined;
}

/** An array type that does not fit on its line: objects open and close on their own lines. */
function printArray(ty: Extract<Ty, { t: 'array' }>, indent: string): string {
  const element = ty.element;
  if (element.t === 'object') return `${printObject(element, indent)}[]`;
  if (element.t === 'array') {
    if (element.element.t !== 'object') throw new Unsupported();
    return `${printArray(element, indent)}[]`;
  }
  if (element.t === 'union') {
    const oneLine = flat(element);
    if (oneLine !== undefined && indent.length + 2 + oneLine.length <= PRINT_WIDTH) {
      return `(\n${indent}  ${oneLine}\n${indent})[]`;
    }
    const members = element.members.map((m) => `${indent}  | ${memberLine(m, indent.length + 4)}`);
    return `(\n${members.join('\n')}\n${indent})[]`;
  }
  return `${element.text}[]`;
}

/** A property key as prettier writes it: bare when an identifier, else quoted (single quotes preferred). */
function propertyKey(key: string): string {
  if (/^[A-Za-z_$][\w$]*$/.test(key)) return key;
  // prettier unquotes any ES5 identifier name, Unicode letters included: left to the oracle path.
  if (/[^\x20-\x7e]/.test(key)) throw new Unsupported();
  return stringLiteral(key);
}

/** An enum value as a TypeScript literal type. */
function literal(value: unknown): string {
  if (typeof value === 'string') return stringLiteral(value);
  if (typeof value === 'boolean' || value === null) return String(value);
  if (typeof value === 'number' && Number.isFinite(value)) {
    if (value < 0 || Object.is(value, -0)) throw new Unsupported();
    return String(value).replace('e+', 'e');
  }
  throw new Unsupported();
}

/**
 * A string literal as prettier prints JSON.stringify's: single quotes unless the text holds more
 * single than double quotes; quotes escaped only where they must be.
 */
function stringLiteral(value: string): string {
  const raw = JSON.stringify(value).slice(1, -1);
  const doubles = (raw.match(/"/g) ?? []).length;
  const singles = (raw.match(/'/g) ?? []).length;
  const quote = singles > doubles ? '"' : "'";
  const other = quote === '"' ? "'" : '"';
  const body = raw.replace(/\\(.)|(["'])/gs, (match: string, escaped?: string, bare?: string) => {
    if (escaped !== undefined) return escaped === other ? escaped : match;
    return bare === quote ? `\\${bare}` : (bare ?? match);
  });
  return `${quote}${body}${quote}`;
}
