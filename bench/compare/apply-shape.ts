// Server-side apply of fresh ConfigMaps on op-gen/testing's control plane: op-gen's request (the
// object as src/runtime/dependents prepares it, sent by ResourceClient.apply) against the request
// controller-runtime's unstructured client sends for bench/compare/go-dependents (JSON body,
// Content-Type application/apply-patch+yaml, Accept application/json, fieldManager only).
// Alternating blocks of BLOCK requests, one at a time; per block the API server's own time
// (apiserver_request_duration_seconds APPLY configmaps, sum/count delta) and per request the
// client-side latency. Usage: node bench/compare/apply-shape.ts [--n 500] [--block 10]
import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import { ResourceClient } from '../../src/client/resource-client.ts';
import { Transport } from '../../src/client/transport.ts';
import type { TransportRequest } from '../../src/client/transport-types.ts';
import { builtinKinds } from '../../src/runtime/builtin-kinds.ts';
import { withSpecHash } from '../../src/runtime/spec-hash.ts';
import { startControlPlane } from '../../src/testing/index.ts';
import { apiServerRequestsOf } from '../../test/helpers/prometheus-text.ts';
import { cpuSeconds } from './peak-rss.ts';

const { values } = parseArgs({
  options: { n: { type: 'string', default: '500' }, block: { type: 'string', default: '10' } },
});
const N = Number(values.n);
const BLOCK = Number(values.block);
const NS = 'apply-shape';

const median = (xs: readonly number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

const cp = await startControlPlane();
try {
  const base = await Transport.fromKubeConfig(cp.kubeConfig);
  const seen: TransportRequest[] = [];
  const logging = {
    ...base,
    request: <T>(req: TransportRequest) => (seen.push(req), base.request<T>(req)),
  } as Transport;
  await base.request({
    method: 'POST',
    path: '/api/v1/namespaces',
    body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } },
  });
  const configMaps = new ResourceClient(logging, builtinKinds.ConfigMap);
  const owner = () => [
    {
      apiVersion: 'bench.op-gen.dev/v1',
      kind: 'BenchApp',
      name: 'x',
      uid: randomUUID(),
      controller: true,
      blockOwnerDeletion: true,
    },
  ];
  const labels = (i: number) => ({
    'app.kubernetes.io/name': 'benchapp',
    'app.kubernetes.io/instance': `app-${i}`,
  });

  /** op-gen: what DependentWorkflow.prepare builds (two more labels, the spec-hash annotation), through ResourceClient.apply. */
  const opGen = async (i: number): Promise<void> => {
    const ownerReferences = owner();
    const obj = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: {
        name: `opgen-${i}`,
        namespace: NS,
        labels: {
          ...labels(i),
          'op-gen.dev/dependent': 'config',
          'op-gen.dev/owner-uid': ownerReferences[0]!.uid,
        },
        ownerReferences,
      },
      data: { IMAGE: 'nginx:1.27' },
    };
    await configMaps.apply(withSpecHash(obj, obj), { fieldManager: 'op-gen' });
  };
  /** controller-runtime (unstructured client, client.Apply): JSON body, Accept application/json. */
  const goShaped = async (i: number): Promise<void> => {
    await base.request({
      method: 'PATCH',
      path: `/api/v1/namespaces/${NS}/configmaps/go-${i}`,
      query: { fieldManager: 'bench' },
      contentType: 'application/apply-patch+yaml',
      accept: 'application/json',
      body: {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: `go-${i}`, namespace: NS, labels: labels(i), ownerReferences: owner() },
        data: { IMAGE: 'nginx:1.27' },
      },
    });
  };
  /** controller-runtime's apply of an object it applied before, unchanged (its every later reconcile). */
  const fixedOwner = owner();
  const noopBody = (i: number) => ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: `noop-${i}`, namespace: NS, labels: labels(i), ownerReferences: fixedOwner },
    data: { IMAGE: 'nginx:1.27' },
  });
  const goNoop = async (i: number): Promise<void> => {
    await base.request({
      method: 'PATCH',
      path: `/api/v1/namespaces/${NS}/configmaps/noop-${i}`,
      query: { fieldManager: 'bench' },
      contentType: 'application/apply-patch+yaml',
      accept: 'application/json',
      body: noopBody(i),
    });
  };
  for (let i = 0; i < 2 * N; i++) await goNoop(i);
  await opGen(-1);
  console.log('op-gen request:', JSON.stringify(seen[0]));
  for (let i = 0; i < 20; i++) await Promise.all([opGen(-100 - i), goShaped(-100 - i), goNoop(i)]); // warm-up

  const applyTime = () =>
    apiServerRequestsOf(base, 'APPLY', 'configmaps', 'apiserver_request_duration_seconds_sum');
  const applyCount = () => apiServerRequestsOf(base, 'APPLY', 'configmaps');
  const sides = { opGen, goShaped, goNoop } as const;
  const names = Object.keys(sides) as (keyof typeof sides)[];
  const client: Record<string, number[]> = { opGen: [], goShaped: [], goNoop: [] };
  const server: Record<string, number[]> = { opGen: [], goShaped: [], goNoop: [] };
  for (let b = 0; b < (names.length * N) / BLOCK; b++) {
    const round = Math.floor(b / names.length);
    const side = names[round % 2 ? names.length - 1 - (b % names.length) : b % names.length]!;
    const [t0, c0] = [await applyTime(), await applyCount()];
    for (let k = 0; k < BLOCK; k++) {
      const i = b * BLOCK + k;
      const start = performance.now();
      await sides[side](side === 'goNoop' ? i % (2 * N) : i);
      client[side]!.push(performance.now() - start);
    }
    const [t1, c1] = [await applyTime(), await applyCount()];
    server[side]!.push(((t1 - t0) / (c1 - c0)) * 1000);
  }
  const r = (x: number) => x.toFixed(2);
  for (const s of names)
    console.log(
      `${s}: client median ${r(median(client[s]!))} ms (n=${client[s]!.length}), server median of block means ${r(median(server[s]!))} ms (blocks=${server[s]!.length})`,
    );
  console.log(
    `ratio op-gen/go: client ${r(median(client.opGen!) / median(client.goShaped!))}, server ${r(median(server.opGen!) / median(server.goShaped!))}`,
  );
  console.log(
    `ratio fresh apply (go) / no-op re-apply (go): client ${r(median(client.goShaped!) / median(client.goNoop!))}, server ${r(median(server.goShaped!) / median(server.goNoop!))}`,
  );

  // The same op-gen request, 1 vs 8 in flight (alternating blocks of 40): the API server's time per
  // request (wall clock from receipt to answer, what apiserver_request_duration_seconds measures)
  // against its CPU per request (/proc/<kube-apiserver>/stat over the block).
  const pid = cp.apiServerPid!;
  const inFlight = { one: 1, eight: 8 } as const;
  const perReq: Record<string, number[]> = { one: [], eight: [] };
  const cpu: Record<string, number> = { one: 0, eight: 0 };
  const count: Record<string, number> = { one: 0, eight: 0 };
  let next = 100_000;
  for (let b = 0; b < (2 * N) / 40; b++) {
    const side = (b % 4 === 0 || b % 4 === 3 ? 'one' : 'eight') as keyof typeof inFlight;
    const [t0, c0, u0] = [await applyTime(), await applyCount(), cpuSeconds(pid)!];
    let left = 40;
    await Promise.all(
      Array.from({ length: inFlight[side] }, async () => {
        while (left > 0) {
          left--;
          await opGen(next++);
        }
      }),
    );
    const [t1, c1, u1] = [await applyTime(), await applyCount(), cpuSeconds(pid)!];
    perReq[side]!.push(((t1 - t0) / (c1 - c0)) * 1000);
    cpu[side]! += u1 - u0;
    count[side]! += c1 - c0;
  }
  for (const s of ['one', 'eight'])
    console.log(
      `in flight ${inFlight[s as keyof typeof inFlight]}: server median of block means ${r(median(perReq[s]!))} ms, apiserver CPU ${r((cpu[s]! * 1000) / count[s]!)} ms per request (${count[s]} requests, includes its /metrics answers)`,
    );
  console.log(
    `ratio 8/1 in flight: server time ${r(median(perReq.eight!) / median(perReq.one!))}, CPU per request ${r(cpu.eight! / count.eight! / (cpu.one! / count.one!))}`,
  );
} finally {
  await cp.stop();
}
