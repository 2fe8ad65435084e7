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
import { withRetries, type RetryOptions } from './retry.ts';
import type { ApiTransport, Query, ResponseObserver, TransportRequest } from './transport-types.ts';

export type { ApiTransport, Query, ResponseObserver, TransportRequest } from './transport-types.ts';

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
}

function queryString(query: Query | undefined): string {
  if (!query) return '';
  const parts: string[] = [];
  for (const [k, v] of Object.entries(query)) {
    if (v !== undefined && v !== '') parts.push(`${encodeURIComponent(k)}=${encodeURIComponent(String(v))}`);
  }
  return parts.length > 0 ? `?${parts.join('&')}` : '';
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
    const http = await HttpTransport.fromSource(source, options);
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
  private headers: OutgoingHttpHeaders;
  private headersAt: number;
  private refreshing: Promise<void> | undefined;
  private readonly timeoutMs: number;
  private readonly userAgent: string;
  private readonly onResponse: ResponseObserver | undefined;
  private readonly source: CredentialSource;

  private constructor(source: CredentialSource, credentials: Credentials, options: TransportOptions) {
    this.source = source;
    this.url = new URL(credentials.server);
    this.tls = credentials.tls;
    this.headers = credentials.headers;
    this.headersAt = Date.now();
    const agentOptions = { keepAlive: true, maxSockets: options.maxSockets ?? 64 };
    this.agent =
      this.url.protocol === 'http:'
        ? new HttpAgent(agentOptions)
        : new HttpsAgent({ ...agentOptions, ...this.tls });
    this.timeoutMs = options.timeoutMs ?? 60_000;
    this.userAgent = options.userAgent ?? 'op-gen-runtime';
    this.onResponse = options.onResponse;
  }

  static async fromSource(source: CredentialSource, options: TransportOptions = {}): Promise<HttpTransport> {
    return new HttpTransport(source, await source.resolve(), options);
  }

  private async authHeaders(): Promise<OutgoingHttpHeaders> {
    if (Date.now() - this.headersAt > this.source.refreshMs) {
      this.refreshing ??= this.source
        .resolve()
        .then((c) => {
          this.headers = c.headers;
          this.headersAt = Date.now();
        })
        .finally(() => (this.refreshing = undefined));
      await this.refreshing;
    }
    return this.headers;
  }
  private async open(
    req: TransportRequest,
    accept: string,
    timeoutMs: number | undefined,
  ): Promise<IncomingMessage> {
    const payload =
      req.body === undefined ? undefined : typeof req.body === 'string' ? req.body : JSON.stringify(req.body);
    const headers: OutgoingHttpHeaders = {
      ...(await this.authHeaders()),
      accept,
      'user-agent': this.userAgent,
    };
    if (payload !== undefined) {
      headers['content-type'] = req.contentType ?? 'application/json';
      headers['content-length'] = Buffer.byteLength(payload);
    }
    const path = `${this.url.pathname.replace(/\/$/, '')}${req.path}${queryString(req.query)}`;
    const send = this.url.protocol === 'http:' ? httpRequest : httpsRequest;
    return new Promise((resolve, reject) => {
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
        resolve,
      );
      if (timeoutMs !== undefined)
        r.setTimeout(timeoutMs, () =>
          r.destroy(new Error(`${req.method} ${req.path}: timed out after ${timeoutMs} ms`)),
        );
      r.on('error', reject);
      // end(payload): the headers and the body leave in one write, not two.
      if (payload !== undefined) r.end(payload);
      else r.end();
    });
  }

  private static async readBody(res: IncomingMessage): Promise<string> {
    const chunks: Buffer[] = [];
    for await (const chunk of res) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks).toString('utf8');
  }

  private static parse(text: string): unknown {
    if (text === '') return undefined;
    try {
      return JSON.parse(text);
    } catch {
      return text;
    }
  }

  async request<T>(req: TransportRequest): Promise<T> {
    const res = await this.open(req, 'application/json', this.timeoutMs);
    const text = await HttpTransport.readBody(res);
    const status = res.statusCode ?? 0;
    this.onResponse?.(req.method, req.path, status);
    const body = HttpTransport.parse(text);
    if (status >= 400) throw new ApiError(status, req.method, req.path, body, retryAfter(res));
    return body as T;
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
        HttpTransport.parse(await HttpTransport.readBody(res)),
        retryAfter(res),
      );
    onOpen?.();
    let rest = '';
    res.setEncoding('utf8');
    try {
      for await (const chunk of res) {
        rest += chunk as string;
        let nl = rest.indexOf('\n');
        while (nl >= 0) {
          const line = rest.slice(0, nl);
          rest = rest.slice(nl + 1);
          if (line.trim() !== '') onLine(line);
          nl = rest.indexOf('\n');
        }
      }
    } catch (err) {
      if (req.signal?.aborted) return;
      throw err;
    }
    if (rest.trim() !== '') onLine(rest);
  }

  /** Closes idle keep-alive sockets. */
  close(): void {
    this.agent.destroy();
  }
}

/** The Retry-After header in seconds (delta-seconds or an HTTP date), or undefined. */
export function retryAfter(res: Pick<IncomingMessage, 'headers'>, now = Date.now()): number | undefined {
  const value = res.headers['retry-after'];
  if (typeof value !== 'string' || value.trim() === '') return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim());
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - now) / 1000));
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
