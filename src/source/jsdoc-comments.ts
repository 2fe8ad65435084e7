import type { ts as TS } from 'ts-morph';
import { loadTypeScript } from './typescript.ts';

/** Every JSDoc block (`/** ... *\/`) of a source file, found through the parser (so never inside strings). */
export function jsDocComments(sourceFile: TS.SourceFile): TS.CommentRange[] {
  const ts = loadTypeScript();
  const text = sourceFile.text;
  const seen = new Map<number, TS.CommentRange>();
  // Comments on the same line as the token before them count as that token's trailing comments.
  const collect = (pos: number): void => {
    const ranges = [
      ...(ts.getLeadingCommentRanges(text, pos) ?? []),
      ...(ts.getTrailingCommentRanges(text, pos) ?? []),
    ];
    for (const range of ranges) {
      if (range.kind === ts.SyntaxKind.MultiLineCommentTrivia && text.startsWith('/**', range.pos)) {
        seen.set(range.pos, range);
      }
    }
  };
  const visit = (node: TS.Node): void => {
    collect(node.pos);
    ts.forEachChild(node, visit);
    collect(node.end);
  };
  collect(0);
  visit(sourceFile);
  return [...seen.values()].sort((a, b) => a.pos - b.pos);
}
