import type { IncomingHttpHeaders, OutgoingHttpHeaders } from 'node:http';
import type { CredentialSource, Credentials } from './credentials.ts';
import type { Query, TransportRequest } from './transport-types.ts';

/** What the HTTP/1.1 and the HTTP/2 transport share: query strings, bodies, headers, watch lines. */

export function queryString(query: Query | undefined): string {
  if (!query) return '';
  const parts: string[] = [];
  for (const [k, v] of Object.entries(query)) {
    if (v !== undefined && v !== '') parts.push(`${encodeURIComponent(k)}=${encodeURIComponent(String(v))}`);
  }
  return parts.length > 0 ? `?${parts.join('&')}` : '';
}

/** The path of a request below the server URL's own path (a proxy may serve the API under a prefix). */
export function requestPath(server: URL, req: TransportRequest): string {
  return `${server.pathname.replace(/\/$/, '')}${req.path}${queryString(req.query)}`;
}

/** The request body as sent: a string as is, anything else as JSON; undefined without a body. */
export function payloadOf(req: TransportRequest): string | undefined {
  return req.body === undefined
    ? undefined
    : typeof req.body === 'string'
      ? req.body
      : JSON.stringify(req.body);
}

/** An answer's body: parsed JSON, the text itself when it is not JSON, undefined when empty. */
export function parseBody(text: string): unknown {
  if (text === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** The Retry-After header in seconds (delta-seconds or an HTTP date), or undefined. */
export function retryAfter(
  res: { readonly headers: IncomingHttpHeaders },
  now = Date.now(),
): number | undefined {
  const value = res.headers['retry-after'];
  if (typeof value !== 'string' || value.trim() === '') return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim());
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - now) / 1000));
}

/**
 * The credential headers (a bearer token, basic auth) of a source, resolved again once they are
 * `source.refreshMs` old (an exec plugin's token expires); one refresh at a time.
 */
export class AuthHeaders {
  readonly #source: CredentialSource;
  #headers: OutgoingHttpHeaders;
  #at: number;
  #refreshing: Promise<void> | undefined;

  constructor(source: CredentialSource, credentials: Credentials) {
    this.#source = source;
    this.#headers = credentials.headers;
    this.#at = Date.now();
  }

  async current(): Promise<OutgoingHttpHeaders> {
    if (Date.now() - this.#at > this.#source.refreshMs) {
      this.#refreshing ??= this.#source
        .resolve()
        .then((c) => {
          this.#headers = c.headers;
          this.#at = Date.now();
        })
        .finally(() => (this.#refreshing = undefined));
      await this.#refreshing;
    }
    return this.#headers;
  }
}

/**
 * Reads a watch stream's text chunks and calls onLine for every non-blank line (a JSON event), the
 * last one also when the stream ends without a newline, once `ended` (if given) has not thrown:
 * it checks that the stream really ended rather than being cut.
 */
export async function forEachLine(
  chunks: AsyncIterable<string>,
  onLine: (line: string) => void,
  ended?: () => void,
): Promise<void> {
  let rest = '';
  for await (const chunk of chunks) {
    rest += chunk;
    let nl = rest.indexOf('\n');
    while (nl >= 0) {
      const line = rest.slice(0, nl);
      rest = rest.slice(nl + 1);
      if (line.trim() !== '') onLine(line);
      nl = rest.indexOf('\n');
    }
  }
  ended?.();
  if (rest.trim() !== '') onLine(rest);
}
