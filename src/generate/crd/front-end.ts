import { OpGenError } from '../../errors.ts';
import { ProblemsError } from '../../shared/problems.ts';
import { Declined } from '../../source/decl-syntax/declined.ts';
import { buildWalk, walkApi, type ApiModelOptions, type WalkResult } from './model.ts';
import { sourcesFor } from '../../source/source-set.ts';
import { readSyntaxTypes } from './syntax-walk.ts';

/**
 * Which front end reads the API sources into the type model: `auto` (what generate crd and the API
 * model use) tries the syntax reader (syntax-walk.ts) and falls back to the type checker's
 * (model.ts, checker-types.ts); tests force `checker` or `syntax` to compare the two.
 */
export type CrdFrontEnd = 'auto' | 'checker' | 'syntax';

/**
 * The syntax front end's walk, or undefined when the type checker's must read the sources (it
 * declined, or `checker` is forced). With `syntax` forced, a decline is an error saying why.
 */
export async function syntaxWalk(
  options: ApiModelOptions,
  front: CrdFrontEnd,
): Promise<WalkResult | undefined> {
  if (front === 'checker') return undefined;
  try {
    return await syntaxWalkApi(options);
  } catch (err) {
    if (!(err instanceof Declined)) throw err;
    if (front === 'syntax') throw new OpGenError(`the syntax front end declined: ${err.message}`);
    return undefined;
  }
}

/** The walk of `front`: the syntax reader's, else (declined, or `checker`) the type checker's. */
export async function walkWith(
  options: ApiModelOptions,
  front: CrdFrontEnd,
  walkOptions: { collectDocs: boolean } = { collectDocs: false },
): Promise<WalkResult> {
  return (await syntaxWalk(options, front)) ?? (await walkApi(options, walkOptions));
}

/**
 * The schemas of what the syntax reader read. It hands every problem to the type checker's front end
 * (which reports it with the same message): a problem declines, and so does an API without kinds.
 */
async function syntaxWalkApi(options: ApiModelOptions): Promise<WalkResult> {
  const where = sourcesFor(options).apiDir;
  const walked = buildWalk(await readSyntaxTypes(options), { collectDocs: false });
  try {
    walked.problems.throwIfAny();
  } catch (err) {
    const first = err instanceof ProblemsError ? err.problems[0]?.text : String(err);
    throw new Declined(where, `a problem the type checker's front end reports (${first})`);
  }
  if (walked.kinds.length === 0) throw new Declined(where, 'no kinds');
  return walked;
}
