import { ts } from 'ts-morph';
import { OpGenError } from '../../errors.ts';
import { closest } from './validate-rule.ts';
import { MarkerSyntaxError, parseMarkerArguments } from './marker-args.ts';
import type { RbacRule } from './rule.ts';

/** The arguments `@rbac` accepts (controller-gen's `+kubebuilder:rbac` names). */
export const RBAC_MARKER_KEYS = [
  'groups',
  'resources',
  'resourceNames',
  'verbs',
  'urls',
  'namespace',
  'roleName',
] as const;
type RbacKey = (typeof RBAC_MARKER_KEYS)[number];
const LIST_KEYS: readonly RbacKey[] = ['groups', 'resources', 'resourceNames', 'verbs', 'urls'];

export interface RbacMarkerText {
  /** 1-based line of the `@rbac` tag. */
  readonly line: number;
  /** The tag's text after `@rbac`, continuation lines joined with spaces. */
  readonly text: string;
}

/** Every JSDoc block (`/** ... *\/`) of a source file, found through the parser (so never inside strings). */
function jsDocComments(sourceFile: ts.SourceFile): ts.CommentRange[] {
  const text = sourceFile.text;
  const seen = new Map<number, ts.CommentRange>();
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
  const visit = (node: ts.Node): void => {
    collect(node.pos);
    ts.forEachChild(node, visit);
    collect(node.end);
  };
  collect(0);
  visit(sourceFile);
  return [...seen.values()].sort((a, b) => a.pos - b.pos);
}

/** The `@rbac` tags of a file's JSDoc comments, with their lines. */
export function findRbacMarkerTexts(sourceFile: ts.SourceFile): RbacMarkerText[] {
  const found: RbacMarkerText[] = [];
  for (const range of jsDocComments(sourceFile)) {
    const body = sourceFile.text.slice(range.pos + 3, range.end - 2);
    const firstLine = sourceFile.getLineAndCharacterOfPosition(range.pos).line + 1;
    const lines = body.split(/\r?\n/).map((l) => l.replace(/^\s*\*?\s?/, '').trimEnd());
    let current: { line: number; parts: string[] } | undefined;
    const flush = (): void => {
      if (current) found.push({ line: current.line, text: current.parts.join(' ').trim() });
      current = undefined;
    };
    lines.forEach((line, i) => {
      const trimmed = line.trim();
      if (trimmed.startsWith('@')) {
        flush();
        const match = /^@rbac(?:\s+(.*))?$/.exec(trimmed);
        if (match) current = { line: firstLine + i, parts: [match[1] ?? ''] };
        return;
      }
      if (current) {
        if (trimmed === '') flush();
        else current.parts.push(trimmed);
      }
    });
    flush();
  }
  return found;
}

/** Turns one `@rbac` tag into a rule; syntax errors name file:line. */
export function parseRbacMarker(marker: RbacMarkerText, file: string): RbacRule {
  const where = `${file}:${marker.line}: @rbac`;
  let args;
  try {
    args = parseMarkerArguments(marker.text);
  } catch (err) {
    if (err instanceof MarkerSyntaxError) {
      throw new OpGenError(
        `${where}: ${err.message}. Write e.g. \`@rbac groups=apps resources=deployments verbs=get;list;watch\`.`,
      );
    }
    throw err;
  }
  if (args.length === 0) {
    throw new OpGenError(
      `${where}: no arguments. Write e.g. \`@rbac groups=apps resources=deployments verbs=get;list;watch\`.`,
    );
  }
  const lists: Record<string, string[]> = {};
  const scalars: Record<string, string> = {};
  for (const arg of args) {
    if (!(RBAC_MARKER_KEYS as readonly string[]).includes(arg.key)) {
      const hint = closest(arg.key, RBAC_MARKER_KEYS);
      throw new OpGenError(
        `${where}: unknown argument \`${arg.key}\`${hint ? ` (did you mean \`${hint}\`?)` : ''}. ` +
          `Arguments: ${RBAC_MARKER_KEYS.join(', ')}.`,
      );
    }
    if (arg.key in lists || arg.key in scalars) {
      throw new OpGenError(`${where}: \`${arg.key}\` given twice; list several values with \`;\`.`);
    }
    if ((LIST_KEYS as readonly string[]).includes(arg.key)) {
      lists[arg.key] = arg.values;
    } else {
      if (arg.values.length !== 1) {
        throw new OpGenError(`${where}: \`${arg.key}\` takes one value, e.g. \`${arg.key}=my-value\`.`);
      }
      scalars[arg.key] = arg.values[0] ?? '';
    }
  }
  return {
    groups: lists.groups ?? [],
    resources: lists.resources ?? [],
    resourceNames: lists.resourceNames ?? [],
    urls: lists.urls ?? [],
    verbs: lists.verbs ?? [],
    ...(scalars.namespace !== undefined ? { namespace: scalars.namespace } : {}),
    ...(scalars.roleName !== undefined ? { roleName: scalars.roleName } : {}),
    origin: { file, line: marker.line, source: '@rbac' },
  };
}

export function rbacMarkerRules(sourceFile: ts.SourceFile, file: string): RbacRule[] {
  return findRbacMarkerTexts(sourceFile).map((marker) => parseRbacMarker(marker, file));
}
