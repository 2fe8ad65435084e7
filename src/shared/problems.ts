import { OpGenError } from '../errors.ts';

/**
 * One problem in the user's input. `text` is the whole message as printed, starting with
 * `file:line:` (or `file:line:col:`) when the problem has a place.
 */
export interface Problem {
  readonly text: string;
}

const PLACE = /^(.+?):(\d+)(?::(\d+))?: /;

interface SortKey {
  readonly file: string;
  readonly line: number;
  readonly column: number;
}

function sortKey(text: string): SortKey | undefined {
  const m = PLACE.exec(text);
  if (!m) return undefined;
  return { file: m[1] ?? '', line: Number(m[2]), column: m[3] === undefined ? 0 : Number(m[3]) };
}

/** A problem split into its place and its message, for machine-readable output (`--json`). */
export interface PlacedProblem {
  readonly file?: string;
  readonly line?: number;
  readonly column?: number;
  readonly message: string;
}

/** Splits `file:line[:col]: message` into its parts; a problem without a place is all message. */
export function placeProblem(text: string): PlacedProblem {
  const m = PLACE.exec(text);
  if (!m) return { message: text };
  return {
    file: m[1] ?? '',
    line: Number(m[2]),
    ...(m[3] === undefined ? {} : { column: Number(m[3]) }),
    message: text.slice(m[0].length),
  };
}

/** The problems an error carries: each of a ProblemsError, else the error's message as one. */
export function problemsOf(err: OpGenError): PlacedProblem[] {
  return err instanceof ProblemsError
    ? err.problems.map((p) => placeProblem(p.text))
    : [placeProblem(err.message)];
}

function compareProblems(a: Problem, b: Problem): number {
  const ka = sortKey(a.text);
  const kb = sortKey(b.text);
  if (!ka || !kb) return ka ? -1 : kb ? 1 : 0; // problems without a place go last, in order found
  if (ka.file !== kb.file) return ka.file < kb.file ? -1 : 1;
  return ka.line - kb.line || ka.column - kb.column;
}

/**
 * Several problems found in one run. The message lists them sorted by file and line, one a line, and
 * ends with their count (`3 problems`); a single problem is printed alone, as before.
 */
export class ProblemsError extends OpGenError {
  readonly problems: readonly Problem[];
  constructor(problems: readonly Problem[]) {
    const sorted = [...problems].sort(compareProblems);
    super(
      sorted.length === 1
        ? (sorted[0]?.text ?? '')
        : `${sorted.map((p) => p.text).join('\n')}\n${sorted.length} problems`,
    );
    this.problems = sorted;
  }
}

/**
 * Collects the problems of one run (as controller-tools does per package) so the user sees every one
 * of them at once; `throwIfAny` ends the run with all of them. The same message twice counts once.
 */
export class ProblemCollector {
  readonly #texts = new Set<string>();

  get size(): number {
    return this.#texts.size;
  }

  add(text: string): void {
    this.#texts.add(text);
  }

  /** Records an OpGenError (every problem of a ProblemsError); rethrows anything else (a bug). */
  addError(err: unknown): void {
    if (err instanceof ProblemsError) for (const p of err.problems) this.add(p.text);
    else if (err instanceof OpGenError && err.exitCode === 1) this.add(err.message);
    else throw err;
  }

  /** Runs `fn`; an OpGenError it throws is recorded and `fallback` returned instead. */
  attempt<T>(fn: () => T, fallback: T): T {
    try {
      return fn();
    } catch (err) {
      this.addError(err);
      return fallback;
    }
  }

  throwIfAny(): void {
    if (this.#texts.size > 0) throw new ProblemsError([...this.#texts].map((text) => ({ text })));
  }
}
