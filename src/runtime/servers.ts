import { createServer, type Server } from 'node:http';
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

/** Starts an HTTP server on a bind address; resolves with it and the port it got. */
export function listen(
  bind: { host: string; port: number },
  handler: (path: string) => Promise<{ status: number; body: string; contentType: string }>,
): Promise<{ server: Server; port: number }> {
  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    handler(path)
      .then(({ status, body, contentType }) => {
        res.writeHead(status, { 'content-type': contentType });
        res.end(body);
      })
      .catch(() => {
        res.writeHead(500);
        res.end();
      });
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(bind.port, bind.host, () =>
      resolve({ server, port: (server.address() as AddressInfo).port }),
    );
  });
}

/** /healthz and /readyz (with `?verbose` style per-check lines), as controller-runtime serves them. */
export function probeHandler(health: ReadonlyMap<string, Check>, ready: ReadonlyMap<string, Check>) {
  return async (path: string) => {
    const checks = path === '/healthz' || path === '/livez' ? health : path === '/readyz' ? ready : undefined;
    if (!checks) return { status: 404, body: 'not found\n', contentType: 'text/plain' };
    const { ok, report } = await runChecks(checks);
    return { status: ok ? 200 : 500, body: report, contentType: 'text/plain; charset=utf-8' };
  };
}

export function metricsHandler(render: () => string) {
  return async (path: string) =>
    path === '/metrics'
      ? { status: 200, body: render(), contentType: 'text/plain; version=0.0.4; charset=utf-8' }
      : { status: 404, body: 'not found\n', contentType: 'text/plain' };
}

export function close(server: Server | undefined): Promise<void> {
  if (!server) return Promise.resolve();
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}
