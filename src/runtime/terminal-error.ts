import type { Request } from './object-key.ts';

/**
 * A reconcile failure retrying will not fix (controller-runtime's `reconcile.TerminalError`): the
 * controller logs it, counts it in `controller_runtime_terminal_reconcile_errors_total`, optionally
 * records a Warning event on the object, and does not requeue the key. The next change of the
 * object (or a resync) reconciles it again. `cause` is the error behind it.
 */
export class TerminalError extends Error {
  constructor(message: string | Error, options: { cause?: unknown } = {}) {
    const cause = message instanceof Error ? message : options.cause;
    super(message instanceof Error ? message.message : message, cause === undefined ? {} : { cause });
    this.name = 'TerminalError';
  }
}

/** Whether `err`, or an error in its `cause` chain, is a TerminalError. */
export function isTerminalError(err: unknown): boolean {
  for (let e = err, depth = 0; e instanceof Error && depth < 16; e = e.cause, depth++)
    if (e instanceof TerminalError) return true;
  return false;
}

/**
 * What to do after a failed reconcile: `backoff` (requeue through the rate limiter), `terminal`
 * (no requeue, as for a TerminalError) or `{ requeueAfter }` (requeue after this many ms, without
 * counting a failure in the rate limiter).
 */
export type ErrorAction = 'backoff' | 'terminal' | { readonly requeueAfter: number };

/**
 * Decides what a failed reconcile leads to (kube-rs's `error_policy`); `undefined` keeps the default:
 * a TerminalError is terminal, everything else backs off.
 */
export type ErrorPolicy = (err: unknown, req: Request) => ErrorAction | undefined;

export function defaultErrorAction(err: unknown): ErrorAction {
  return isTerminalError(err) ? 'terminal' : 'backoff';
}
