import { OpGenError } from '../../errors.ts';
import type { SourceLocation } from '../../markers/index.ts';

/** An error in an API source: `file:line: Type.path: problem. fix` */
export function sourceError(
  location: SourceLocation,
  typePath: string,
  problem: string,
  fix: string,
): OpGenError {
  return new OpGenError(`${location.file}:${location.line}: ${typePath}: ${problem}. ${fix}`);
}
