/**
 * The syntax tree of a declaration file as the syntax front end reads it: imports, interfaces, type
 * aliases, string enums and `const` declarations, nothing else (parser.ts declines any other shape). Positions are
 * offsets in the file's text: `pos` where the node's leading trivia starts (the end of the token
 * before it, as TypeScript's `node.pos`), `start` where its first token starts.
 */

export interface Span {
  readonly pos: number;
  readonly start: number;
}

export type TypeNode =
  | KeywordType
  | LiteralType
  | ParenType
  | ArrayType
  | ReadonlyArrayType
  | TypeRef
  | UnionType
  | ObjectLiteralType
  | ConstValuesType;

export interface KeywordType extends Span {
  readonly t: 'keyword';
  readonly name: 'string' | 'number' | 'boolean' | 'null' | 'undefined' | 'unknown';
}

/** A string literal type (`'Always'`). */
export interface LiteralType extends Span {
  readonly t: 'literal';
  readonly value: string;
}

export interface ParenType extends Span {
  readonly t: 'paren';
  readonly type: TypeNode;
}

/** `T[]`. */
export interface ArrayType extends Span {
  readonly t: 'array';
  readonly element: TypeNode;
}

/** `readonly T[]` (the operator; its operand is always an array type). */
export interface ReadonlyArrayType extends Span {
  readonly t: 'readonly';
  readonly type: ArrayType;
}

/** A reference to a named type, with its type arguments (`Record<string, T>`). */
export interface TypeRef extends Span {
  readonly t: 'ref';
  readonly name: string;
  readonly args: readonly TypeNode[] | undefined;
}

export interface UnionType extends Span {
  readonly t: 'union';
  readonly types: readonly TypeNode[];
}

/** `{ a: string }` written inline. */
export interface ObjectLiteralType extends Span {
  readonly t: 'object';
  readonly members: readonly Member[];
}

/**
 * `(typeof X)[keyof typeof X]` (or without the parentheses): the values of a constant, the idiom
 * for a string enum written as an `as const` object.
 */
export interface ConstValuesType extends Span {
  readonly t: 'constValues';
  readonly name: string;
}

export type Member = PropertyMember | IndexMember;

export interface PropertyMember extends Span {
  readonly m: 'property';
  readonly name: string;
  readonly optional: boolean;
  readonly type: TypeNode;
}

/** `[key: string]: T`. */
export interface IndexMember extends Span {
  readonly m: 'index';
  readonly type: TypeNode;
}

export type Expression =
  | { readonly e: 'string'; readonly value: string }
  | { readonly e: 'number' | 'true' | 'false' | 'null' }
  | { readonly e: 'object'; readonly properties: readonly { name: string; value: Expression }[] }
  | { readonly e: 'array'; readonly items: readonly Expression[] }
  | { readonly e: 'name'; readonly name: string }
  | {
      readonly e: 'call';
      readonly callee: string;
      readonly typeArgs: readonly TypeNode[];
      readonly args: readonly Expression[];
    }
  | { readonly e: 'asConst'; readonly expression: Expression };

export interface ImportDecl extends Span {
  readonly s: 'import';
  readonly module: string;
  /** local name → the name the module exports. */
  readonly names: ReadonlyMap<string, string>;
}

export interface InterfaceDecl extends Span {
  readonly s: 'interface';
  readonly exported: boolean;
  readonly name: string;
  /** The interfaces it extends (names only: `extends A, B`). */
  readonly extends: readonly TypeRef[];
  readonly members: readonly Member[];
}

export interface TypeAliasDecl extends Span {
  readonly s: 'alias';
  readonly exported: boolean;
  readonly name: string;
  readonly type: TypeNode;
}

export interface ConstDecl extends Span {
  readonly s: 'const';
  readonly exported: boolean;
  readonly name: string;
  /** The type written after the name (`const a: Policy = 'A'`), if any. */
  readonly type?: TypeNode;
  readonly init: Expression;
}

/** `enum X { A = 'a' }` or `const enum X { ... }`: members with string values only (parser.ts). */
export interface EnumDecl extends Span {
  readonly s: 'enum';
  readonly exported: boolean;
  readonly name: string;
  readonly members: readonly { readonly name: string; readonly value: string }[];
}

/** `export { A, B as C } from './x'`, `export type { A } from './x'`, `export * from './x'`. */
export interface ExportFromDecl extends Span {
  readonly s: 'exportFrom';
  readonly module: string;
  /** Exported name → the module's name; undefined for `export * from`. */
  readonly names: ReadonlyMap<string, string> | undefined;
}

export type Statement = ImportDecl | ExportFromDecl | InterfaceDecl | TypeAliasDecl | ConstDecl | EnumDecl;

export interface DeclFile {
  readonly fileName: string;
  readonly text: string;
  readonly statements: readonly Statement[];
  /** Where the end-of-file token's leading trivia starts. */
  readonly endPos: number;
  /** 1-based line of an offset, counting line breaks as TypeScript does. */
  lineOf(offset: number): number;
}
