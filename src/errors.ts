/**
 * An error the user can act on: printed without a stack trace, with its exit code.
 * `location` is file:line when the error comes from a source file.
 */
export class OpGenError extends Error {
  readonly exitCode: number;
  constructor(message: string, options: { exitCode?: number; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'OpGenError';
    this.exitCode = options.exitCode ?? 1;
  }
}

/** Wrong use of the command line: exit code 2. */
export class UsageError extends OpGenError {
  constructor(message: string) {
    super(message, { exitCode: 2 });
    this.name = 'UsageError';
  }
}
