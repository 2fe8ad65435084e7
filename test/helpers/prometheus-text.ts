/**
 * Reading Prometheus text (benches and the fault suite): an operator's /metrics (plain HTTP on 127.0.0.1) and
 * the API server's /metrics (through the admin client).
 */
import { request } from 'node:http';
import type { Transport } from '../../src/client/transport.ts';

/** The sum of every sample of `name` in Prometheus text whose labels pass `keep` (default: all). */
export function sumSamples(
  text: string,
  name: string,
  keep: (labels: Readonly<Record<string, string>>) => boolean = () => true,
): number {
  let sum = 0;
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    if (!keep(sampleLabels(line))) continue;
    sum += Number(line.split(' ').at(-1));
  }
  return sum;
}

/** The labels of one sample line (`name{a="x",b="y"} 3` → { a: 'x', b: 'y' }). */
export function sampleLabels(line: string): Record<string, string> {
  const open = line.indexOf('{');
  const close = line.lastIndexOf('}');
  const labels: Record<string, string> = {};
  if (open < 0 || close < open) return labels;
  for (const m of line.slice(open + 1, close).matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g))
    labels[m[1]!] = m[2]!;
  return labels;
}

/** The sum of `name` on the /metrics of an operator listening on 127.0.0.1:`port`; undefined when unreachable. */
export function metricSum(port: number, name: string): Promise<number | undefined> {
  return new Promise((resolve) => {
    const req = request(`http://127.0.0.1:${port}/metrics`, { timeout: 2_000 }, (res) => {
      let body = '';
      res.on('data', (d: Buffer) => (body += d.toString()));
      res.on('end', () => resolve(sumSamples(body, name)));
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(undefined));
    req.end();
  });
}

/** The verbs of apiserver_request_total that change something (APPLY: server-side apply). */
export const WRITE_VERBS: ReadonlySet<string> = new Set([
  'POST',
  'PUT',
  'PATCH',
  'APPLY',
  'DELETE',
  'DELETECOLLECTION',
]);

/**
 * The API server's `apiserver_request_total` (or another of its per-request metrics, e.g.
 * `apiserver_request_duration_seconds_sum`) from its /metrics, by `<VERB> <resource>[/<subresource>]`,
 * for the samples `keep` accepts. Watches are counted when they end: compare GET/LIST and writes only.
 */
export async function apiServerRequests(
  transport: Pick<Transport, 'request'>,
  keep: (request: { verb: string; resource: string; subresource: string }) => boolean,
  metric = 'apiserver_request_total',
): Promise<Record<string, number>> {
  const text = await transport.request<string>({ method: 'GET', path: '/metrics' });
  const counts: Record<string, number> = {};
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${metric}{`)) continue;
    const { verb = '', resource = '', subresource = '' } = sampleLabels(line);
    if (!keep({ verb, resource, subresource })) continue;
    const key = `${verb} ${resource}${subresource ? `/${subresource}` : ''}`;
    counts[key] = (counts[key] ?? 0) + Number(line.split(' ').at(-1));
  }
  return counts;
}

/** One request kind's sample of `metric` (e.g. `APPLY configmaps`): apiServerRequests for one key. */
export async function apiServerRequestsOf(
  transport: Pick<Transport, 'request'>,
  verb: string,
  resource: string,
  metric = 'apiserver_request_total',
): Promise<number> {
  const counts = await apiServerRequests(
    transport,
    (r) => r.verb === verb && r.resource === resource,
    metric,
  );
  return counts[`${verb} ${resource}`] ?? 0;
}

/** What `after` counted beyond `before` (two apiServerRequests), and how many of it were writes. */
export function requestsBetween(
  before: Readonly<Record<string, number>>,
  after: Readonly<Record<string, number>>,
): { writes: number; reads: number; byRequest: Record<string, number> } {
  const byRequest: Record<string, number> = {};
  let writes = 0;
  let reads = 0;
  for (const [key, n] of Object.entries(after)) {
    const d = n - (before[key] ?? 0);
    if (d === 0) continue;
    byRequest[key] = d;
    if (WRITE_VERBS.has(key.split(' ')[0]!)) writes += d;
    else reads += d;
  }
  return { writes, reads, byRequest };
}
