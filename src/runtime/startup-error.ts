import { OpGenError } from '../errors.ts';

/**
 * For an operator's entry point (`Manager.create(...).catch(exitOnStartupError)`): a problem the user
 * must fix before anything can run (no kubeconfig, ...) is one line on stderr and exit code 1, not a
 * stack trace; any other error is rethrown.
 */
export function exitOnStartupError(err: unknown): never {
  if (err instanceof OpGenError) {
    process.stderr.write(`${err.message}\n`);
    process.exit(err.exitCode);
  }
  throw err;
}
