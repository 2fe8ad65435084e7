import {
  createServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';

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
 * Starts an HTTP server on a bind address, or HTTPS when given a certificate; resolves with it and
 * the port it got.
 */
export function listen(
  bind: { host: string; port: number },
  handler: Handler,
  tls?: ServingCertificate,
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
  const server = tls ? createHttpsServer({ cert: tls.cert, key: tls.key }, serve) : createServer(serve);
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
