/**
 * `npm run bench:sharding`: N ConfigMaps (default 5,000) reconciled by 1 leader-elected replica and
 * by 3 sharded replicas, against one control plane with ShardedListAndWatch on, in alternating
 * rounds. Each round sets a new `want` annotation on every object while no replica runs, then
 * starts the replicas (test/fixtures/runtime/sharding-replica.ts: one merge patch per object) and
 * measures the time until every object reports it (polled every second), and each replica's peak RSS.
 * Timings: 15 s lease, 10 s renew deadline, 2 s retry (client-go's defaults) in both modes.
 * Prints medians over the rounds and their ratios. Options: --objects N --rounds N --workers N.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type { V1ConfigMap } from '@kubernetes/client-node';
import { ResourceClient, Transport } from '../src/client/index.ts';
import { builtinKinds } from '../src/runtime/index.ts';
import { startControlPlane } from '../src/testing/index.ts';

const { values } = parseArgs({
  options: {
    objects: { type: 'string', default: '5000' },
    rounds: { type: 'string', default: '1' },
    workers: { type: 'string', default: '4' },
  },
});
const objects = Number(values.objects);
const rounds = Number(values.rounds);
const REPLICA = new URL('../test/fixtures/runtime/sharding-replica.ts', import.meta.url).pathname;
const namespace = 'bench';

const cp = await startControlPlane({ featureGates: { ShardedListAndWatch: true } });
const transport = await Transport.fromKubeConfig(cp.kubeConfig);
const cms = new ResourceClient<V1ConfigMap>(transport, builtinKinds.ConfigMap);
const dir = mkdtempSync(join(tmpdir(), 'op-gen-bench-sharding-'));

async function parallel<T>(items: T[], fn: (item: T) => Promise<unknown>, width = 16): Promise<void> {
  let i = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (i < items.length) await fn(items[i++]!);
    }),
  );
}

interface Replica {
  child: ChildProcess;
  peakRss: number;
  cache: number;
}

function startReplica(id: string, sharded: boolean, record: string): Replica {
  const child = spawn(process.execPath, [REPLICA], {
    env: {
      ...process.env,
      KUBECONFIG: cp.kubeconfigPath,
      NAMESPACE: namespace,
      RECORD: record,
      REPLICA_ID: id,
      SHARDED: sharded ? '1' : '0',
      WORK_MS: '0',
      // client-go's leader election timings, for both modes.
      LEASE_MS: '15000',
      RENEW_MS: '10000',
      RETRY_MS: '2000',
      WORKERS: values.workers,
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const r: Replica = { child, peakRss: 0, cache: 0 };
  let buf = '';
  child.stdout!.on('data', (d: Buffer) => {
    buf += d.toString();
    let nl: number;
    while ((nl = buf.indexOf('\n')) >= 0) {
      const line = buf.slice(0, nl);
      buf = buf.slice(nl + 1);
      try {
        const s = (JSON.parse(line) as { stats?: { peakRss: number; cache: number } }).stats;
        if (s) {
          r.peakRss = Math.max(r.peakRss, s.peakRss);
          r.cache = s.cache;
        }
      } catch {
        // a log line
      }
    }
  });
  return r;
}

async function stop(r: Replica): Promise<void> {
  if (r.child.exitCode !== null) return;
  const done = new Promise((resolve) => r.child.once('exit', resolve));
  r.child.kill('SIGTERM');
  await done;
}

async function converged(want: string): Promise<boolean> {
  const list = await cms.listAll({ namespace });
  return list.items.filter((o) => o.data?.done === want).length === objects;
}

const names = Array.from({ length: objects }, (_, i) => `cm-${String(i).padStart(5, '0')}`);
await transport.request({
  method: 'POST',
  path: '/api/v1/namespaces',
  body: { metadata: { name: namespace } },
});
console.log(`creating ${objects} ConfigMaps ...`);
await parallel(names, (name) =>
  cms.create({
    metadata: { name, namespace, annotations: { want: '0' } },
    data: { payload: 'x'.repeat(256) },
  }),
);

interface Run {
  ms: number;
  peakRssMb: number[];
  cache: number[];
}
const results: Record<'leader' | 'sharded', Run[]> = { leader: [], sharded: [] };
let generation = 0;
for (let round = 0; round < rounds; round++) {
  for (const mode of ['leader', 'sharded'] as const) {
    const want = String(++generation);
    await parallel(names, (name) =>
      cms.patch({ namespace, name }, 'merge', { metadata: { annotations: { want } } }),
    );
    const record = join(dir, `record-${want}.jsonl`);
    writeFileSync(record, '');
    const started = performance.now();
    const replicas =
      mode === 'leader'
        ? [startReplica(`leader-${want}`, false, record)]
        : [1, 2, 3].map((i) => startReplica(`shard-${want}-${i}`, true, record));
    while (!(await converged(want))) await new Promise((r) => setTimeout(r, 1000));
    const ms = performance.now() - started;
    await new Promise((r) => setTimeout(r, 600)); // one more stats line
    const run = {
      ms,
      peakRssMb: replicas.map((r) => r.peakRss / 2 ** 20),
      cache: replicas.map((r) => r.cache),
    };
    results[mode].push(run);
    console.log(
      `round ${round + 1} ${mode}: converged after ${(ms / 1000).toFixed(1)} s; peak RSS ${run.peakRssMb
        .map((m) => `${m.toFixed(0)} MB`)
        .join(', ')}; cached ${run.cache.join(', ')}`,
    );
    await Promise.all(replicas.map(stop));
  }
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};
const leaderMs = median(results.leader.map((r) => r.ms));
const shardedMs = median(results.sharded.map((r) => r.ms));
const leaderRss = median(results.leader.map((r) => r.peakRssMb[0]!));
const shardedRss = median(results.sharded.flatMap((r) => r.peakRssMb));
console.log(
  `\n${objects} ConfigMaps, ${rounds} round(s), ${values.workers} workers per replica (node ${process.version})`,
);
console.log(
  `time to converge, median: 1 leader-elected ${(leaderMs / 1000).toFixed(1)} s, 3 sharded ${(shardedMs / 1000).toFixed(1)} s (sharded/leader ${(shardedMs / leaderMs).toFixed(2)})`,
);
console.log(
  `peak RSS per replica, median: leader-elected ${leaderRss.toFixed(0)} MB, sharded ${shardedRss.toFixed(0)} MB (sharded/leader ${(shardedRss / leaderRss).toFixed(2)})`,
);

transport.close();
await cp.stop();
rmSync(dir, { recursive: true, force: true });
