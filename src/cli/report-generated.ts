import { relative } from 'node:path';
import { OpGenError } from '../errors.ts';
import type { CommandContext } from './context.ts';

/**
 * How a generator command reports its output: with --check, an error listing the files that would
 * change (exit 1) or a one-line "up to date"; otherwise one line per file, written or unchanged.
 */
export function reportGenerated(
  ctx: CommandContext,
  result: {
    readonly files: readonly string[];
    readonly changed: readonly string[];
    /** Stale files deleted. */
    readonly removed?: readonly string[];
  },
  options: { readonly check: boolean; readonly what: string; readonly command: string },
): void {
  const shown = (p: string): string => (relative(ctx.cwd, p).startsWith('..') ? p : relative(ctx.cwd, p));
  if (options.check) {
    if (result.changed.length > 0) {
      throw new OpGenError(
        `${result.changed.length} ${options.what} file(s) out of date:\n${result.changed.map((f) => `  ${shown(f)}`).join('\n')}\nRun \`${options.command}\` and commit the result.`,
      );
    }
    ctx.stdout.write(`${result.files.length} ${options.what} file(s) up to date\n`);
    return;
  }
  for (const f of result.files)
    ctx.stdout.write(`${result.changed.includes(f) ? 'wrote    ' : 'unchanged'} ${shown(f)}\n`);
  for (const f of result.removed ?? []) ctx.stdout.write(`removed   ${shown(f)} (stale)\n`);
}
