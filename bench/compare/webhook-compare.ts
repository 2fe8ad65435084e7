/**
 * `npm run bench:webhook`: op-gen's webhook server next to controller-runtime's (v0.22, go-webhook/),
 * both doing the same defaulting and validation of a Widget, as called by a real kube-apiserver.
 * One control plane; the Mutating/ValidatingWebhookConfigurations point at one local port (through
 * op-gen/testing's installWebhooks), and the two servers take turns on it, alternating which goes first
 * in each round. Each turn: 200 warm-up creates, then N creates with C in flight through the API
 * server (each create is one mutating and one validating admission request); the client measures each
 * create's latency. A Widget-like kind without webhooks gives the API server's own baseline.
 * Only ratios of medians from one run count on this shared machine.
 * Options: --creates 2000 --concurrency 32 --rounds 3. Writes bench/results/webhook-<date>.json.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { CoreV1Api } from '@kubernetes/client-node';
import { defineKind, ResourceClient, Transport } from '../../src/client/index.ts';
import {
  ENVTEST_K8S_VERSION,
  installCrd,
  installWebhooks,
  startControlPlane,
} from '../../src/testing/index.ts';
import { cpuSeconds, peakRssMb, summarize, type Summary } from './peak-rss.ts';
import { CONTROLLER_RUNTIME_VERSION, goWebhook, hasGo, ROOT, writeBenchResult } from './tools.ts';

type Side = 'op-gen' | 'controller-runtime' | 'no webhook';

interface Widget {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace: string };
  spec: { size: number; replicas?: number };
}

export interface WebhookRun {
  readonly side: Side;
  readonly round: number;
  readonly creates: number;
  readonly wallMs: number;
  /** Creates per second; each create is two admission requests (mutating + validating). */
  readonly createsPerSecond: number;
  readonly admissionsPerSecond: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly serverPeakRssMb?: number;
  /** CPU seconds the webhook server used per 1,000 admission requests of the measured creates. */
  readonly serverCpuSecondsPer1000?: number;
}

const { values } = parseArgs({
  options: {
    creates: { type: 'string', default: '2000' },
    concurrency: { type: 'string', default: '32' },
    rounds: { type: 'string', default: '3' },
    warmup: { type: 'string', default: '200' },
  },
});
const CREATES = Number(values.creates);
const CONCURRENCY = Number(values.concurrency);
const ROUNDS = Number(values.rounds);
const WARMUP = Number(values.warmup);
const NS = 'bench';

function crd(plural: string, kind: string): object {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.example.com` },
    spec: {
      group: 'example.com',
      names: { kind, plural, singular: kind.toLowerCase(), listKind: `${kind}List` },
      scope: 'Namespaced',
      versions: [
        {
          name: 'v2',
          served: true,
          storage: true,
          schema: {
            openAPIV3Schema: {
              type: 'object',
              properties: {
                spec: {
                  type: 'object',
                  required: ['size'],
                  properties: {
                    size: { type: 'integer' },
                    replicas: { type: 'integer' },
                    tier: { type: 'string' },
                  },
                },
              },
            },
          },
        },
      ],
    },
  };
}

const WidgetKind = defineKind<Widget>({
  group: 'example.com',
  version: 'v2',
  kind: 'Widget',
  plural: 'widgets',
  namespaced: true,
});
const GadgetKind = defineKind<Widget>({
  group: 'example.com',
  version: 'v2',
  kind: 'Gadget',
  plural: 'gadgets',
  namespaced: true,
});

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

async function createMany(
  client: ResourceClient<Widget>,
  kind: string,
  prefix: string,
  count: number,
): Promise<{ wallMs: number; latencies: number[] }> {
  const latencies: number[] = [];
  let next = 0;
  const started = performance.now();
  const worker = async (): Promise<void> => {
    while (next < count) {
      const i = next++;
      const t = performance.now();
      await client.create({
        apiVersion: 'example.com/v2',
        kind,
        metadata: { name: `${prefix}-${i}`, namespace: NS },
        spec: { size: 1 + (i % 10) },
      });
      latencies.push(performance.now() - t);
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  return { wallMs: performance.now() - started, latencies };
}

function startServer(side: 'op-gen' | 'controller-runtime', port: number, certDir: string): ChildProcess {
  const args = ['--host', '127.0.0.1', '--port', String(port), '--cert-dir', certDir];
  const child =
    side === 'op-gen'
      ? spawn(process.execPath, [join(ROOT, 'bench/compare/op-gen-webhook.mjs'), ...args], {
          stdio: ['ignore', 'ignore', 'inherit'],
        })
      : spawn(goWebhook()!, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  return child;
}

async function stopServer(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  await Promise.race([exited, sleep(10_000)]);
  if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
}

/** Waits until a dry-run create comes back defaulted: the API server calls this server now. */
async function waitServing(client: ResourceClient<Widget>): Promise<void> {
  const deadline = Date.now() + 60_000;
  let last = '';
  while (Date.now() < deadline) {
    try {
      const o = await client.create(
        {
          apiVersion: 'example.com/v2',
          kind: 'Widget',
          metadata: { name: 'probe', namespace: NS },
          spec: { size: 2 },
        },
        { dryRun: 'All' },
      );
      if (o.spec.replicas === 4) return;
      last = 'not defaulted';
    } catch (err) {
      last = (err as Error).message;
    }
    await sleep(100);
  }
  throw new Error(`the webhook server never answered the API server: ${last}`);
}

const build = await new Promise<number>((resolve) =>
  spawn('npm', ['run', 'build'], { cwd: ROOT, stdio: 'inherit' }).once('exit', (c) => resolve(c ?? 1)),
);
if (build !== 0) process.exit(build);
const sides: ('op-gen' | 'controller-runtime')[] = hasGo() ? ['op-gen', 'controller-runtime'] : ['op-gen'];
if (sides.length === 1) console.log('Go toolchain missing: only op-gen is measured; no ratio is reported.');
if (hasGo()) goWebhook();

const cp = await startControlPlane();
const runs: WebhookRun[] = [];
try {
  const manifests = readFileSync(join(ROOT, 'test/fixtures/webhook/manifests.yaml'), 'utf8');
  const env = await installWebhooks(cp.kubeConfig, {
    manifests: [manifests],
    crds: [crd('widgets', 'Widget')],
  });
  await installCrd(cp.kubeConfig, crd('gadgets', 'Gadget'));
  await cp.kubeConfig.makeApiClient(CoreV1Api).createNamespace({ body: { metadata: { name: NS } } });
  const transport = await Transport.fromKubeConfig(cp.kubeConfig, { maxSockets: 64 });
  const widgets = new ResourceClient(transport, WidgetKind);
  const gadgets = new ResourceClient(transport, GadgetKind);

  for (let round = 1; round <= ROUNDS; round++) {
    const order = round % 2 === 1 ? sides : [...sides].reverse();
    for (const side of order) {
      const child = startServer(side, env.port, env.certDir);
      try {
        await waitServing(widgets);
        const prefix = `${side === 'op-gen' ? 'og' : 'cr'}-${round}`;
        await createMany(widgets, 'Widget', `${prefix}-warm`, WARMUP);
        const cpuBefore = child.pid ? cpuSeconds(child.pid) : undefined;
        const { wallMs, latencies } = await createMany(widgets, 'Widget', prefix, CREATES);
        const cpuAfter = child.pid ? cpuSeconds(child.pid) : undefined;
        const sample = await widgets.get({ namespace: NS, name: `${prefix}-7` });
        if (sample.spec.replicas !== sample.spec.size * 2)
          throw new Error(`${side}: ${prefix}-7 was not defaulted: ${JSON.stringify(sample.spec)}`);
        latencies.sort((a, b) => a - b);
        const cpu = cpuBefore !== undefined && cpuAfter !== undefined ? cpuAfter - cpuBefore : undefined;
        const run: WebhookRun = {
          side,
          round,
          creates: CREATES,
          wallMs,
          createsPerSecond: (CREATES / wallMs) * 1000,
          admissionsPerSecond: ((2 * CREATES) / wallMs) * 1000,
          p50Ms: percentile(latencies, 50),
          p99Ms: percentile(latencies, 99),
          ...(child.pid ? { serverPeakRssMb: peakRssMb(child.pid) } : {}),
          ...(cpu !== undefined ? { serverCpuSecondsPer1000: (cpu / (2 * CREATES)) * 1000 } : {}),
        };
        runs.push(run);
        console.log(
          `round ${round} ${side.padEnd(18)} ${run.createsPerSecond.toFixed(0)} creates/s (${run.admissionsPerSecond.toFixed(0)} admissions/s), p50 ${run.p50Ms.toFixed(1)} ms, p99 ${run.p99Ms.toFixed(1)} ms, server RSS ${run.serverPeakRssMb?.toFixed(0)} MB, CPU ${run.serverCpuSecondsPer1000?.toFixed(2)} s/1000 admissions`,
        );
      } finally {
        await stopServer(child);
      }
    }
    // The API server alone, on a kind without webhooks.
    await createMany(gadgets, 'Gadget', `base-${round}-warm`, WARMUP);
    const { wallMs, latencies } = await createMany(gadgets, 'Gadget', `base-${round}`, CREATES);
    latencies.sort((a, b) => a - b);
    const base: WebhookRun = {
      side: 'no webhook',
      round,
      creates: CREATES,
      wallMs,
      createsPerSecond: (CREATES / wallMs) * 1000,
      admissionsPerSecond: 0,
      p50Ms: percentile(latencies, 50),
      p99Ms: percentile(latencies, 99),
    };
    runs.push(base);
    console.log(
      `round ${round} ${'no webhook'.padEnd(18)} ${base.createsPerSecond.toFixed(0)} creates/s, p50 ${base.p50Ms.toFixed(1)} ms, p99 ${base.p99Ms.toFixed(1)} ms`,
    );
  }
  transport.close();
  await env.uninstall();
} finally {
  await cp.stop();
}

const summary = (side: Side) => {
  const of = runs.filter((r) => r.side === side);
  if (of.length === 0) return undefined;
  const s = (f: (r: WebhookRun) => number | undefined): Summary | undefined => {
    const v = of.map(f).filter((x): x is number => x !== undefined);
    return v.length ? summarize(v) : undefined;
  };
  return {
    createsPerSecond: s((r) => r.createsPerSecond)!,
    admissionsPerSecond: s((r) => r.admissionsPerSecond)!,
    p50Ms: s((r) => r.p50Ms)!,
    p99Ms: s((r) => r.p99Ms)!,
    serverPeakRssMb: s((r) => r.serverPeakRssMb),
    serverCpuSecondsPer1000: s((r) => r.serverCpuSecondsPer1000),
  };
};
const opGen = summary('op-gen')!;
const cr = summary('controller-runtime');
const ratios = cr
  ? {
      throughput: opGen.createsPerSecond.median / cr.createsPerSecond.median,
      p50: opGen.p50Ms.median / cr.p50Ms.median,
      p99: opGen.p99Ms.median / cr.p99Ms.median,
      ...(opGen.serverCpuSecondsPer1000 && cr.serverCpuSecondsPer1000
        ? { cpu: opGen.serverCpuSecondsPer1000.median / cr.serverCpuSecondsPer1000.median }
        : {}),
      ...(opGen.serverPeakRssMb && cr.serverPeakRssMb
        ? { rss: opGen.serverPeakRssMb.median / cr.serverPeakRssMb.median }
        : {}),
    }
  : undefined;

console.log('\nmedians of', ROUNDS, 'rounds:');
for (const [name, s] of [
  ['op-gen', opGen],
  ['controller-runtime', cr],
  ['no webhook', summary('no webhook')],
] as const) {
  if (!s) continue;
  console.log(
    `  ${name.padEnd(18)} ${s.createsPerSecond.median.toFixed(0)} creates/s, p50 ${s.p50Ms.median.toFixed(1)} ms, p99 ${s.p99Ms.median.toFixed(1)} ms` +
      (s.serverPeakRssMb ? `, RSS ${s.serverPeakRssMb.median.toFixed(0)} MB` : '') +
      (s.serverCpuSecondsPer1000
        ? `, CPU ${s.serverCpuSecondsPer1000.median.toFixed(2)} s/1000 admissions`
        : ''),
  );
}
if (ratios)
  console.log(
    `  op-gen / controller-runtime: throughput ${ratios.throughput.toFixed(2)}× (target ≥ 0.8), p50 ${ratios.p50.toFixed(2)}×, p99 ${ratios.p99.toFixed(2)}× (target ≤ 1.5)` +
      (ratios.cpu ? `, CPU ${ratios.cpu.toFixed(2)}×` : '') +
      (ratios.rss ? `, RSS ${ratios.rss.toFixed(2)}×` : ''),
  );

writeBenchResult('webhook', {
  versions: {
    node: process.version,
    controllerRuntime: CONTROLLER_RUNTIME_VERSION,
    kubernetes: ENVTEST_K8S_VERSION,
  },
  settings: { creates: CREATES, concurrency: CONCURRENCY, rounds: ROUNDS, warmup: WARMUP },
  runs,
  summary: { opGen, controllerRuntime: cr, noWebhook: summary('no webhook') },
  ratios,
});
