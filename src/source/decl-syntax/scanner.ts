import { Declined } from './declined.ts';

export type TokenKind = 'ident' | 'string' | 'number' | 'punct' | 'eof';

export interface Token {
  readonly kind: TokenKind;
  /** The identifier or punctuator as written; a string literal's value. */
  readonly value: string;
  /** End of the token before (where this token's leading trivia starts). */
  readonly pos: number;
  readonly start: number;
  readonly end: number;
  /** A line break stands between this token and the one before. */
  readonly newlineBefore: boolean;
}

const PUNCT = new Set(['{', '}', '(', ')', '[', ']', '<', '>', ';', ',', ':', '?', '|', '=', '*']);

/** Offsets where lines start, counting CR LF, CR, LF, U+2028 and U+2029 as TypeScript does. */
export function lineStarts(text: string): number[] {
  const starts = [0];
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 13) {
      if (text.charCodeAt(i + 1) === 10) i++;
      starts.push(i + 1);
    } else if (c === 10 || c === 0x2028 || c === 0x2029) {
      starts.push(i + 1);
    }
  }
  return starts;
}

/** TypeScript's line breaks. */
export const isLineBreak = (c: number): boolean => c === 10 || c === 13 || c === 0x2028 || c === 0x2029;
/** The white space (other than line breaks) the subset reads between tokens. */
export const isSpace = (c: number): boolean => c === 32 || c === 9 || c === 11 || c === 12 || c === 0xa0;
const isIdentStart = (c: number): boolean =>
  (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95 || c === 36;
const isIdentPart = (c: number): boolean => isIdentStart(c) || (c >= 48 && c <= 57);

/**
 * The tokens of the subset the syntax front end reads: ASCII identifiers, punctuators, string
 * literals without escapes, decimal integers. Anything else (a template literal, an escape, a
 * regular expression, a decorator, a non-ASCII identifier) declines.
 */
export function scan(text: string, where: (offset: number) => string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  let pos = 0;
  if (text.charCodeAt(0) === 0xfeff || text.startsWith('#!'))
    throw new Declined(where(0), 'a BOM or shebang');
  const n = text.length;
  for (;;) {
    let newline = false;
    // Trivia: white space, line breaks, comments.
    for (;;) {
      // The end is checked before reading: a read past it deoptimises this loop (it ran twice a file).
      if (i >= n) break;
      const c = text.charCodeAt(i);
      if (isSpace(c)) i++;
      else if (isLineBreak(c)) {
        newline = true;
        i++;
      } else if (c === 47 && text.charCodeAt(i + 1) === 47) {
        while (i < n && !isLineBreak(text.charCodeAt(i))) i++;
      } else if (c === 47 && text.charCodeAt(i + 1) === 42) {
        const close = text.indexOf('*/', i + 2);
        if (close < 0) throw new Declined(where(i), 'an unterminated comment');
        for (let k = i; k < close; k++) if (isLineBreak(text.charCodeAt(k))) newline = true;
        i = close + 2;
      } else if (c > 127) throw new Declined(where(i), 'a non-ASCII character outside comments');
      else break;
    }
    const start = i;
    if (i >= n) {
      tokens.push({ kind: 'eof', value: '', pos, start: n, end: n, newlineBefore: newline });
      return tokens;
    }
    const c = text.charCodeAt(i);
    let kind: TokenKind;
    let value: string;
    if (isIdentStart(c)) {
      while (i < n && isIdentPart(text.charCodeAt(i))) i++;
      if (text.charCodeAt(i) === 92 || text.charCodeAt(i) > 127)
        throw new Declined(where(i), 'an identifier with an escape or non-ASCII letter');
      kind = 'ident';
      value = text.slice(start, i);
    } else if (c >= 48 && c <= 57) {
      while (i < n && text.charCodeAt(i) >= 48 && text.charCodeAt(i) <= 57) i++;
      if (isIdentPart(text.charCodeAt(i)) || text.charCodeAt(i) === 46)
        throw new Declined(where(start), 'a numeric literal other than a decimal integer');
      kind = 'number';
      value = text.slice(start, i);
    } else if (c === 39 || c === 34) {
      i++;
      while (i < n && text.charCodeAt(i) !== c) {
        const d = text.charCodeAt(i);
        if (d === 92 || isLineBreak(d))
          throw new Declined(where(i), 'a string literal with an escape or line break');
        i++;
      }
      if (i >= n) throw new Declined(where(start), 'an unterminated string literal');
      i++;
      kind = 'string';
      value = text.slice(start + 1, i - 1);
    } else if (PUNCT.has(text[i] ?? '')) {
      i++;
      kind = 'punct';
      value = text.slice(start, i);
    } else {
      throw new Declined(where(start), `the character \`${text[start]}\``);
    }
    tokens.push({ kind, value, pos, start, end: i, newlineBefore: newline });
    pos = i;
  }
}
