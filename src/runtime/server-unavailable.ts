import { ApiError } from '../client/api-error.ts';

/** Socket errors that mean the API server could not be reached (or dropped the connection). */
const UNREACHABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
]);

/**
 * True when `err` says the API server is down or overloaded rather than that the request was wrong:
 * a socket error (connection refused or reset, socket hang up) or a 5xx answer. Retrying such a
 * failure helps only once the server is back.
 */
export function isServerUnavailable(err: unknown): boolean {
  if (err instanceof ApiError) return err.statusCode >= 500;
  if (!(err instanceof Error)) return false;
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string' && UNREACHABLE_CODES.has(code)) return true;
  return err.message === 'socket hang up';
}
