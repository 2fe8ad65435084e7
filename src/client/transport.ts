import {
  Agent as HttpAgent,
  request as httpRequest,
  type IncomingMessage,
  type OutgoingHttpHeaders,
} from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { KubeConfig } from '@kubernetes/client-node';
import { ApiError } from './api-error.ts';
import { kubeConfigSource, type CredentialSource, type Credentials } from './credentials.ts';
import { Http1Pool, type Http1Answer } from './http1-pool.ts';
import { ListDecoder } from './list-decoder.ts';
import { AuthHeaders, LineSplitter, parseBody, payloadOf, requestPath, retryAfter } from './request-parts.ts';
import { isIdempotent, withRetries, type RetryOptions } from './retry.ts';
import type { ApiTransport, ResponseObserver, TransportRequest } from './transport-types.ts';

export type { ApiTransport, Query, ResponseObserver, TransportRequest } from './transport-types.ts';
export { retryAfter } from './request-parts.ts';

export interface TransportOptions {
  /** Sockets per host (keep-alive pool). Default 64. */
  readonly maxSockets?: number;
  /** Client-side request timeout for non-streaming calls. Default 60 s. */
  readonly timeoutMs?: number;
  readonly userAgent?: string;
  readonly onResponse?: ResponseObserver;
  /**
   * Retries of 429 and (for idempotent requests) 5xx answers, honouring Retry-After; `false`: none.
   * See withRetries in retry.ts. Default: 5 retries within 30 s.
   */
  readonly retry?: RetryOptions | false;
  /**
   * Which HTTP/1.1 client sends requests (watches always use Node's): `op-gen`, the default, a
   * minimal keep-alive client (http1-pool.ts) that costs a fraction of Node's CPU per request, or
   * `node`, Node's http module. OP_GEN_HTTP_CLIENT sets the default.
   */
  readonly httpClient?: 'op-gen' | 'node';
}

/**
 * What the clients and the runtime need of the API server: one JSON request, one streamed watch,
 * and closing (see transport-types.ts). HttpTransport speaks HTTP(S); `op-gen/testing`'s
 * FakeApiServer answers in memory; withRetries wraps either.
 */
export type Transport = ApiTransport;

/** Makes HTTP transports: `Transport.fromKubeConfig(kc)`, `Transport.fromSource(source)`. */
export const Transport = {
  /** A transport for a client-node KubeConfig object (loaded in this process). */
  fromKubeConfig(kubeConfig: KubeConfig, options: TransportOptions = {}): Promise<Transport> {
    return Transport.fromSource(kubeConfigSource(kubeConfig), options);
  },
  async fromSource(source: CredentialSource, options: TransportOptions = {}): Promise<Transport> {
    const credentials = await source.resolve();
    const http = HttpTransport.fromCredentials(source, credentials, options);
    return options.retry === false ? http : withRetries(http, options.retry);
  },
};

/**
 * HTTP(S) to the API server with the KubeConfig's credentials, over one keep-alive connection pool.
 * JSON in, JSON out; error answers become typed ApiErrors. `stream` serves watches line by line.
 */
export class HttpTransport implements Transport {
  private readonly url: URL;
  private readonly agent: HttpAgent | HttpsAgent;
  private readonly tls: Credentials['tls'];
  private readonly auth: AuthHeaders;
  private readonly timeoutMs: number;
  private readonly userAgent: string;
  private readonly onResponse: ResponseObserver | undefined;
  /** Requests (not watches) go through this pool unless Node's client is chosen. */
  private readonly pool: Http1Pool | undefined;

  private constructor(source: CredentialSource, credentials: Credentials, options: TransportOptions) {
    this.url = new URL(credentials.server);
    this.tls = credentials.tls;
    this.auth = new AuthHeaders(source, credentials);
    const agentOptions = { keepAlive: true, maxSockets: options.maxSockets ?? 64 };
    this.agent =
      this.url.protocol === 'http:'
        ? new HttpAgent(agentOptions)
        : new HttpsAgent({ ...agentOptions, ...this.tls });
    this.timeoutMs = options.timeoutMs ?? 60_000;
    this.userAgent = options.userAgent ?? 'op-gen-runtime';
    this.onResponse = options.onResponse;
    const client = options.httpClient ?? httpClientFromEnv();
    this.pool =
      client === 'node'
        ? undefined
        : new Http1Pool({
            host: this.url.hostname,
            port: Number(this.url.port) || (this.url.protocol === 'http:' ? 80 : 443),
            tls: this.url.protocol === 'http:' ? undefined : { ...this.tls },
            maxSockets: agentOptions.maxSockets,
          });
  }

  static async fromSource(source: CredentialSource, options: TransportOptions = {}): Promise<HttpTransport> {
    return new HttpTransport(source, await source.resolve(), options);
  }

  static fromCredentials(
    source: CredentialSource,
    credentials: Credentials,
    options: TransportOptions = {},
  ): HttpTransport {
    return new HttpTransport(source, credentials, options);
  }

  private async open(
    req: TransportRequest,
    accept: string,
    timeoutMs: number | undefined,
  ): Promise<IncomingMessage> {
    const payload = payloadOf(req);
    const headers = await this.headers(req, accept, payload);
    if (payload !== undefined) headers['content-length'] = Buffer.byteLength(payload);
    const path = requestPath(this.url, req);
    const send = this.url.protocol === 'http:' ? httpRequest : httpsRequest;
    return new Promise((resolve, reject) => {
      let response: IncomingMessage | undefined;
      const r = send(
        {
          protocol: this.url.protocol,
          hostname: this.url.hostname,
          port: this.url.port,
          method: req.method,
          path,
          headers,
          agent: this.agent,
          ...this.tls,
          ...(req.signal ? { signal: req.signal } : {}),
        },
        (res) => {
          response = res;
          resolve(res);
        },
      );
      if (timeoutMs !== undefined)
        r.setTimeout(timeoutMs, () => {
          const timedOut = new Error(`${req.method} ${req.path}: timed out after ${timeoutMs} ms`);
          // A body that stops arriving fails with this error too, not the socket's bare "aborted".
          response?.destroy(timedOut);
          r.destroy(timedOut);
        });
      r.on('error', reject);
      // end(payload): the headers and the body leave in one write, not two.
      if (payload !== undefined) r.end(payload);
      else r.end();
    });
  }

  /**
   * The whole answer as text. Listeners, not `for await`: an async iterator per answer took 22% more
   * client CPU in a loop of keep-alive requests (docs/performance.md, 2026-11-25). An answer whose
   * connection closes before its end is an ECONNRESET error, never a short body.
   */
  private static readBody(res: IncomingMessage, sink?: (chunk: Buffer) => void): Promise<string> {
    return new Promise((resolve, reject) => {
      const chunks: Buffer[] = [];
      let ended = false;
      res.on('data', (chunk: Buffer) => {
        if (ended) return;
        if (!sink) {
          chunks.push(chunk);
          return;
        }
        try {
          sink(chunk);
        } catch (err) {
          // Failed before the end: the close below does not replace this error.
          ended = true;
          reject(err as Error);
          res.destroy();
        }
      });
      res.once('end', () => {
        ended = true;
        resolve(
          chunks.length === 0
            ? ''
            : chunks.length === 1
              ? chunks[0]!.toString('utf8')
              : Buffer.concat(chunks).toString('utf8'),
        );
      });
      res.once('error', reject);
      res.once('close', () => {
        if (!ended)
          reject(
            Object.assign(new Error('the connection closed before the answer ended'), { code: 'ECONNRESET' }),
          );
      });
    });
  }

  /** The headers of a request: credentials, accept, user agent, and the body's type when it has one. */
  private async headers(
    req: TransportRequest,
    accept: string,
    payload: string | undefined,
  ): Promise<OutgoingHttpHeaders> {
    const headers: OutgoingHttpHeaders = {
      ...req.headers,
      ...(await this.auth.current()),
      accept: req.accept ?? accept,
      'user-agent': this.userAgent,
    };
    if (payload !== undefined) headers['content-type'] = req.contentType ?? 'application/json';
    return headers;
  }

  /**
   * One request's status, headers and text: through op-gen's client, or Node's when chosen. With
   * `onBody`, a 2xx answer's body goes there as it arrives and its text is empty.
   */
  private async answer(
    req: TransportRequest,
    onBody?: (chunk: Buffer) => void,
  ): Promise<Http1Answer | IncomingMessageAnswer> {
    if (!this.pool) {
      const res = await this.open(req, 'application/json', this.timeoutMs);
      const status = res.statusCode ?? 0;
      const sink = status >= 200 && status < 300 ? onBody : undefined;
      return { status, headers: res.headers, text: await HttpTransport.readBody(res, sink) };
    }
    const payload = payloadOf(req);
    return this.pool.request({
      label: `${req.method} ${req.path}`,
      method: req.method,
      path: requestPath(this.url, req),
      headers: await this.headers(req, 'application/json', payload),
      payload,
      timeoutMs: this.timeoutMs,
      signal: req.signal,
      replayable: isIdempotent(req),
      onBody,
    });
  }

  async request<T>(req: TransportRequest): Promise<T> {
    const answer = await this.answer(req);
    this.onResponse?.(req.method, req.path, answer.status);
    const body = parseBody(answer.text);
    if (answer.status >= 400)
      throw new ApiError(answer.status, req.method, req.path, body, retryAfter(answer));
    return body as T;
  }

  /**
   * A list whose items are parsed while its answer arrives (ListDecoder), so a large list is
   * decoded and stored while the server still sends it, and its text is never held whole.
   */
  async requestItems(req: TransportRequest, onItems: (items: unknown[]) => void): Promise<unknown> {
    const decoder = new ListDecoder(onItems);
    const answer = await this.answer(req, (chunk) => decoder.push(chunk));
    this.onResponse?.(req.method, req.path, answer.status);
    if (answer.status >= 400) {
      const body = parseBody(answer.text);
      throw new ApiError(answer.status, req.method, req.path, body, retryAfter(answer));
    }
    return decoder.end();
  }

  async stream(req: TransportRequest, onLine: (line: string) => void, onOpen?: () => void): Promise<void> {
    const res = await this.open(req, 'application/json', undefined);
    const status = res.statusCode ?? 0;
    this.onResponse?.(req.method, req.path, status);
    if (status >= 400)
      throw new ApiError(
        status,
        req.method,
        req.path,
        parseBody(await HttpTransport.readBody(res)),
        retryAfter(res),
      );
    onOpen?.();
    await HttpTransport.readLines(res, onLine, req.signal);
  }

  /**
   * Calls `onLine` with each line of a watch answer until it ends (resolves), fails or is cut (rejects
   * with ECONNRESET) or `signal` aborts (resolves). Listeners, not `for await`: an async iterator
   * costs a promise and a microtask per chunk. A throw from onLine ends the answer and rejects.
   */
  private static readLines(
    res: IncomingMessage,
    onLine: (line: string) => void,
    signal: AbortSignal | undefined,
  ): Promise<void> {
    return new Promise((resolve, reject) => {
      const lines = new LineSplitter(onLine);
      let settled = false;
      const settle = (err?: unknown): void => {
        if (settled) return;
        settled = true;
        if (err === undefined || signal?.aborted) resolve();
        else reject(err instanceof Error ? err : new Error(String(err)));
      };
      res.on('data', (chunk: Buffer) => {
        if (settled) return;
        try {
          lines.push(chunk);
        } catch (err) {
          settle(err);
          res.destroy();
        }
      });
      res.once('end', () => {
        if (settled) return;
        try {
          lines.end();
          settle();
        } catch (err) {
          settle(err);
        }
      });
      res.once('error', (err) => settle(err));
      res.once('close', () =>
        settle(Object.assign(new Error('the watch closed before its answer ended'), { code: 'ECONNRESET' })),
      );
    });
  }

  /** Closes the keep-alive connections. */
  close(): void {
    this.agent.destroy();
    this.pool?.close();
  }
}

function httpClientFromEnv(): 'op-gen' | 'node' {
  const value = process.env.OP_GEN_HTTP_CLIENT;
  if (value === undefined || value === '' || value === 'op-gen') return 'op-gen';
  if (value === 'node') return 'node';
  throw new Error(`OP_GEN_HTTP_CLIENT must be op-gen or node, got ${value}`);
}

/** An answer read through Node's http: its headers as Node gives them. */
interface IncomingMessageAnswer {
  readonly status: number;
  readonly headers: IncomingMessage['headers'];
  readonly text: string;
}

/** Whether `value` is a Transport (an HttpTransport, a fake, a wrapper) rather than e.g. a KubeConfig. */
export function isTransport(value: unknown): value is Transport {
  const t = value as Partial<Transport> | null;
  return (
    typeof t === 'object' &&
    t !== null &&
    typeof t.request === 'function' &&
    typeof t.stream === 'function' &&
    typeof t.close === 'function'
  );
}
