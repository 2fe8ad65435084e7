import type { ts as TS } from 'ts-morph';
import { parseDocComment, type DocComment, type DocCommentOptions } from '../markers/index.ts';

const EMPTY: DocComment = { description: '', tags: [], inline: [], goForm: [] };

/**
 * The `/** *\/` comment right before a declaration, split into description and tags. `options` says
 * which lines are controller-gen (Go-form) markers: the generators pass the index of every marker
 * registry (generate/go-forms.ts), which lives above this layer.
 */
export function docOf(
  ts: typeof TS,
  node: TS.Node,
  file: TS.SourceFile,
  options: DocCommentOptions,
): DocComment {
  const text = file.text;
  const ranges = ts.getLeadingCommentRanges(text, node.pos);
  if (!ranges) return EMPTY;
  for (let i = ranges.length - 1; i >= 0; i--) {
    const r = ranges[i];
    if (!r || r.kind !== ts.SyntaxKind.MultiLineCommentTrivia) continue;
    const comment = text.slice(r.pos, r.end);
    if (!comment.startsWith('/**') || comment === '/**/') continue;
    return parseDocComment(comment, file.getLineAndCharacterOfPosition(r.pos).line + 1, options);
  }
  return EMPTY;
}

/** 1-based line of a node's first token. */
export function lineOf(node: TS.Node, file: TS.SourceFile): number {
  return file.getLineAndCharacterOfPosition(node.getStart(file)).line + 1;
}
