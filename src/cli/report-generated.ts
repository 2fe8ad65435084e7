import { OpGenError } from '../errors.ts';
import { outOfDate, type GenerateResult } from '../generation/contract.ts';
import { problemsOf, type PlacedProblem } from '../shared/problems.ts';
import type { CommandContext } from './context.ts';

export interface ReportOptions {
  /** `--check` was given. */
  readonly check: boolean;
  /** `--json` was given: the result as one JSON object on stdout instead of lines. */
  readonly json?: boolean;
  /** What the files are, for the lines: `CRD`, `RBAC`, `bundle`. */
  readonly what: string;
  /** The command to run to bring them up to date. */
  readonly command: string;
}

/** The JSON `--json` prints: the generator's result, `ok`, and every problem with its place. */
export interface JsonReport extends GenerateResult {
  readonly ok: boolean;
  readonly problems: readonly PlacedProblem[];
}

/** The result fields, in a fixed order (a plan's extras such as the CRDs themselves are left out). */
function resultFields(result: GenerateResult): GenerateResult {
  const { generator, check, files, written, unchanged, stale, removed } = result;
  return { generator, check, files, written, unchanged, stale, removed };
}

function writeJson(ctx: CommandContext, value: object): void {
  ctx.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

/**
 * How a generator command reports its output: with --check, an error listing the files that would
 * change (exit 1) or a one-line "up to date"; otherwise one line per file, written or unchanged, and
 * one per stale file removed. With --json, the same as one JSON object on stdout (still exit 1 when
 * --check finds files out of date).
 */
export function reportGenerated(
  ctx: CommandContext,
  result: GenerateResult,
  options: ReportOptions,
  extra: object = {},
): void {
  const stale = options.check ? outOfDate(result) : [];
  const failure =
    stale.length > 0
      ? new OpGenError(
          `${stale.length} ${options.what} file(s) out of date:\n${stale.map((f) => `  ${f}`).join('\n')}\nRun \`${options.command}\` and commit the result.`,
        )
      : undefined;
  if (options.json) {
    writeJson(ctx, { ...resultFields(result), ...extra, ok: failure === undefined, problems: [] });
  } else if (options.check) {
    if (!failure) ctx.stdout.write(`${result.files.length} ${options.what} file(s) up to date\n`);
  } else {
    const written = new Set(result.written);
    for (const f of result.files) ctx.stdout.write(`${written.has(f) ? 'wrote    ' : 'unchanged'} ${f}\n`);
    for (const f of result.removed) ctx.stdout.write(`removed   ${f} (stale)\n`);
  }
  if (failure) throw failure;
}

/**
 * Runs `fn`; with `json`, a problem it throws (an OpGenError) is printed as the JSON report, no
 * files and every problem with its place, before it ends the command (non-zero exit, the message on
 * stderr as without --json).
 */
export async function reportingProblems<T>(
  ctx: CommandContext,
  json: { readonly generator: string; readonly check: boolean } | undefined,
  fn: () => Promise<T>,
): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (json && err instanceof OpGenError) {
      const empty: GenerateResult = {
        ...json,
        files: [],
        written: [],
        unchanged: [],
        stale: [],
        removed: [],
      };
      writeJson(ctx, { ...empty, ok: false, problems: problemsOf(err) });
    }
    throw err;
  }
}

/** Prints any JSON value as `--json` does (for `bundle validate`). */
export function reportJson(ctx: CommandContext, value: object): void {
  writeJson(ctx, value);
}
