import { OpGenError } from '../../errors.ts';
import { Declined } from '../../source/decl-syntax/declined.ts';
import type { ApiModelOptions, WalkResult } from './model.ts';
import { syntaxWalkApi } from './syntax-walk.ts';

export type CrdFrontEnd = 'auto' | 'checker' | 'syntax';

/**
 * Which walk reads the API sources: `auto` (the default) tries the syntax front end
 * (syntax-walk.ts) and falls back to the type checker's (model.ts); `checker` and `syntax` force one
 * (OP_GEN_CRD_FRONT_END; for tests, and to find out why a project is not read by the fast one).
 */
export function crdFrontEnd(): CrdFrontEnd {
  const value = process.env.OP_GEN_CRD_FRONT_END;
  if (value === undefined || value === '' || value === 'auto') return 'auto';
  if (value === 'checker' || value === 'syntax') return value;
  throw new OpGenError(`OP_GEN_CRD_FRONT_END must be auto, checker or syntax, got ${value}`, { exitCode: 2 });
}

/**
 * The syntax front end's walk, or undefined when the type checker's walk must read the sources
 * (it declined, or `checker` is forced). With `syntax` forced, a decline is an error saying why.
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
