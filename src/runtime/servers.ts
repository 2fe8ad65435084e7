import {
  createServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import {
  createServer as createHttpsServer,
  type Server as HttpsServer,
  type ServerOptions as HttpsServerOptions,
} from 'node:https';
import type { AddressInfo } from 'node:net';
import type { SecureContextOptions } from 'node:tls';

export type Check = () => boolean | Promise<boolean>;

/** `:8080` → all interfaces, port 8080; `127.0.0.1:0` → loopback, any port; `0` or '' → disabled. */
export function parseBindAddress(address: string | undefined): { host: string; port: number } | undefined {
  if (address === undefined || address === '' || address === '0') return undefined;
  const i = address.lastIndexOf(':');
  const host = i <= 0 ? '0.0.0.0' : address.slice(0, i).replace(/^\[|\]$/g, '');
  const port = Number(i < 0 ? address : address.slice(i + 1));
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new Error(`invalid bind address "${address}"`);
  return { host, port };
}

async function runChecks(checks: ReadonlyMap<string, Check>): Promise<{ ok: boolean; report: string }> {
  const lines: string[] = [];
  let ok = true;
  for (const [name, check] of checks) {
    let pass: boolean;
    try {
      pass = await check();
    } catch {
      pass = false;
    }
    ok &&= pass;
    lines.push(`[${pass ? '+' : '-'}]${name} ${pass ? 'ok' : 'failed'}`);
  }
  return { ok, report: `${lines.join('\n')}${lines.length ? '\n' : ''}${ok ? 'ok' : 'failed'}\n` };
}

/** What a handler sees of a request. */
export interface ServerRequest {
  readonly method: string;
  /** The URL path, without the query. */
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
}

export interface ServerReply {
  readonly status: number;
  readonly body: string;
  readonly contentType: string;
}

export type Handler = (req: ServerRequest) => Promise<ServerReply>;

/** A PEM certificate (chain) and its key, to serve HTTPS with. */
export interface ServingCertificate {
  readonly cert: string;
  readonly key: string;
}

/**
 * What a client may hold of a server (webhook, metrics, health): a connection that does not send its
 * headers, or its body, in time is answered 408 and closed, whatever the handler would take.
 */
export interface ServerLimits {
  /**
   * Time to finish the TLS handshake and send the request headers. Default 32 s (controller-runtime's
   * `ReadHeaderTimeout`).
   */
  readonly headerTimeoutMs?: number;
  /**
   * Time to send the request body once the headers are in (the handler's own time is not counted).
   * Default 30 s: the API server waits at most 30 s for a webhook, so a slower body is dead already.
   */
  readonly bodyTimeoutMs?: number;
  /** Connections open at once; more are closed as they arrive. Default 1024. */
  readonly maxConnections?: number;
}

/** Changes the TLS options of a server before it starts (controller-runtime's `TLSOpts` functions). */
export type TlsOption = (options: HttpsServerOptions) => void;

/** TLS of the webhook and secure metrics servers, as controller-runtime's options shape it. */
export interface ServerTlsOptions {
  /** Oldest TLS version accepted. Default `TLSv1.2` (Go's crypto/tls server default). */
  readonly minVersion?: 'TLSv1.2' | 'TLSv1.3';
  /**
   * Cipher suites, in OpenSSL's names (`ECDHE-RSA-AES128-GCM-SHA256`, `TLS_AES_128_GCM_SHA256`).
   * Default: Node's.
   */
  readonly cipherSuites?: readonly string[];
  /**
   * Functions applied in order to the server's TLS options after those above, so they have the last
   * word (controller-runtime's `TLSOpts`): `(o) => { o.minVersion = 'TLSv1.3'; }`.
   */
  readonly tlsOpts?: readonly TlsOption[];
}

export const SERVER_LIMIT_DEFAULTS = {
  headerTimeoutMs: 32_000,
  bodyTimeoutMs: 30_000,
  maxConnections: 1024,
} as const;

/** The limits with their defaults filled in. */
export function serverLimits(limits: ServerLimits = {}): Required<ServerLimits> {
  return {
    headerTimeoutMs: limits.headerTimeoutMs ?? SERVER_LIMIT_DEFAULTS.headerTimeoutMs,
    bodyTimeoutMs: limits.bodyTimeoutMs ?? SERVER_LIMIT_DEFAULTS.bodyTimeoutMs,
    maxConnections: limits.maxConnections ?? SERVER_LIMIT_DEFAULTS.maxConnections,
  };
}

/**
 * Node's server options for the limits: headers within headerTimeoutMs and the whole request within
 * header + body time (Node's own checks, every connectionsCheckingInterval: a quarter of the header
 * time, at most 5 s, so a bound is kept to within 25%), the TLS handshake within the header time.
 */
function nodeServerOptions(limits: Required<ServerLimits>): HttpsServerOptions {
  return {
    headersTimeout: limits.headerTimeoutMs,
    requestTimeout: limits.headerTimeoutMs + limits.bodyTimeoutMs,
    connectionsCheckingInterval: Math.max(10, Math.min(5_000, Math.floor(limits.headerTimeoutMs / 4))),
    handshakeTimeout: limits.headerTimeoutMs,
  };
}

/** The TLS options a server is made (and its certificate swapped) with. */
export function tlsServerOptions(
  certificate: ServingCertificate,
  tls: ServerTlsOptions = {},
): HttpsServerOptions {
  const options: HttpsServerOptions = {
    cert: certificate.cert,
    key: certificate.key,
    minVersion: tls.minVersion ?? 'TLSv1.2',
    ...(tls.cipherSuites?.length ? { ciphers: tls.cipherSuites.join(':') } : {}),
  };
  for (const opt of tls.tlsOpts ?? []) opt(options);
  return options;
}

/**
 * An HTTP server, or HTTPS with `certificate`, bounded by `limits` (see ServerLimits); the caller
 * listens. A renewed certificate goes in with `renewCertificate`, which keeps the TLS options.
 */
export function createBoundedServer(
  handler: (req: IncomingMessage, res: ServerResponse) => void,
  limits: Required<ServerLimits>,
  certificate?: ServingCertificate,
  tls: ServerTlsOptions = {},
): Server | HttpsServer {
  const base = nodeServerOptions(limits);
  const server = certificate
    ? createHttpsServer({ ...base, ...tlsServerOptions(certificate, tls) }, handler)
    : createServer(base, handler);
  server.maxConnections = limits.maxConnections;
  return server;
}

/** Swaps an HTTPS server's certificate, keeping its TLS options (minimum version, ciphers, tlsOpts). */
export function renewCertificate(
  server: HttpsServer,
  certificate: ServingCertificate,
  tls: ServerTlsOptions = {},
): void {
  server.setSecureContext(tlsServerOptions(certificate, tls) as SecureContextOptions);
}

/**
 * Starts an HTTP server on a bind address, or HTTPS when given a certificate, bounded by `limits`;
 * resolves with it and the port it got.
 */
export function listen(
  bind: { host: string; port: number },
  handler: Handler,
  tls?: ServingCertificate,
  limits: ServerLimits & ServerTlsOptions = {},
): Promise<{ server: Server | HttpsServer; port: number }> {
  const serve = (req: IncomingMessage, res: ServerResponse): void => {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    handler({ method: req.method ?? 'GET', path, headers: req.headers })
      .then(({ status, body, contentType }) => {
        res.writeHead(status, { 'content-type': contentType });
        res.end(body);
      })
      .catch(() => {
        res.writeHead(500);
        res.end();
      });
  };
  const server = createBoundedServer(serve, serverLimits(limits), tls, limits);
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(bind.port, bind.host, () =>
      resolve({ server, port: (server.address() as AddressInfo).port }),
    );
  });
}

/** /healthz and /readyz (with `?verbose` style per-check lines), as controller-runtime serves them. */
export function probeHandler(health: ReadonlyMap<string, Check>, ready: ReadonlyMap<string, Check>) {
  return async ({ path }: ServerRequest): Promise<ServerReply> => {
    const checks = path === '/healthz' || path === '/livez' ? health : path === '/readyz' ? ready : undefined;
    if (!checks) return { status: 404, body: 'not found\n', contentType: 'text/plain' };
    const { ok, report } = await runChecks(checks);
    return { status: ok ? 200 : 500, body: report, contentType: 'text/plain; charset=utf-8' };
  };
}

/**
 * /metrics in the Prometheus text format. With `filter` (authentication and authorization), a
 * request reaches the metrics only when the filter lets it through; other paths are 404 either way,
 * as on controller-runtime's metrics server, where the filter wraps the registered handlers only.
 */
export function metricsHandler(render: () => string | Promise<string>, filter?: RequestFilter): Handler {
  return async (req) => {
    if (req.path !== '/metrics') return { status: 404, body: 'not found\n', contentType: 'text/plain' };
    const refused = filter ? await filter(req) : undefined;
    if (refused) return refused;
    return { status: 200, body: await render(), contentType: 'text/plain; version=0.0.4; charset=utf-8' };
  };
}

/** Lets a request through (undefined) or answers it instead (e.g. 401, 403). */
export type RequestFilter = (req: ServerRequest) => Promise<ServerReply | undefined>;

export function close(server: Server | HttpsServer | undefined): Promise<void> {
  if (!server) return Promise.resolve();
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}
