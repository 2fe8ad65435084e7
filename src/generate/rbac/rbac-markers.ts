import type { ts as TS } from 'ts-morph';
import { jsDocComments } from '../../source/jsdoc-comments.ts';
import { OpGenError } from '../../errors.ts';
import { goFormLines, goFormProblems } from '../go-forms.ts';
import { parseDocComment } from '../../markers/jsdoc.ts';
import { rbacMarkers } from './markers.ts';
import type { RawTag } from '../../markers/types.ts';
import { ProblemsError } from '../../shared/problems.ts';
import type { RbacRule } from './rule.ts';

/** The `@rbac` tags of a file's JSDoc comments, with their lines; the problems found on the way. */
export function findRbacTags(
  sourceFile: TS.SourceFile,
  display: string = sourceFile.fileName,
  problems: string[] = [],
): RawTag[] {
  const tags: RawTag[] = [];
  for (const range of jsDocComments(sourceFile)) {
    const line = sourceFile.getLineAndCharacterOfPosition(range.pos).line + 1;
    const comment = parseDocComment(sourceFile.text.slice(range.pos, range.end), line, goFormLines);
    // `+kubebuilder:rbac:...` (Go form) is an error naming the @rbac to write; other generators'
    // Go-form markers are theirs to report.
    problems.push(
      ...goFormProblems(comment, display, {
        accept: (spec) => spec?.name === 'rbac',
        docs: 'docs/generate-rbac.md',
      }),
    );
    for (const tag of comment.tags) {
      if (rbacMarkers.knows(tag.name)) tags.push(tag);
      else if (rbacMarkers.suggest(tag.name)) {
        problems.push(
          `${display}:${tag.line}: @${tag.name}: unknown tag. Did you mean @rbac? (see docs/generate-rbac.md)`,
        );
      }
    }
  }
  return tags;
}

/**
 * `groups=""` is controller-gen's way to name the core group. The shared list parser rejects empty
 * items, so a quoted empty item is rewritten to its equivalent `core` before parsing.
 */
function coreGroupAlias(text: string): string {
  return text.replace(/(^|\s)groups=(\S*)/g, (_m, lead: string, value: string) => {
    const items = value.split(';').map((item) => (item === '""' || item === "''" ? 'core' : item));
    return `${lead}groups=${items.join(';')}`;
  });
}

const strings = (value: unknown): string[] => (Array.isArray(value) ? value.map(String) : []);

/** Turns one `@rbac` tag into a rule; errors name file:line. */
export function parseRbacTag(tag: RawTag, file: string): RbacRule {
  commaSeparatedArgs(tag, file);
  let parsed;
  try {
    parsed = rbacMarkers.parse({ ...tag, text: coreGroupAlias(tag.text) }, 'package', file);
  } catch (err) {
    if (err instanceof OpGenError) {
      throw new OpGenError(err.message.replace('docs/markers.md', 'docs/generate-rbac.md'), {
        exitCode: err.exitCode,
      });
    }
    throw err;
  }
  if (!parsed) throw new Error(`internal: @${tag.name} is not an rbac marker`);
  const { args } = parsed;
  return {
    groups: strings(args.groups),
    resources: strings(args.resources),
    resourceNames: strings(args.resourceNames),
    urls: strings(args.urls),
    verbs: strings(args.verbs),
    ...(typeof args.namespace === 'string' ? { namespace: args.namespace } : {}),
    ...(typeof args.roleName === 'string' ? { roleName: args.roleName } : {}),
    origin: { file, line: tag.line, source: '@rbac' },
  };
}

/**
 * `@rbac groups=apps,resources=deployments,verbs=get` (controller-gen's commas): an error that shows
 * the tag with spaces, instead of a confusing "missing verbs".
 */
function commaSeparatedArgs(tag: RawTag, file: string): void {
  const names = Object.keys(rbacMarkers.specs[0]?.args ?? {}).join('|');
  const comma = new RegExp(`,\\s*(?=(?:${names})=)`, 'gi');
  const outside = tag.text.replace(/"(?:[^"\\]|\\.)*"/g, '""');
  if (!comma.test(outside)) return;
  throw new OpGenError(
    `${file}:${tag.line}: @${tag.name}: arguments are separated by spaces, not commas: @${tag.name} ${tag.text.replace(comma, ' ')} (see docs/generate-rbac.md)`,
  );
}

/** Every `@rbac` rule of a file; all of the file's problems at once. */
export function rbacMarkerRules(sourceFile: TS.SourceFile, file: string): RbacRule[] {
  const problems: string[] = [];
  const rules: RbacRule[] = [];
  for (const tag of findRbacTags(sourceFile, file, problems)) {
    try {
      rules.push(parseRbacTag(tag, file));
    } catch (err) {
      if (!(err instanceof OpGenError)) throw err;
      problems.push(err.message);
    }
  }
  if (problems.length > 0) throw new ProblemsError(problems.map((text) => ({ text })));
  return rules;
}
