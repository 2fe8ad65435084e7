/**
 * `node bench/failover.ts`: leader SIGKILL -> first reconcile by the new leader, warm standby
 * (`warmup: true`, controller-runtime's EnableWarmup) vs cold, on the real API server (op-gen/testing's
 * control plane) with --objects ConfigMaps (default 20,000) in one namespace. Each round and mode:
 * replica A (bench/failover-replica.ts, a separate process) leads and reconciles; replica B starts
 * and stands by (warm: until its cache is synced; cold: 0.5 s after it asks for the Lease); A is SIGKILLed; B's lease wait (4 s
 * lease) and its first reconcile are timed. Modes alternate within each round; medians of --rounds.
 * Prints kill -> leader, leader -> first reconcile, and kill -> first reconcile per mode.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import { ResourceClient } from '../src/client/resource-client.ts';
import { Transport } from '../src/client/transport.ts';
import { builtinKinds } from '../src/runtime/index.ts';
import { startControlPlane } from '../src/testing/index.ts';

const { values } = parseArgs({
  options: { objects: { type: 'string', default: '20000' }, rounds: { type: 'string', default: '3' } },
});
const objects = Number(values.objects);
const rounds = Number(values.rounds);
const REPLICA = new URL('./failover-replica.ts', import.meta.url).pathname;
const namespace = 'bench';

const cp = await startControlPlane();
const transport = await Transport.fromKubeConfig(cp.kubeConfig);
await transport.request({
  method: 'POST',
  path: '/api/v1/namespaces',
  body: { metadata: { name: namespace } },
});
const cms = new ResourceClient(transport, builtinKinds.ConfigMap);
let next = 0;
const created = performance.now();
await Promise.all(
  Array.from({ length: 16 }, async () => {
    while (next < objects) {
      const i = next++;
      await cms.create({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { namespace, name: `c${i}` },
        data: { i: `${i}` },
      });
    }
  }),
);
console.error(`${objects} ConfigMaps created in ${((performance.now() - created) / 1000).toFixed(1)} s`);

interface Replica {
  child: ChildProcess;
  event(name: string): Promise<number>;
}

function replica(warm: boolean): Replica {
  const child = spawn(process.execPath, [REPLICA], {
    env: { ...process.env, KUBECONFIG: cp.kubeconfigPath, NAMESPACE: namespace, WARMUP: warm ? '1' : '0' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const seen = new Map<string, number>();
  const waiting = new Map<string, (at: number) => void>();
  createInterface({ input: child.stdout! }).on('line', (line) => {
    const { event, at } = JSON.parse(line) as { event: string; at: number };
    seen.set(event, at);
    waiting.get(event)?.(at);
  });
  return {
    child,
    event: (name) =>
      new Promise<number>((resolve, reject) => {
        const at = seen.get(name);
        if (at !== undefined) return resolve(at);
        waiting.set(name, resolve);
        child.once('exit', () => reject(new Error(`replica exited before ${name}`)));
      }),
  };
}

const kill = async (r: Replica): Promise<void> => {
  if (r.child.exitCode !== null || r.child.signalCode !== null) return;
  const exited = new Promise((resolve) => r.child.once('exit', resolve));
  r.child.kill('SIGKILL');
  await exited;
};

async function once(warm: boolean): Promise<{ toLeader: number; toReconcile: number; total: number }> {
  await transport
    .request({
      method: 'DELETE',
      path: `/apis/coordination.k8s.io/v1/namespaces/${namespace}/leases/failover-bench`,
    })
    .catch(() => undefined);
  const a = replica(warm);
  await a.event('first-reconcile');
  const b = replica(warm);
  if (warm) await b.event('warm');
  else {
    await b.event('standby');
    await new Promise((r) => setTimeout(r, 500));
  }
  const killedAt = Date.now();
  await kill(a);
  const leader = await b.event('leader');
  const first = await b.event('first-reconcile');
  await kill(b);
  return { toLeader: leader - killedAt, toReconcile: first - leader, total: first - killedAt };
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((x, y) => x - y);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};
const results: Record<'cold' | 'warm', { toLeader: number; toReconcile: number; total: number }[]> = {
  cold: [],
  warm: [],
};
try {
  for (let r = 0; r < rounds; r++)
    for (const mode of r % 2 ? (['warm', 'cold'] as const) : (['cold', 'warm'] as const)) {
      const m = await once(mode === 'warm');
      results[mode].push(m);
      console.error(`round ${r + 1} ${mode}: ${JSON.stringify(m)}`);
    }
  console.log(
    `${objects} ConfigMaps, medians of ${rounds} rounds (ms): kill->leader, leader->first reconcile, kill->first reconcile`,
  );
  for (const mode of ['cold', 'warm'] as const) {
    const xs = results[mode];
    console.log(
      `  ${mode}: ${median(xs.map((x) => x.toLeader))}, ${median(xs.map((x) => x.toReconcile))}, ${median(xs.map((x) => x.total))}`,
    );
  }
  const ratio =
    median(results.warm.map((x) => x.toReconcile)) / median(results.cold.map((x) => x.toReconcile));
  const total = median(results.warm.map((x) => x.total)) / median(results.cold.map((x) => x.total));
  console.log(
    `  warm/cold: leader->first reconcile ${ratio.toFixed(3)}x, kill->first reconcile ${total.toFixed(3)}x`,
  );
} finally {
  transport.close();
  await cp.stop();
}
