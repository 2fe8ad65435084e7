import { ApiError } from '../client/api-error.ts';

/** `ECONNREFUSED`, as a socket error of node:http: what a stopped API server answers. */
export function connectionRefused(): Error {
  return Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:6443'), { code: 'ECONNREFUSED' });
}

/** `ECONNRESET`: a connection (e.g. an open watch) dropped by the server or the network. */
export function connectionReset(): Error {
  return Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' });
}

/** An error answer of the API server, as HttpTransport would reject with it. */
export function statusError(
  code: number,
  reason: string,
  message = reason,
  options: { method?: string; path?: string; retryAfterSeconds?: number } = {},
): ApiError {
  return new ApiError(code, options.method ?? 'GET', options.path ?? '/', {
    kind: 'Status',
    status: 'Failure',
    code,
    reason,
    message,
    ...(options.retryAfterSeconds !== undefined
      ? { details: { retryAfterSeconds: options.retryAfterSeconds } }
      : {}),
  });
}
