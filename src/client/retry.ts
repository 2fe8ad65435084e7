import { realClock, type Clock } from '../shared/clock.ts';
import { ApiError } from './api-error.ts';
import type { ApiTransport, TransportRequest } from './transport-types.ts';

export interface RetryOptions {
  /** Retries per request after the first try. Default 5. */
  readonly maxRetries?: number;
  /** Total time one request may spend waiting between tries; a longer Retry-After fails it. Default 30 s. */
  readonly budgetMs?: number;
  /** Wait before the first retry when the server sends no Retry-After; doubled per retry. Default 250 ms. */
  readonly initialBackoffMs?: number;
  /** The longest wait without Retry-After. Default 4 s. */
  readonly maxBackoffMs?: number;
  /** Time for the waits (FakeClock in tests). */
  readonly clock?: Clock;
  /** Called before each retry, e.g. to log or count it. */
  readonly onRetry?: (req: TransportRequest, err: ApiError, delayMs: number) => void;
}

const MERGE_PATCH = 'application/merge-patch+json';
const APPLY_PATCH = 'application/apply-patch+yaml';

/**
 * Whether repeating `req` after the server may already have carried it out leaves the same result:
 * GET; a PUT carrying metadata.resourceVersion (a repeat of a PUT that went through fails with a
 * Conflict instead of writing twice); a server-side apply or a JSON merge patch (both give the same
 * object when applied twice). Not: POST (a second create, a second review or eviction), a JSON patch
 * (`add` to a list adds twice), a strategic merge patch (list directives), a PUT without
 * resourceVersion, and DELETE (a repeat of a delete that went through answers 404, which callers
 * would take for "was not there").
 */
export function isIdempotent(req: TransportRequest): boolean {
  switch (req.method) {
    case 'GET':
      return true;
    case 'PUT': {
      const rv = (req.body as { metadata?: { resourceVersion?: unknown } } | undefined)?.metadata
        ?.resourceVersion;
      return typeof rv === 'string' && rv !== '';
    }
    case 'PATCH':
      return req.contentType === APPLY_PATCH || req.contentType === MERGE_PATCH;
    default:
      return false;
  }
}

/**
 * Whether an error answer may be retried: 429 Too Many Requests for every request (the server
 * refused it before doing anything: API priority and fairness, max-in-flight), 500, 502, 503 and 504
 * only for idempotent ones (the server may have done the work before failing).
 */
export function isRetryable(req: TransportRequest, err: unknown): err is ApiError {
  if (!(err instanceof ApiError)) return false;
  if (err.statusCode === 429) return true;
  return [500, 502, 503, 504].includes(err.statusCode) && isIdempotent(req);
}

function wait(clock: Clock, ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    const onAbort = (): void => {
      clock.clearTimeout(timer);
      reject(signal?.reason instanceof Error ? signal.reason : new Error('aborted'));
    };
    const timer = clock.setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * A transport that retries what `isRetryable` allows, waiting what the server asks (Retry-After,
 * or the Status' retryAfterSeconds) or else an exponential backoff, within a bounded budget of
 * tries and time. Watches (`stream`) are passed through: the informer resumes them itself.
 */
export function withRetries(inner: ApiTransport, options: RetryOptions = {}): ApiTransport {
  const maxRetries = options.maxRetries ?? 5;
  const budgetMs = options.budgetMs ?? 30_000;
  const initial = options.initialBackoffMs ?? 250;
  const maxBackoff = options.maxBackoffMs ?? 4_000;
  const clock = options.clock ?? realClock;
  /** `send` until it succeeds or may not be retried. */
  const tries = async <T>(req: TransportRequest, send: () => Promise<T>): Promise<T> => {
    let waited = 0;
    for (let attempt = 0; ; attempt++) {
      try {
        return await send();
      } catch (err) {
        if (attempt >= maxRetries || !isRetryable(req, err) || req.signal?.aborted) throw err;
        const asked = err.retryAfterSeconds;
        const delay =
          asked !== undefined && asked >= 0 ? asked * 1000 : Math.min(maxBackoff, initial * 2 ** attempt);
        if (waited + delay > budgetMs) throw err;
        options.onRetry?.(req, err, delay);
        await wait(clock, delay, req.signal);
        waited += delay;
      }
    }
  };
  const requestItems = inner.requestItems?.bind(inner);
  return {
    request: <T>(req: TransportRequest): Promise<T> => tries(req, () => inner.request<T>(req)),
    // An error answer (the only kind retried) comes before any item: a retry hands on no item twice.
    ...(requestItems
      ? {
          requestItems: (req: TransportRequest, onItems: (items: unknown[]) => void) =>
            tries(req, () => requestItems(req, onItems)),
        }
      : {}),
    stream: (req, onLine, onOpen) => inner.stream(req, onLine, onOpen),
    close: () => inner.close(),
  };
}
