import {
  connect,
  constants,
  type ClientHttp2Session,
  type ClientHttp2Stream,
  type IncomingHttpHeaders,
  type IncomingHttpStatusHeader,
  type OutgoingHttpHeaders,
} from 'node:http2';
import { ApiError } from './api-error.ts';
import type { CredentialSource, Credentials } from './credentials.ts';
import { AuthHeaders, forEachLine, parseBody, payloadOf, requestPath, retryAfter } from './request-parts.ts';
import type { ApiTransport, ResponseObserver, TransportRequest } from './transport-types.ts';

export interface Http2TransportOptions {
  /** Client-side request timeout for non-streaming calls (no data for this long). Default 60 s. */
  readonly timeoutMs?: number;
  readonly userAgent?: string;
  readonly onResponse?: ResponseObserver;
  /**
   * While requests or watches are open, the connection is pinged this often; a ping not answered
   * within `pingTimeoutMs` closes it, failing every open stream (so a hung API server or a dead
   * network path surfaces as ETIMEDOUT instead of watches that wait forever). client-go's HTTP/2
   * health check does the same (30 s / 15 s).
   */
  readonly pingIntervalMs?: number;
  readonly pingTimeoutMs?: number;
}

/** Streams per connection before the next request opens a new one (stream ids are 31 bits). */
const STREAMS_PER_SESSION = 1_000_000_000;

/** How often a request the server refused unprocessed (REFUSED_STREAM) is sent, in all. */
const REFUSED_STREAM_ATTEMPTS = 3;

/** Errors of streams the server refused unprocessed, with the connection they were refused on. */
const refusedOn = new WeakMap<Error, Connection>();

interface OpenStream {
  readonly stream: ClientHttp2Stream;
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly connection: Connection;
}

/** Connection failures as node:net reports them, which isServerUnavailable (runtime) recognises. */
function asConnectionError(err: Error, sessionError: Error | undefined): Error {
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string' && !code.startsWith('ERR_HTTP2')) return err;
  // A stream cancelled because its connection failed: the connection's error says why.
  const cause = (err as { cause?: unknown }).cause;
  if (cause instanceof Error && cause !== err) return asConnectionError(cause, undefined);
  if (sessionError && sessionError !== err) return asConnectionError(sessionError, undefined);
  if (typeof code === 'string')
    return Object.assign(new Error(`${err.message} (HTTP/2 connection reset)`), {
      code: 'ECONNRESET',
      cause: err,
    });
  return err;
}

/**
 * A stream whose connection closed under it ends without an error (node:http2), with its data cut
 * short: that is an ECONNRESET, as node:http reports a cut HTTP/1.1 answer.
 */
function checkComplete(stream: ClientHttp2Stream, connection: Connection): void {
  if (stream.readableEnded && (stream.rstCode ?? constants.NGHTTP2_NO_ERROR) === constants.NGHTTP2_NO_ERROR)
    return;
  throw streamCutError(stream, connection, 'the HTTP/2 stream was reset', 'before the answer ended');
}

/** A stream that ended without an error but short of its answer, as its connection's error (ECONNRESET). */
function streamCutError(
  stream: ClientHttp2Stream,
  connection: Connection,
  what: string,
  when: string,
): Error {
  return asConnectionError(
    Object.assign(new Error(`${what} (code ${stream.rstCode ?? 'none'}) ${when}`), {
      code: 'ERR_HTTP2_STREAM_ERROR',
    }),
    connection.error,
  );
}

interface Connection {
  readonly session: ClientHttp2Session;
  /** Streams opened on it, streams open on it now, and its `error` event's error. */
  opened: number;
  active: number;
  error: Error | undefined;
}

/**
 * HTTP/2 to the API server, as client-go talks to it: every request and watch is a stream of one
 * multiplexed TLS connection (one handshake, HPACK-compressed headers, no per-request socket).
 * Same contract as HttpTransport; a failed connection is replaced by the next request, and a ping
 * health check closes one that stops answering.
 */
export class Http2Transport implements ApiTransport {
  readonly #server: URL;
  readonly #tls: Credentials['tls'];
  readonly #auth: AuthHeaders;
  readonly #timeoutMs: number;
  readonly #userAgent: string;
  readonly #onResponse: ResponseObserver | undefined;
  readonly #pingIntervalMs: number;
  readonly #pingTimeoutMs: number;
  #connection: Connection | undefined;

  private constructor(source: CredentialSource, credentials: Credentials, options: Http2TransportOptions) {
    this.#server = new URL(credentials.server);
    if (this.#server.protocol !== 'https:')
      throw new Error(`HTTP/2 needs an https server URL (got ${this.#server.protocol}//); use HttpTransport`);
    this.#tls = credentials.tls;
    this.#auth = new AuthHeaders(source, credentials);
    this.#timeoutMs = options.timeoutMs ?? 60_000;
    this.#userAgent = options.userAgent ?? 'op-gen-runtime';
    this.#onResponse = options.onResponse;
    this.#pingIntervalMs = options.pingIntervalMs ?? 30_000;
    this.#pingTimeoutMs = options.pingTimeoutMs ?? 15_000;
  }

  static async fromSource(
    source: CredentialSource,
    options: Http2TransportOptions = {},
  ): Promise<Http2Transport> {
    return new Http2Transport(source, await source.resolve(), options);
  }

  static fromCredentials(
    source: CredentialSource,
    credentials: Credentials,
    options: Http2TransportOptions = {},
  ): Http2Transport {
    return new Http2Transport(source, credentials, options);
  }

  #connect(): Connection {
    const current = this.#connection;
    if (
      current &&
      !current.session.closed &&
      !current.session.destroyed &&
      current.opened < STREAMS_PER_SESSION
    )
      return current;
    if (current && !current.session.closed) current.session.close(); // streams in flight finish
    const session = connect(this.#server.origin, {
      ...this.#tls,
      settings: { enablePush: false },
    });
    const connection: Connection = { session, opened: 0, active: 0, error: undefined };
    session.on('error', (err: Error) => (connection.error = err)); // each open stream fails with it
    const health = setInterval(() => this.#ping(connection), this.#pingIntervalMs).unref();
    session.once('close', () => {
      clearInterval(health);
      if (this.#connection === connection) this.#connection = undefined;
    });
    // The server is going away (e.g. shutting down): new requests go to a new connection.
    session.once('goaway', () => {
      if (this.#connection === connection) this.#connection = undefined;
    });
    session.unref();
    this.#connection = connection;
    return connection;
  }

  #ping(connection: Connection): void {
    const { session } = connection;
    if (session.closed || session.destroyed || connection.active === 0) return;
    const timer = setTimeout(() => {
      const message = `the API server did not answer an HTTP/2 ping within ${this.#pingTimeoutMs} ms`;
      const err = Object.assign(new Error(message), { code: 'ETIMEDOUT' });
      connection.error = err;
      session.destroy(err);
    }, this.#pingTimeoutMs).unref();
    const sent = session.ping(() => clearTimeout(timer));
    if (!sent) clearTimeout(timer);
  }

  /**
   * Counts an open stream: a connection keeps the process alive while a stream is open on it, and
   * not while it is idle.
   */
  static #track(stream: ClientHttp2Stream, connection: Connection): void {
    if (connection.active++ === 0) connection.session.ref();
    stream.once('close', () => {
      if (--connection.active === 0 && !connection.session.destroyed) connection.session.unref();
    });
  }

  /**
   * Opens the request's stream and waits for the answer's headers. A stream the server refused
   * (REFUSED_STREAM: it was not processed, e.g. opened on a connection the server had just sent a
   * GOAWAY for) is sent again on a new connection, up to REFUSED_STREAM_ATTEMPTS times, as Go's HTTP/2
   * client does.
   */
  async #open(req: TransportRequest, timeoutMs: number | undefined): Promise<OpenStream> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.#openOnce(req, timeoutMs);
      } catch (err) {
        const connection = refusedOn.get(err as Error);
        if (connection === undefined || attempt >= REFUSED_STREAM_ATTEMPTS) throw err;
        if (this.#connection === connection) this.#connection = undefined;
        if (!connection.session.closed) connection.session.close(); // its streams in flight finish
      }
    }
  }

  async #openOnce(req: TransportRequest, timeoutMs: number | undefined): Promise<OpenStream> {
    const payload = payloadOf(req);
    const headers: OutgoingHttpHeaders = {
      ...req.headers,
      [constants.HTTP2_HEADER_METHOD]: req.method,
      [constants.HTTP2_HEADER_PATH]: requestPath(this.#server, req),
      accept: 'application/json',
      'user-agent': this.#userAgent,
    };
    for (const [name, value] of Object.entries(await this.#auth.current()))
      if (value !== undefined) headers[name.toLowerCase()] = value;
    if (payload !== undefined) {
      headers['content-type'] = req.contentType ?? 'application/json';
      headers['content-length'] = Buffer.byteLength(payload);
    }
    req.signal?.throwIfAborted();
    const connection = this.#connect();
    connection.opened++;
    const stream = connection.session.request(headers, {
      endStream: payload === undefined,
      ...(req.signal ? { signal: req.signal } : {}),
    });
    Http2Transport.#track(stream, connection);
    return new Promise((resolve, reject) => {
      // Errors before the answer reject here; later ones reach whoever reads the body.
      stream.on('error', (err: Error) => {
        const failure = asConnectionError(err, connection.error);
        if (stream.rstCode === constants.NGHTTP2_REFUSED_STREAM) refusedOn.set(failure, connection);
        reject(failure);
      });
      stream.once('response', (h: IncomingHttpHeaders & IncomingHttpStatusHeader) =>
        resolve({ stream, status: Number(h[constants.HTTP2_HEADER_STATUS] ?? 0), headers: h, connection }),
      );
      // A connection that closed cleanly (a killed server's socket ended) closes its streams without
      // an 'error' (node:http2): one still waiting for its answer would wait for ever. After the
      // answer began, or after an error, this changes nothing.
      stream.once('close', () =>
        reject(
          streamCutError(
            stream,
            connection,
            `${req.method} ${req.path}: the HTTP/2 stream closed`,
            'before the answer began',
          ),
        ),
      );
      if (timeoutMs !== undefined)
        stream.setTimeout(timeoutMs, () =>
          stream.destroy(
            Object.assign(new Error(`${req.method} ${req.path}: timed out after ${timeoutMs} ms`), {
              code: 'ETIMEDOUT',
            }),
          ),
        );
      if (payload !== undefined) stream.end(payload);
    });
  }

  static async #readBody(stream: ClientHttp2Stream, connection: Connection): Promise<string> {
    const chunks: Buffer[] = [];
    try {
      for await (const chunk of stream) chunks.push(chunk as Buffer);
    } catch (err) {
      throw err instanceof Error ? asConnectionError(err, connection.error) : err;
    }
    checkComplete(stream, connection);
    return Buffer.concat(chunks).toString('utf8');
  }

  async request<T>(req: TransportRequest): Promise<T> {
    const { stream, status, headers, connection } = await this.#open(req, this.#timeoutMs);
    const text = await Http2Transport.#readBody(stream, connection);
    this.#onResponse?.(req.method, req.path, status);
    const body = parseBody(text);
    if (status >= 400) throw new ApiError(status, req.method, req.path, body, retryAfter({ headers }));
    return body as T;
  }

  async stream(req: TransportRequest, onLine: (line: string) => void, onOpen?: () => void): Promise<void> {
    const { stream, status, headers, connection } = await this.#open(req, undefined);
    this.#onResponse?.(req.method, req.path, status);
    if (status >= 400)
      throw new ApiError(
        status,
        req.method,
        req.path,
        parseBody(await Http2Transport.#readBody(stream, connection)),
        retryAfter({ headers }),
      );
    onOpen?.();
    stream.setEncoding('utf8');
    try {
      await forEachLine(stream as AsyncIterable<string>, onLine, () => checkComplete(stream, connection));
    } catch (err) {
      if (req.signal?.aborted) return;
      throw err instanceof Error ? asConnectionError(err, connection.error) : err;
    }
  }

  /** Closes the connection (open streams end); a later request opens a new one. */
  close(): void {
    this.#connection?.session.destroy();
    this.#connection = undefined;
  }
}
