import type {
  ArrayType,
  DeclFile,
  Expression,
  ExportFromDecl,
  ImportDecl,
  Member,
  Statement,
  TypeNode,
  TypeRef,
} from './ast.ts';
import { Declined } from './declined.ts';
import { lineStarts, scan, type Token } from './scanner.ts';

/** Words that cannot name a type or a binding (TypeScript's reserved words and type keywords). */
const RESERVED = new Set([
  'any',
  'as',
  'async',
  'await',
  'bigint',
  'boolean',
  'break',
  'case',
  'catch',
  'class',
  'const',
  'continue',
  'debugger',
  'declare',
  'default',
  'delete',
  'do',
  'else',
  'enum',
  'export',
  'extends',
  'false',
  'finally',
  'for',
  'from',
  'function',
  'get',
  'global',
  'if',
  'implements',
  'import',
  'in',
  'infer',
  'instanceof',
  'interface',
  'is',
  'keyof',
  'let',
  'module',
  'namespace',
  'never',
  'new',
  'null',
  'number',
  'object',
  'of',
  'package',
  'private',
  'protected',
  'public',
  'readonly',
  'require',
  'return',
  'satisfies',
  'set',
  'static',
  'string',
  'super',
  'switch',
  'symbol',
  'this',
  'throw',
  'true',
  'try',
  'type',
  'typeof',
  'undefined',
  'unique',
  'unknown',
  'var',
  'void',
  'while',
  'with',
  'yield',
  'accessor',
  'asserts',
  'abstract',
  'constructor',
  'out',
  'override',
  'intrinsic',
]);

const KEYWORD_TYPES = new Set(['string', 'number', 'boolean', 'null', 'undefined', 'unknown']);

/**
 * Parses a file of API declarations, or declines (Declined) where it leaves the subset: `import {…}
 * from '…'`, `interface` without type parameters (`extends` names only), non-generic `type` aliases of
 * keyword, string-literal, array, union, reference and object types (and `(typeof X)[keyof typeof X]`),
 * `enum` and `const enum` whose members all have string values, and `const` declarations of
 * literals, object and array literals and calls. Every file it accepts parses as TypeScript with the
 * same meaning; anything else is the type checker's to read.
 */
export function parseDeclFile(fileName: string, text: string): DeclFile {
  return new Parser(fileName, text).file();
}

/** The 1-based line of an offset: a binary search over the offsets where lines start. */
function lineFinder(starts: readonly number[]): (offset: number) => number {
  return (offset) => {
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if ((starts[mid] ?? 0) <= offset) lo = mid;
      else hi = mid - 1;
    }
    return lo + 1;
  };
}

/** A recursive-descent parser of the declaration subset: one method per grammar rule. */
class Parser {
  readonly #fileName: string;
  readonly #text: string;
  readonly #tokens: readonly Token[];
  #k = 0;
  /**
   * The 1-based line of an offset. The parsed file keeps this function: it holds the line starts
   * only, not the parser (whose tokens are garbage once the file is parsed).
   */
  readonly lineOf: (offset: number) => number;

  constructor(fileName: string, text: string) {
    this.#fileName = fileName;
    this.#text = text;
    this.lineOf = lineFinder(lineStarts(text));
    this.#tokens = scan(text, (offset) => this.#where(offset));
  }

  #where(offset: number): string {
    return `${this.#fileName}:${this.lineOf(offset)}`;
  }

  // ---- tokens ----

  #peek(ahead = 0): Token {
    return this.#tokens[Math.min(this.#k + ahead, this.#tokens.length - 1)] as Token;
  }

  #fail(token: Token, what: string): never {
    throw new Declined(this.#where(token.start), what);
  }

  #take(): Token {
    const t = this.#peek();
    if (t.kind !== 'eof') this.#k++;
    return t;
  }

  #is(value: string, ahead = 0): boolean {
    const t = this.#peek(ahead);
    return (t.kind === 'punct' || t.kind === 'ident') && t.value === value;
  }

  #expect(value: string): Token {
    const t = this.#take();
    if ((t.kind !== 'punct' && t.kind !== 'ident') || t.value !== value)
      this.#fail(t, `\`${t.value || 'end of file'}\` where \`${value}\` was expected`);
    return t;
  }

  #binding(): string {
    const t = this.#take();
    if (t.kind !== 'ident' || RESERVED.has(t.value))
      this.#fail(t, `\`${t.value}\` where a name was expected`);
    return t.value;
  }

  /** A statement's end: `;`, or a line break, `}` or the end of the file after it (ASI). */
  #endStatement(): void {
    if (this.#is(';')) {
      this.#take();
      return;
    }
    const t = this.#peek();
    if (!(t.newlineBefore || t.kind === 'eof')) this.#fail(t, `\`${t.value}\` after a statement`);
  }

  /** A module specifier: a string literal. */
  #moduleName(): string {
    const module = this.#take();
    if (module.kind !== 'string') this.#fail(module, 'a module name that is not a string literal');
    return module.value;
  }

  // ---- types ----

  #typeArgs(): TypeNode[] {
    this.#expect('<');
    const args = [this.#type()];
    while (this.#is(',')) {
      this.#take();
      if (this.#is('>')) this.#fail(this.#peek(), 'a trailing comma in type arguments');
      args.push(this.#type());
    }
    this.#expect('>');
    return args;
  }

  /** `{ member; ... }` of an interface or an object type. */
  #members(): Member[] {
    this.#expect('{');
    const out: Member[] = [];
    const names = new Set<string>();
    while (!this.#is('}')) {
      const first = this.#peek();
      if (out.length > 0 && !first.newlineBefore) {
        const prev = this.#tokens[this.#k - 1];
        if (!(prev && prev.kind === 'punct' && (prev.value === ';' || prev.value === ','))) {
          this.#fail(first, 'members not separated by `;`, `,` or a line break');
        }
      }
      out.push(this.#member(first, out.length, names));
      if (this.#is(';') || this.#is(',')) this.#take();
    }
    this.#expect('}');
    return out;
  }

  /** One member: `[key: string]: T` (alone) or `name?: T`; `names` holds the names before it. */
  #member(first: Token, before: number, names: Set<string>): Member {
    // `readonly` is a modifier when a name follows it; `readonly: boolean` is a field named readonly.
    if (this.#is('readonly') && (this.#peek(1).kind === 'ident' || this.#is('[', 1))) this.#take();
    if (this.#is('[')) {
      const open = this.#take();
      this.#binding();
      this.#expect(':');
      this.#expect('string');
      this.#expect(']');
      this.#expect(':');
      const member: Member = { m: 'index', pos: first.pos, start: first.start, type: this.#type() };
      if (before > 0 || names.size > 0) this.#fail(open, 'an index signature beside other members');
      return member;
    }
    const name = this.#take();
    if (name.kind !== 'ident') this.#fail(name, 'a member name that is not an identifier');
    if (names.has(name.value)) this.#fail(name, `the member \`${name.value}\` declared twice`);
    names.add(name.value);
    const optional = this.#is('?');
    if (optional) this.#take();
    this.#expect(':');
    return {
      m: 'property',
      pos: first.pos,
      start: first.start,
      name: name.value,
      optional,
      type: this.#type(),
    };
  }

  #primaryType(): TypeNode {
    const t = this.#peek();
    if (t.kind === 'string') {
      this.#take();
      return { t: 'literal', pos: t.pos, start: t.start, value: t.value };
    }
    if (t.kind === 'punct' && t.value === '(') {
      if (this.#is('typeof', 1)) return this.#constValues(t, true);
      this.#take();
      const inner = this.#type();
      this.#expect(')');
      return { t: 'paren', pos: t.pos, start: t.start, type: inner };
    }
    if (t.kind === 'punct' && t.value === '{') {
      return { t: 'object', pos: t.pos, start: t.start, members: this.#members() };
    }
    if (t.kind !== 'ident') return this.#fail(t, `\`${t.value}\` in a type`);
    if (t.value === 'typeof') return this.#constValues(t, false);
    if (t.value === 'readonly') {
      this.#take();
      const operand = this.#postfixType();
      if (operand.t !== 'array') return this.#fail(t, '`readonly` on a type that is not an array');
      return { t: 'readonly', pos: t.pos, start: t.start, type: operand };
    }
    this.#take();
    if (KEYWORD_TYPES.has(t.value)) {
      return { t: 'keyword', pos: t.pos, start: t.start, name: t.value as 'string' };
    }
    if (RESERVED.has(t.value)) return this.#fail(t, `the type \`${t.value}\``);
    const args = this.#is('<') && !this.#peek().newlineBefore ? this.#typeArgs() : undefined;
    return { t: 'ref', pos: t.pos, start: t.start, name: t.value, args };
  }

  /** `typeof X[keyof typeof X]` or `(typeof X)[keyof typeof X]`, the only `typeof` read. */
  #constValues(first: Token, parenthesized: boolean): TypeNode {
    if (parenthesized) this.#expect('(');
    this.#expect('typeof');
    const name = this.#binding();
    if (parenthesized) this.#expect(')');
    if (!this.#is('[') || this.#peek().newlineBefore) this.#fail(first, 'the type `typeof`');
    this.#expect('[');
    this.#expect('keyof');
    this.#expect('typeof');
    const keyOf = this.#peek();
    if (this.#binding() !== name)
      this.#fail(keyOf, 'an indexed access other than `(typeof X)[keyof typeof X]`');
    this.#expect(']');
    return { t: 'constValues', pos: first.pos, start: first.start, name };
  }

  #postfixType(): TypeNode {
    let node = this.#primaryType();
    while (this.#is('[') && !this.#peek().newlineBefore) {
      this.#take();
      this.#expect(']');
      node = { t: 'array', pos: node.pos, start: node.start, element: node } satisfies ArrayType;
    }
    return node;
  }

  #type(): TypeNode {
    const first = this.#peek();
    if (this.#is('|')) this.#take();
    const types = [this.#postfixType()];
    while (this.#is('|')) {
      this.#take();
      types.push(this.#postfixType());
    }
    if (types.length === 1 && !(first.kind === 'punct' && first.value === '|')) return types[0] as TypeNode;
    return { t: 'union', pos: first.pos, start: first.start, types };
  }

  // ---- expressions ----

  #expression(): Expression {
    const t = this.#take();
    let e: Expression;
    if (t.kind === 'string') e = { e: 'string', value: t.value };
    else if (t.kind === 'number') e = { e: 'number' };
    else if (t.kind === 'ident' && (t.value === 'true' || t.value === 'false' || t.value === 'null'))
      e = { e: t.value };
    else if (t.kind === 'punct' && t.value === '{') e = this.#objectLiteral();
    else if (t.kind === 'punct' && t.value === '[') e = this.#arrayLiteral();
    else if (t.kind === 'ident' && !RESERVED.has(t.value)) e = this.#callOrName(t.value);
    else return this.#fail(t, `\`${t.value}\` in an expression`);
    if (this.#is('as') && this.#is('const', 1)) {
      this.#take();
      this.#take();
      e = { e: 'asConst', expression: e };
    }
    return e;
  }

  /** After `{`: `name: value, ...}`. */
  #objectLiteral(): Expression {
    const properties: { name: string; value: Expression }[] = [];
    const seen = new Set<string>();
    while (!this.#is('}')) {
      const name = this.#take();
      if (name.kind !== 'ident' && name.kind !== 'string')
        this.#fail(name, 'a property name that is not a name or string');
      if (seen.has(name.value)) this.#fail(name, `the property \`${name.value}\` given twice`);
      seen.add(name.value);
      this.#expect(':');
      properties.push({ name: name.value, value: this.#expression() });
      if (!this.#is('}')) this.#expect(',');
    }
    this.#expect('}');
    return { e: 'object', properties };
  }

  /** After `[`: `item, ...]`. */
  #arrayLiteral(): Expression {
    const items: Expression[] = [];
    while (!this.#is(']')) {
      items.push(this.#expression());
      if (!this.#is(']')) this.#expect(',');
    }
    this.#expect(']');
    return { e: 'array', items };
  }

  /** After a name: `callee<T>(args)`, `callee(args)`, or the name alone. */
  #callOrName(name: string): Expression {
    if (!this.#is('<') && !this.#is('(')) return { e: 'name', name };
    const typeArguments = this.#is('<') ? this.#typeArgs() : [];
    this.#expect('(');
    const args: Expression[] = [];
    while (!this.#is(')')) {
      args.push(this.#expression());
      if (!this.#is(')')) this.#expect(',');
    }
    this.#expect(')');
    return { e: 'call', callee: name, typeArgs: typeArguments, args };
  }

  // ---- statements ----

  #importDecl(first: Token): ImportDecl {
    const typeOnly = this.#is('type') && this.#is('{', 1);
    if (typeOnly) this.#take();
    this.#expect('{');
    const names = new Map<string, string>();
    while (!this.#is('}')) {
      // `type A` inside the braces (not in `import type {…}`, where it is an error).
      if (!typeOnly && this.#is('type') && this.#peek(1).kind === 'ident' && !this.#is('as', 1)) this.#take();
      const exported = this.#take();
      if (exported.kind !== 'ident') this.#fail(exported, 'an imported name that is not an identifier');
      let local = exported.value;
      if (this.#is('as')) {
        this.#take();
        local = this.#binding();
      } else if (RESERVED.has(local)) this.#fail(exported, `\`${local}\` imported as a name`);
      if (names.has(local)) this.#fail(exported, `\`${local}\` imported twice`);
      names.set(local, exported.value);
      if (!this.#is('}')) this.#expect(',');
    }
    this.#expect('}');
    if (names.size === 0) this.#fail(first, 'an empty import');
    this.#expect('from');
    const module = this.#moduleName();
    this.#endStatement();
    return { s: 'import', pos: first.pos, start: first.start, module, names };
  }

  /** After `export`: `{ A, B as C } from '…'`, `type { A } from '…'` or `* from '…'`. */
  #exportFromDecl(first: Token): ExportFromDecl {
    let names: Map<string, string> | undefined;
    if (this.#is('*')) {
      this.#take();
      if (this.#is('as')) this.#fail(this.#peek(), '`export * as` (a namespace export)');
    } else names = this.#exportList(first);
    if (!this.#is('from')) this.#fail(this.#peek(), 'an export list without `from` (a local re-export)');
    this.#take();
    const module = this.#moduleName();
    this.#endStatement();
    return { s: 'exportFrom', pos: first.pos, start: first.start, module, names };
  }

  /** `{ A, B as C }` or `type { A }` of an export: exported name to original name. */
  #exportList(first: Token): Map<string, string> {
    const typeOnly = this.#is('type') && this.#is('{', 1);
    if (typeOnly) this.#take();
    this.#expect('{');
    const names = new Map<string, string>();
    while (!this.#is('}')) {
      if (!typeOnly && this.#is('type') && this.#peek(1).kind === 'ident' && !this.#is('as', 1)) this.#take();
      const original = this.#take();
      if (original.kind !== 'ident') this.#fail(original, 'an exported name that is not an identifier');
      let name = original.value;
      if (this.#is('as')) {
        this.#take();
        name = this.#binding();
      }
      if (names.has(name)) this.#fail(original, `\`${name}\` exported twice`);
      names.set(name, original.value);
      if (!this.#is('}')) this.#expect(',');
    }
    this.#expect('}');
    if (names.size === 0) this.#fail(first, 'an empty export');
    return names;
  }

  /** An enum's name and members after `enum`: each member `Name = 'value'` (other forms decline). */
  #enumBody(): { s: 'enum'; name: string; members: { name: string; value: string }[] } {
    const name = this.#binding();
    this.#expect('{');
    const members: { name: string; value: string }[] = [];
    const names = new Set<string>();
    const values = new Set<string>();
    while (!this.#is('}')) {
      const member = this.#take();
      if (member.kind !== 'ident' && member.kind !== 'string') this.#fail(member, 'an enum member name');
      if (names.has(member.value)) this.#fail(member, `the enum member \`${member.value}\` given twice`);
      names.add(member.value);
      if (!this.#is('=')) this.#fail(this.#peek(), 'an enum member without a string value');
      this.#take();
      const value = this.#take();
      if (value.kind !== 'string' || !(this.#is(',') || this.#is('}')))
        this.#fail(value, 'an enum member whose value is not a string literal');
      if (values.has(value.value)) this.#fail(value, `the enum value '${value.value}' given twice`);
      values.add(value.value);
      members.push({ name: member.value, value: value.value });
      if (!this.#is('}')) this.#expect(',');
    }
    this.#expect('}');
    if (members.length === 0) this.#fail(this.#peek(), 'an enum without members');
    return { s: 'enum', name, members };
  }

  /** After `interface`: its name, `extends` names and members. */
  #interfaceDecl(first: Token, exported: boolean): Statement {
    const name = this.#binding();
    if (this.#is('<')) this.#fail(this.#peek(), 'an interface with type parameters');
    const bases: TypeRef[] = [];
    if (this.#is('extends')) {
      this.#take();
      do {
        if (bases.length > 0) this.#take();
        const base = this.#peek();
        bases.push({ t: 'ref', pos: base.pos, start: base.start, name: this.#binding(), args: undefined });
        if (this.#is('<') || this.#is('.'))
          this.#fail(this.#peek(), 'an interface extending a generic or qualified type');
      } while (this.#is(','));
    }
    const members = this.#members();
    return { s: 'interface', pos: first.pos, start: first.start, exported, name, extends: bases, members };
  }

  /** After `type`: `Name = T`. */
  #aliasDecl(first: Token, exported: boolean): Statement {
    const name = this.#binding();
    if (this.#is('<')) this.#fail(this.#peek(), 'a generic type alias');
    this.#expect('=');
    const aliased = this.#type();
    this.#endStatement();
    return { s: 'alias', pos: first.pos, start: first.start, exported, name, type: aliased };
  }

  /** After `const`: `Name[: T] = expression`. */
  #constDecl(first: Token, exported: boolean): Statement {
    const name = this.#binding();
    // `export const AllowConcurrent: ConcurrencyPolicy = 'Allow';`
    let annotation: TypeNode | undefined;
    if (this.#is(':')) {
      this.#take();
      annotation = this.#type();
    }
    this.#expect('=');
    const init = this.#expression();
    this.#endStatement();
    return {
      s: 'const',
      pos: first.pos,
      start: first.start,
      exported,
      name,
      init,
      ...(annotation ? { type: annotation } : {}),
    };
  }

  #statement(): Statement {
    const first = this.#take();
    if (first.kind === 'ident' && first.value === 'import') return this.#importDecl(first);
    let keyword = first;
    const exported = first.kind === 'ident' && first.value === 'export';
    if (exported && (this.#is('{') || this.#is('*') || (this.#is('type') && this.#is('{', 1))))
      return this.#exportFromDecl(first);
    if (exported) keyword = this.#take();
    const word = keyword.kind === 'ident' ? keyword.value : '';
    if (word === 'interface') return this.#interfaceDecl(first, exported);
    if (word === 'type' && this.#peek().kind === 'ident') return this.#aliasDecl(first, exported);
    if (word === 'enum' || (word === 'const' && this.#is('enum'))) {
      if (word === 'const') this.#take();
      return { ...this.#enumBody(), pos: first.pos, start: first.start, exported };
    }
    if (word === 'const') return this.#constDecl(first, exported);
    return this.#fail(keyword, `a statement starting with \`${keyword.value}\``);
  }

  /** The whole file. */
  file(): DeclFile {
    const statements: Statement[] = [];
    while (this.#peek().kind !== 'eof') statements.push(this.#statement());
    const eof = this.#peek();
    return { fileName: this.#fileName, text: this.#text, statements, endPos: eof.pos, lineOf: this.lineOf };
  }
}
