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
 * Splits a watch stream's bytes into lines and calls `onLine` with every non-blank one (a JSON
 * event), decoded as UTF-8. Bytes, not decoded text chunks: a line is found with Buffer.indexOf and
 * decoded once, where appending text chunks to a remainder and slicing it copied every byte twice more
 * through V8's young generation (at 100,000 watch-list events, a third of the stream's GC time).
 * A character split between two chunks is whole again: the bytes are joined before decoding.
 */
export class LineSplitter {
  readonly #onLine: (line: string) => void;
  /** The bytes of a line not ended yet. */
  #rest: Buffer | undefined;

  constructor(onLine: (line: string) => void) {
    this.#onLine = onLine;
  }

  /** Takes the next chunk; calls onLine for each line it completes (a throw from onLine propagates). */
  push(chunk: Buffer): void {
    let from = 0;
    let nl = chunk.indexOf(10);
    if (this.#rest !== undefined) {
      if (nl < 0) {
        this.#rest = Buffer.concat([this.#rest, chunk]);
        return;
      }
      const line = Buffer.concat([this.#rest, chunk.subarray(0, nl)]);
      this.#rest = undefined;
      this.#emit(line.toString('utf8'));
      from = nl + 1;
      nl = chunk.indexOf(10, from);
    }
    while (nl >= 0) {
      if (nl > from) this.#emit(chunk.toString('utf8', from, nl));
      from = nl + 1;
      nl = chunk.indexOf(10, from);
    }
    if (from < chunk.length) this.#rest = chunk.subarray(from);
  }

  /** The stream ended: the last line, if it had no newline. */
  end(): void {
    const rest = this.#rest;
    this.#rest = undefined;
    if (rest !== undefined) this.#emit(rest.toString('utf8'));
  }

  #emit(line: string): void {
    if (line.trim() !== '') this.#onLine(line);
  }
}
