/** A cause of an Invalid (422) answer: which field, and why. */
export interface StatusCause {
  readonly reason?: string;
  readonly message?: string;
  readonly field?: string;
}

/** The reasons of metav1.Status that callers branch on. */
export type StatusReason =
  | 'NotFound'
  | 'AlreadyExists'
  | 'Conflict'
  | 'Invalid'
  | 'Forbidden'
  | 'Unauthorized'
  | 'BadRequest'
  | 'Gone'
  | 'Expired'
  | 'TooManyRequests'
  | 'Timeout'
  | 'ServerTimeout'
  | 'MethodNotAllowed'
  | 'InternalError'
  | 'ServiceUnavailable'
  | 'UnsupportedMediaType'
  | 'RequestEntityTooLarge'
  | 'NotAcceptable'
  | 'Unknown';

interface StatusBody {
  readonly kind?: string;
  readonly message?: string;
  readonly reason?: string;
  readonly details?: { readonly causes?: readonly StatusCause[]; readonly retryAfterSeconds?: number };
}

const REASON_BY_CODE: Readonly<Record<number, StatusReason>> = {
  400: 'BadRequest',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'NotFound',
  405: 'MethodNotAllowed',
  406: 'NotAcceptable',
  409: 'Conflict',
  410: 'Gone',
  413: 'RequestEntityTooLarge',
  415: 'UnsupportedMediaType',
  422: 'Invalid',
  429: 'TooManyRequests',
  500: 'InternalError',
  503: 'ServiceUnavailable',
  504: 'Timeout',
};

/** An error answer of the API server, typed: status code, reason, message and causes. */
export class ApiError extends Error {
  readonly statusCode: number;
  readonly reason: StatusReason;
  readonly causes: readonly StatusCause[];
  readonly retryAfterSeconds: number | undefined;
  readonly method: string;
  readonly path: string;

  /** `retryAfterSeconds`: the Retry-After header's value, when the answer had one. */
  constructor(statusCode: number, method: string, path: string, body: unknown, retryAfterSeconds?: number) {
    const status = (typeof body === 'object' && body !== null ? body : {}) as StatusBody;
    const reason = (status.reason as StatusReason | undefined) ?? REASON_BY_CODE[statusCode] ?? 'Unknown';
    super(
      `${method} ${path}: ${statusCode} ${reason}: ${status.message ?? (typeof body === 'string' ? body : '')}`.trim(),
    );
    this.name = 'ApiError';
    this.statusCode = statusCode;
    // A 409 answer with reason AlreadyExists is not a Conflict: keep the server's reason.
    this.reason = reason;
    this.causes = status.details?.causes ?? [];
    this.retryAfterSeconds = retryAfterSeconds ?? status.details?.retryAfterSeconds;
    this.method = method;
    this.path = path;
  }
}

export function isApiError(err: unknown): err is ApiError {
  return err instanceof ApiError;
}
export const isNotFound = (err: unknown): boolean => isApiError(err) && err.statusCode === 404;
export const isConflict = (err: unknown): boolean => isApiError(err) && err.reason === 'Conflict';
export const isAlreadyExists = (err: unknown): boolean => isApiError(err) && err.reason === 'AlreadyExists';
export const isForbidden = (err: unknown): boolean => isApiError(err) && err.statusCode === 403;
export const isInvalid = (err: unknown): boolean => isApiError(err) && err.statusCode === 422;
export const isGone = (err: unknown): boolean =>
  isApiError(err) && (err.statusCode === 410 || err.reason === 'Expired');
