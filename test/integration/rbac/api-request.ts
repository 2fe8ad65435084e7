import { request, type RequestOptions } from 'node:https';
import type { KubeConfig } from '@kubernetes/client-node';

export interface ApiCall {
  /** What an operator does, e.g. `update memcacheds/status`. */
  readonly name: string;
  readonly method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  readonly path: string;
  readonly body?: unknown;
  /** For PATCH; default merge patch. */
  readonly contentType?: string;
}

export interface ApiResult {
  readonly status: number;
  readonly body: string;
}

/**
 * One request to the API server as the KubeConfig's user. A watch (`?watch=true`) resolves as soon
 * as the response headers arrive, so it only proves the request was allowed.
 */
export async function apiRequest(kc: KubeConfig, call: Omit<ApiCall, 'name'>): Promise<ApiResult> {
  const cluster = kc.getCurrentCluster();
  if (!cluster) throw new Error('KubeConfig has no current cluster');
  const url = new URL(call.path, cluster.server);
  const payload = call.body === undefined ? undefined : JSON.stringify(call.body);
  const headers: Record<string, string> = { Accept: 'application/json' };
  if (payload !== undefined) {
    headers['Content-Type'] =
      call.method === 'PATCH' ? (call.contentType ?? 'application/merge-patch+json') : 'application/json';
  }
  const options: RequestOptions = {
    method: call.method,
    hostname: url.hostname,
    port: url.port,
    path: url.pathname + url.search,
    headers,
    timeout: 10_000,
  };
  await kc.applyToHTTPSOptions(options);
  const watching = url.searchParams.get('watch') === 'true';
  return new Promise((resolve, reject) => {
    const req = request(options, (res) => {
      const status = res.statusCode ?? 0;
      if (watching && status === 200) {
        res.destroy();
        resolve({ status, body: '' });
        return;
      }
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status, body }));
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error(`${call.method} ${call.path}: timeout`)));
    req.on('error', reject);
    if (payload !== undefined) req.write(payload);
    req.end();
  });
}
