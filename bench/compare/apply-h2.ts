// The same server-side apply of fresh ConfigMaps, 8 in flight, over op-gen's HTTP/1.1 client (one
// connection per request in flight) against one HTTP/2 connection (as client-go talks to the API
// server); alternating blocks of 40; API-server time per request and kube-apiserver CPU per request.
import { connect, constants } from 'node:http2';
import { randomUUID } from 'node:crypto';
import { Transport } from '../../src/client/transport.ts';
import { startControlPlane } from '../../src/testing/index.ts';
import { apiServerRequestsOf } from '../../test/helpers/prometheus-text.ts';
import { cpuSeconds } from './peak-rss.ts';

const N = Number(process.argv[2] ?? 480);
const NS = 'apply-h2';
const median = (xs: readonly number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};
const cp = await startControlPlane();
try {
  const h1 = await Transport.fromKubeConfig(cp.kubeConfig);
  await h1.request({
    method: 'POST',
    path: '/api/v1/namespaces',
    body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } },
  });
  const user = cp.kubeConfig.getCurrentUser()!;
  const cluster = cp.kubeConfig.getCurrentCluster()!;
  const b64 = (s: string | undefined) => (s ? Buffer.from(s, 'base64') : undefined);
  const session = connect(cp.server, {
    ca: b64(cluster.caData),
    cert: b64(user.certData),
    key: b64(user.keyData),
  });
  const auth: Record<string, string> = user.token ? { authorization: `Bearer ${user.token}` } : {};
  const body = (name: string) =>
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: {
        name,
        namespace: NS,
        labels: { 'app.kubernetes.io/instance': name },
        ownerReferences: [
          {
            apiVersion: 'bench.op-gen.dev/v1',
            kind: 'BenchApp',
            name: 'x',
            uid: randomUUID(),
            controller: true,
            blockOwnerDeletion: true,
          },
        ],
      },
      data: { IMAGE: 'nginx:1.27' },
    });
  const path = (name: string) => `/api/v1/namespaces/${NS}/configmaps/${name}?fieldManager=bench`;
  const viaH1 = async (name: string) => {
    await h1.request({
      method: 'PATCH',
      path: `/api/v1/namespaces/${NS}/configmaps/${name}`,
      query: { fieldManager: 'bench' },
      contentType: 'application/apply-patch+yaml',
      body: body(name),
    });
  };
  const viaH2 = (name: string) =>
    new Promise<void>((resolve, reject) => {
      const s = session.request({
        [constants.HTTP2_HEADER_METHOD]: 'PATCH',
        [constants.HTTP2_HEADER_PATH]: path(name),
        'content-type': 'application/apply-patch+yaml',
        accept: 'application/json',
        ...auth,
      });
      let status = 0;
      s.on('response', (h) => (status = Number(h[':status'])));
      s.on('data', () => {});
      s.on('end', () =>
        status === 200 || status === 201 ? resolve() : reject(new Error(`status ${status}`)),
      );
      s.on('error', reject);
      s.end(body(name));
    });
  const sides = { h1: viaH1, h2: viaH2 } as const;
  const applyTime = () =>
    apiServerRequestsOf(h1, 'APPLY', 'configmaps', 'apiserver_request_duration_seconds_sum');
  const applyCount = () => apiServerRequestsOf(h1, 'APPLY', 'configmaps');
  for (let i = 0; i < 40; i++) await Promise.all([viaH1(`w1-${i}`), viaH2(`w2-${i}`)]);
  const pid = cp.apiServerPid!;
  const perReq: Record<string, number[]> = { h1: [], h2: [] };
  const cpu: Record<string, number> = { h1: 0, h2: 0 };
  const count: Record<string, number> = { h1: 0, h2: 0 };
  let next = 0;
  for (let b = 0; b < (2 * N) / 40; b++) {
    const side = (b % 4 === 0 || b % 4 === 3 ? 'h1' : 'h2') as keyof typeof sides;
    const [t0, c0, u0] = [await applyTime(), await applyCount(), cpuSeconds(pid)!];
    let left = 40;
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        while (left > 0) {
          left--;
          await sides[side](`c-${next++}`);
        }
      }),
    );
    const [t1, c1, u1] = [await applyTime(), await applyCount(), cpuSeconds(pid)!];
    perReq[side]!.push(((t1 - t0) / (c1 - c0)) * 1000);
    cpu[side]! += u1 - u0;
    count[side]! += c1 - c0;
  }
  for (const s of ['h1', 'h2'])
    console.log(
      `${s}: server median of block means ${median(perReq[s]!).toFixed(2)} ms, apiserver CPU ${((cpu[s]! * 1000) / count[s]!).toFixed(2)} ms per request (${count[s]})`,
    );
  console.log(
    `ratio h1/h2: server time ${(median(perReq.h1!) / median(perReq.h2!)).toFixed(2)}, CPU ${(cpu.h1! / count.h1! / (cpu.h2! / count.h2!)).toFixed(2)}`,
  );
  session.close();
} finally {
  await cp.stop();
}
