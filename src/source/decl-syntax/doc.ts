import { parseDocComment, type DocComment, type DocCommentOptions } from '../../markers/index.ts';
import type { DeclFile } from './ast.ts';
import { isLineBreak, isSpace } from './scanner.ts';

const EMPTY: DocComment = { description: '', tags: [], inline: [], goForm: [] };

/**
 * The `/** *\/` comment of the node whose leading trivia starts at `pos`, as source/doc.ts reads it
 * through TypeScript: of the comments TypeScript counts as leading (after `pos`, but not those on
 * the line `pos` ends, unless `pos` is the file's start), the last one that is a JSDoc comment.
 */
export function declDoc(file: DeclFile, pos: number, options: DocCommentOptions): DocComment {
  const text = file.text;
  let collecting = pos === 0;
  let found: { start: number; end: number } | undefined;
  let i = pos;
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (isLineBreak(c)) {
      collecting = true;
      i++;
    } else if (isSpace(c)) i++;
    else if (c === 47 && text.charCodeAt(i + 1) === 47) {
      while (i < text.length && !isLineBreak(text.charCodeAt(i))) i++;
    } else if (c === 47 && text.charCodeAt(i + 1) === 42) {
      const close = text.indexOf('*/', i + 2);
      const end = close < 0 ? text.length : close + 2;
      if (collecting && text.startsWith('/**', i) && end - i > 4) found = { start: i, end };
      i = end;
    } else break;
  }
  if (!found) return EMPTY;
  return parseDocComment(text.slice(found.start, found.end), file.lineOf(found.start), options);
}
