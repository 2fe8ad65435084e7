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
  const starts = lineStarts(text);
  const lineOf = (offset: number): number => {
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if ((starts[mid] ?? 0) <= offset) lo = mid;
      else hi = mid - 1;
    }
    return lo + 1;
  };
  const where = (offset: number): string => `${fileName}:${lineOf(offset)}`;
  const tokens = scan(text, where);
  let k = 0;
  const peek = (ahead = 0): Token => tokens[Math.min(k + ahead, tokens.length - 1)] as Token;
  const fail = (token: Token, what: string): never => {
    throw new Declined(where(token.start), what);
  };
  const take = (): Token => {
    const t = peek();
    if (t.kind !== 'eof') k++;
    return t;
  };
  const is = (value: string, ahead = 0): boolean => {
    const t = peek(ahead);
    return (t.kind === 'punct' || t.kind === 'ident') && t.value === value;
  };
  const expect = (value: string): Token => {
    const t = take();
    if ((t.kind !== 'punct' && t.kind !== 'ident') || t.value !== value)
      fail(t, `\`${t.value || 'end of file'}\` where \`${value}\` was expected`);
    return t;
  };
  const binding = (): string => {
    const t = take();
    if (t.kind !== 'ident' || RESERVED.has(t.value)) fail(t, `\`${t.value}\` where a name was expected`);
    return t.value;
  };
  /** A statement's end: `;`, or a line break, `}` or the end of the file after it (ASI). */
  const endStatement = (): void => {
    if (is(';')) {
      take();
      return;
    }
    const t = peek();
    if (!(t.newlineBefore || t.kind === 'eof')) fail(t, `\`${t.value}\` after a statement`);
  };

  const typeArgs = (): TypeNode[] => {
    expect('<');
    const args = [type()];
    while (is(',')) {
      take();
      if (is('>')) fail(peek(), 'a trailing comma in type arguments');
      args.push(type());
    }
    expect('>');
    return args;
  };

  const members = (): Member[] => {
    expect('{');
    const out: Member[] = [];
    const names = new Set<string>();
    while (!is('}')) {
      const first = peek();
      if (out.length > 0 && !first.newlineBefore) {
        const prev = tokens[k - 1];
        if (!(prev && prev.kind === 'punct' && (prev.value === ';' || prev.value === ','))) {
          fail(first, 'members not separated by `;`, `,` or a line break');
        }
      }
      // `readonly` is a modifier when a name follows it; `readonly: boolean` is a field named readonly.
      if (is('readonly') && (peek(1).kind === 'ident' || is('[', 1))) take();
      if (is('[')) {
        const open = take();
        binding();
        expect(':');
        expect('string');
        expect(']');
        expect(':');
        out.push({ m: 'index', pos: first.pos, start: first.start, type: type() });
        if (out.length > 1 || names.size > 0) fail(open, 'an index signature beside other members');
      } else {
        const name = take();
        if (name.kind !== 'ident') fail(name, 'a member name that is not an identifier');
        if (names.has(name.value)) fail(name, `the member \`${name.value}\` declared twice`);
        names.add(name.value);
        const optional = is('?');
        if (optional) take();
        expect(':');
        out.push({
          m: 'property',
          pos: first.pos,
          start: first.start,
          name: name.value,
          optional,
          type: type(),
        });
      }
      if (is(';') || is(',')) take();
    }
    expect('}');
    return out;
  };

  const primaryType = (): TypeNode => {
    const t = peek();
    if (t.kind === 'string') {
      take();
      return { t: 'literal', pos: t.pos, start: t.start, value: t.value };
    }
    if (t.kind === 'punct' && t.value === '(') {
      if (is('typeof', 1)) return constValues(t, true);
      take();
      const inner = type();
      expect(')');
      return { t: 'paren', pos: t.pos, start: t.start, type: inner };
    }
    if (t.kind === 'punct' && t.value === '{') {
      return { t: 'object', pos: t.pos, start: t.start, members: members() };
    }
    if (t.kind !== 'ident') return fail(t, `\`${t.value}\` in a type`);
    if (t.value === 'typeof') return constValues(t, false);
    if (t.value === 'readonly') {
      take();
      const operand = postfixType();
      if (operand.t !== 'array') return fail(t, '`readonly` on a type that is not an array');
      return { t: 'readonly', pos: t.pos, start: t.start, type: operand };
    }
    take();
    if (KEYWORD_TYPES.has(t.value)) {
      return { t: 'keyword', pos: t.pos, start: t.start, name: t.value as 'string' };
    }
    if (RESERVED.has(t.value)) return fail(t, `the type \`${t.value}\``);
    const args = is('<') && !peek().newlineBefore ? typeArgs() : undefined;
    return { t: 'ref', pos: t.pos, start: t.start, name: t.value, args };
  };

  /** `typeof X[keyof typeof X]` or `(typeof X)[keyof typeof X]`, the only `typeof` read. */
  const constValues = (first: Token, parenthesized: boolean): TypeNode => {
    if (parenthesized) expect('(');
    expect('typeof');
    const name = binding();
    if (parenthesized) expect(')');
    if (!is('[') || peek().newlineBefore) fail(first, 'the type `typeof`');
    expect('[');
    expect('keyof');
    expect('typeof');
    const keyOf = peek();
    if (binding() !== name) fail(keyOf, 'an indexed access other than `(typeof X)[keyof typeof X]`');
    expect(']');
    return { t: 'constValues', pos: first.pos, start: first.start, name };
  };

  const postfixType = (): TypeNode => {
    let node = primaryType();
    while (is('[') && !peek().newlineBefore) {
      take();
      expect(']');
      node = { t: 'array', pos: node.pos, start: node.start, element: node } satisfies ArrayType;
    }
    return node;
  };

  const type = (): TypeNode => {
    const first = peek();
    if (is('|')) take();
    const types = [postfixType()];
    while (is('|')) {
      take();
      types.push(postfixType());
    }
    if (types.length === 1 && !(first.kind === 'punct' && first.value === '|')) return types[0] as TypeNode;
    return { t: 'union', pos: first.pos, start: first.start, types };
  };

  const expression = (): Expression => {
    const t = take();
    let e: Expression;
    if (t.kind === 'string') e = { e: 'string', value: t.value };
    else if (t.kind === 'number') e = { e: 'number' };
    else if (t.kind === 'ident' && (t.value === 'true' || t.value === 'false' || t.value === 'null'))
      e = { e: t.value };
    else if (t.kind === 'punct' && t.value === '{') {
      const properties: { name: string; value: Expression }[] = [];
      const seen = new Set<string>();
      while (!is('}')) {
        const name = take();
        if (name.kind !== 'ident' && name.kind !== 'string')
          fail(name, 'a property name that is not a name or string');
        if (seen.has(name.value)) fail(name, `the property \`${name.value}\` given twice`);
        seen.add(name.value);
        expect(':');
        properties.push({ name: name.value, value: expression() });
        if (!is('}')) expect(',');
      }
      expect('}');
      e = { e: 'object', properties };
    } else if (t.kind === 'punct' && t.value === '[') {
      const items: Expression[] = [];
      while (!is(']')) {
        items.push(expression());
        if (!is(']')) expect(',');
      }
      expect(']');
      e = { e: 'array', items };
    } else if (t.kind === 'ident' && !RESERVED.has(t.value)) {
      if (is('<') || is('(')) {
        const typeArguments = is('<') ? typeArgs() : [];
        expect('(');
        const args: Expression[] = [];
        while (!is(')')) {
          args.push(expression());
          if (!is(')')) expect(',');
        }
        expect(')');
        e = { e: 'call', callee: t.value, typeArgs: typeArguments, args };
      } else e = { e: 'name', name: t.value };
    } else return fail(t, `\`${t.value}\` in an expression`);
    if (is('as') && is('const', 1)) {
      take();
      take();
      e = { e: 'asConst', expression: e };
    }
    return e;
  };

  const importDecl = (first: Token): ImportDecl => {
    const typeOnly = is('type') && is('{', 1);
    if (typeOnly) take();
    expect('{');
    const names = new Map<string, string>();
    while (!is('}')) {
      // `type A` inside the braces (not in `import type {…}`, where it is an error).
      if (!typeOnly && is('type') && peek(1).kind === 'ident' && !is('as', 1)) take();
      const exported = take();
      if (exported.kind !== 'ident') fail(exported, 'an imported name that is not an identifier');
      let local = exported.value;
      if (is('as')) {
        take();
        local = binding();
      } else if (RESERVED.has(local)) fail(exported, `\`${local}\` imported as a name`);
      if (names.has(local)) fail(exported, `\`${local}\` imported twice`);
      names.set(local, exported.value);
      if (!is('}')) expect(',');
    }
    expect('}');
    if (names.size === 0) fail(first, 'an empty import');
    expect('from');
    const module = take();
    if (module.kind !== 'string') fail(module, 'a module name that is not a string literal');
    endStatement();
    return { s: 'import', pos: first.pos, start: first.start, module: module.value, names };
  };

  /** After `export`: `{ A, B as C } from '…'`, `type { A } from '…'` or `* from '…'`. */
  const exportFromDecl = (first: Token): ExportFromDecl => {
    let names: Map<string, string> | undefined;
    if (is('*')) {
      take();
      if (is('as')) fail(peek(), '`export * as` (a namespace export)');
    } else {
      const typeOnly = is('type') && is('{', 1);
      if (typeOnly) take();
      expect('{');
      names = new Map<string, string>();
      while (!is('}')) {
        if (!typeOnly && is('type') && peek(1).kind === 'ident' && !is('as', 1)) take();
        const original = take();
        if (original.kind !== 'ident') fail(original, 'an exported name that is not an identifier');
        let name = original.value;
        if (is('as')) {
          take();
          name = binding();
        }
        if (names.has(name)) fail(original, `\`${name}\` exported twice`);
        names.set(name, original.value);
        if (!is('}')) expect(',');
      }
      expect('}');
      if (names.size === 0) fail(first, 'an empty export');
    }
    if (!is('from')) fail(peek(), 'an export list without `from` (a local re-export)');
    take();
    const module = take();
    if (module.kind !== 'string') fail(module, 'a module name that is not a string literal');
    endStatement();
    return { s: 'exportFrom', pos: first.pos, start: first.start, module: module.value, names };
  };

  /** An enum's name and members after `enum`: each member `Name = 'value'` (other forms decline). */
  const enumBody = (): { s: 'enum'; name: string; members: { name: string; value: string }[] } => {
    const name = binding();
    expect('{');
    const members: { name: string; value: string }[] = [];
    const names = new Set<string>();
    const values = new Set<string>();
    while (!is('}')) {
      const member = take();
      if (member.kind !== 'ident' && member.kind !== 'string') fail(member, 'an enum member name');
      if (names.has(member.value)) fail(member, `the enum member \`${member.value}\` given twice`);
      names.add(member.value);
      if (!is('=')) fail(peek(), 'an enum member without a string value');
      take();
      const value = take();
      if (value.kind !== 'string' || !(is(',') || is('}')))
        fail(value, 'an enum member whose value is not a string literal');
      if (values.has(value.value)) fail(value, `the enum value '${value.value}' given twice`);
      values.add(value.value);
      members.push({ name: member.value, value: value.value });
      if (!is('}')) expect(',');
    }
    expect('}');
    if (members.length === 0) fail(peek(), 'an enum without members');
    return { s: 'enum', name, members };
  };

  const statements: Statement[] = [];
  while (peek().kind !== 'eof') {
    const first = take();
    if (first.kind === 'ident' && first.value === 'import') {
      statements.push(importDecl(first));
      continue;
    }
    let keyword = first;
    const exported = first.kind === 'ident' && first.value === 'export';
    if (exported && (is('{') || is('*') || (is('type') && is('{', 1)))) {
      statements.push(exportFromDecl(first));
      continue;
    }
    if (exported) keyword = take();
    if (keyword.kind === 'ident' && keyword.value === 'interface') {
      const name = binding();
      if (is('<')) fail(peek(), 'an interface with type parameters');
      const bases: TypeRef[] = [];
      if (is('extends')) {
        take();
        do {
          if (bases.length > 0) take();
          const base = peek();
          bases.push({ t: 'ref', pos: base.pos, start: base.start, name: binding(), args: undefined });
          if (is('<') || is('.')) fail(peek(), 'an interface extending a generic or qualified type');
        } while (is(','));
      }
      statements.push({
        s: 'interface',
        pos: first.pos,
        start: first.start,
        exported,
        name,
        extends: bases,
        members: members(),
      });
      continue;
    }
    if (keyword.kind === 'ident' && keyword.value === 'type' && peek().kind === 'ident') {
      const name = binding();
      if (is('<')) fail(peek(), 'a generic type alias');
      expect('=');
      const aliased = type();
      endStatement();
      statements.push({ s: 'alias', pos: first.pos, start: first.start, exported, name, type: aliased });
      continue;
    }
    if (keyword.kind === 'ident' && (keyword.value === 'enum' || (keyword.value === 'const' && is('enum')))) {
      if (keyword.value === 'const') take();
      statements.push({ ...enumBody(), pos: first.pos, start: first.start, exported });
      continue;
    }
    if (keyword.kind === 'ident' && keyword.value === 'const') {
      const name = binding();
      // `export const AllowConcurrent: ConcurrencyPolicy = 'Allow';`
      let annotation: TypeNode | undefined;
      if (is(':')) {
        take();
        annotation = type();
      }
      expect('=');
      const init = expression();
      endStatement();
      statements.push({
        s: 'const',
        pos: first.pos,
        start: first.start,
        exported,
        name,
        init,
        ...(annotation ? { type: annotation } : {}),
      });
      continue;
    }
    fail(keyword, `a statement starting with \`${keyword.value}\``);
  }
  const eof = peek();
  return { fileName, text, statements, endPos: eof.pos, lineOf };
}
