/**
 * `node --expose-gc bench/metadata-memory.ts`: the memory a metadata-only watch saves (issue 39,
 * item 2) on a real kube-apiserver + etcd (op-gen/testing's control plane): N Secrets with 4 KiB of
 * data each are created once; then, in fresh node processes, alternating, an InformerCache syncs the
 * Secrets either with a full informer (`cache.informersFor`) or a metadata-only one
 * (`cache.metadataInformersFor`: PartialObjectMetadata lists and watches); the heap in use after a
 * full GC once synced, minus the heap before the cache started, is reported (median of --runs) per
 * object, with the ratio metadata/full.
 * Options: --objects N (20000), --runs N (3), --bytes N (4096 per Secret).
 */
import { spawnSync } from 'node:child_process';
import { parseArgs } from 'node:util';
import { KubeConfig } from '@kubernetes/client-node';
import { ResourceClient } from '../src/client/resource-client.ts';
import { Transport } from '../src/client/transport.ts';
import { builtinKinds } from '../src/runtime/builtin-kinds.ts';
import { InformerCache } from '../src/runtime/cache.ts';
import { createLogger } from '../src/runtime/logger.ts';
import { startControlPlane } from '../src/testing/control-plane.ts';

const { values } = parseArgs({
  options: {
    child: { type: 'string' },
    objects: { type: 'string', default: '20000' },
    runs: { type: 'string', default: '3' },
    bytes: { type: 'string', default: '4096' },
  },
});
const objects = Number(values.objects);

interface Sample {
  readonly heapMb: number;
  readonly cached: number;
  readonly syncMs: number;
}

function heapUsed(): number {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error('run with node --expose-gc');
  gc();
  gc();
  return process.memoryUsage().heapUsed;
}

async function child(mode: string): Promise<Sample> {
  const kc = new KubeConfig();
  kc.loadFromDefault();
  const transport = await Transport.fromKubeConfig(kc);
  const cache = new InformerCache(transport, { logger: createLogger({ level: 'error', write: () => {} }) });
  const before = heapUsed();
  const informers =
    mode === 'metadata'
      ? cache.metadataInformersFor(builtinKinds.Secret)
      : cache.informersFor(builtinKinds.Secret);
  const t0 = performance.now();
  cache.start();
  await cache.waitForSync();
  const syncMs = performance.now() - t0;
  const heap = heapUsed() - before;
  const cached = informers.reduce((n, i) => n + i.size, 0);
  const sample =
    mode === 'metadata' ? cache.listMetadata(builtinKinds.Secret)[0] : cache.list(builtinKinds.Secret)[0];
  if (mode === 'metadata' && sample && 'data' in sample) throw new Error('a metadata-only Secret has data');
  await cache.stop();
  transport.close();
  return { heapMb: heap / 1024 / 1024, cached, syncMs };
}

function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

if (values.child) {
  process.stdout.write(JSON.stringify(await child(values.child)) + '\n');
} else {
  const cp = await startControlPlane();
  try {
    const secrets = new ResourceClient(await Transport.fromKubeConfig(cp.kubeConfig), builtinKinds.Secret);
    const payload = Buffer.alloc(Number(values.bytes), 'x').toString('base64').slice(0, Number(values.bytes));
    const t0 = performance.now();
    let next = 0;
    await Promise.all(
      Array.from({ length: 16 }, async () => {
        for (let i = next++; i < objects; i = next++)
          await secrets.create({
            metadata: { name: `s-${i}`, namespace: 'default', labels: { app: 'bench' } },
            stringData: { payload },
          });
      }),
    );
    process.stdout.write(
      `created ${objects} Secrets of ${values.bytes} B in ${((performance.now() - t0) / 1000).toFixed(1)} s\n`,
    );
    const modes = ['full', 'metadata'] as const;
    const samples = new Map<string, Sample[]>(modes.map((m) => [m, []]));
    const runs = Number(values.runs);
    for (let r = 0; r < runs; r++) {
      for (const mode of r % 2 ? [...modes].reverse() : modes) {
        const out = spawnSync(
          process.execPath,
          ['--expose-gc', new URL(import.meta.url).pathname, '--child', mode],
          { encoding: 'utf8', timeout: 600_000, env: { ...process.env, KUBECONFIG: cp.kubeconfigPath } },
        );
        if (out.status !== 0) throw new Error(`${mode} run failed: ${out.stderr}`);
        const s = JSON.parse(out.stdout) as Sample;
        samples.get(mode)!.push(s);
        process.stdout.write(
          `run ${r + 1} ${mode.padEnd(8)} ${s.cached} cached, heap +${s.heapMb.toFixed(1)} MB (${((s.heapMb * 1024 * 1024) / s.cached).toFixed(0)} B/object), synced in ${s.syncMs.toFixed(0)} ms\n`,
        );
      }
    }
    const m = (mode: string, f: (s: Sample) => number) => median(samples.get(mode)!.map(f));
    process.stdout.write(`\nmedians of ${runs}, ${objects} Secrets of ${values.bytes} B data:\n`);
    for (const mode of modes)
      process.stdout.write(
        `  ${mode.padEnd(8)} heap +${m(mode, (s) => s.heapMb).toFixed(1)} MB (${((m(mode, (s) => s.heapMb) * 1024 * 1024) / objects).toFixed(0)} B/object), sync ${m(mode, (s) => s.syncMs).toFixed(0)} ms\n`,
      );
    process.stdout.write(
      `  metadata/full: heap ${(m('metadata', (s) => s.heapMb) / m('full', (s) => s.heapMb)).toFixed(3)}, sync ${(m('metadata', (s) => s.syncMs) / m('full', (s) => s.syncMs)).toFixed(3)}\n`,
    );
  } finally {
    await cp.stop();
  }
}
