/**
 * `node bench/tracing.ts` (after `npm run build`): what tracing costs a reconcile. N reconciles
 * (default 20,000 keys) run through a Controller of the built runtime (dist/), each reconcile sending
 * one API request (a create, answered at once by an in-process transport) and logging one line
 * below the logger's level; the process's CPU time (process.cpuUsage: steadier than wall time on a
 * busy machine) from queueing the keys to the last reconcile, median of --runs, in three alternating modes in one process:
 * - `off`: no tracer provider registered (the API's no-op; what every operator without an SDK runs);
 * - `on`: a recording in-bench TracerProvider (spans kept in an array: the runtime's own cost, not
 *   an exporter's);
 * - `base` with `--baseline DIR` (a dist/ of the commit before tracing): the runtime without tracing.
 * Prints the medians and the ratios off/base and on/off.
 * Options: --runs N (default 7), --reconciles N (20000), --baseline DIR.
 */
import { randomBytes } from 'node:crypto';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import {
  trace,
  type Context,
  type Span,
  type SpanContext,
  type Tracer,
  type TracerProvider,
} from '@opentelemetry/api';
import type { TransportRequest } from '../src/client/transport.ts';
import type * as Runtime from '../src/runtime/index.ts';

const ROOT = new URL('..', import.meta.url).pathname;
const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '7' },
    reconciles: { type: 'string', default: '20000' },
    baseline: { type: 'string' },
  },
});
const runs = Number(values.runs);
const n = Number(values.reconciles);

type Rt = typeof Runtime;
const load = async (dist: string): Promise<Rt> =>
  (await import(pathToFileURL(join(resolve(dist), 'runtime', 'index.js')).href)) as Rt;

/** A span that only counts what it is told (the SDK's exporter work is not the runtime's cost). */
function countingProvider(): TracerProvider & { ended: number } {
  const state = { ended: 0 };
  const span = (parent: SpanContext | undefined): Span => {
    const sc: SpanContext = {
      traceId: parent?.traceId ?? randomBytes(16).toString('hex'),
      spanId: randomBytes(8).toString('hex'),
      traceFlags: 1,
    };
    const self: Span = {
      spanContext: () => sc,
      setAttribute: () => self,
      setAttributes: () => self,
      addEvent: () => self,
      addLink: () => self,
      addLinks: () => self,
      setStatus: () => self,
      updateName: () => self,
      end: () => {
        state.ended++;
      },
      isRecording: () => true,
      recordException: () => {},
    };
    return self;
  };
  const tracer = {
    startSpan: (_name: string, _options?: unknown, ctx?: Context) =>
      span(ctx ? trace.getSpanContext(ctx) : undefined),
    startActiveSpan: () => {
      throw new Error('not used');
    },
  } as unknown as Tracer;
  return Object.assign(state, { getTracer: () => tracer });
}

async function once(rt: Rt, provider: TracerProvider | undefined): Promise<number> {
  let answered = 0;
  const transport = {
    request: <T>(req: TransportRequest): Promise<T> => {
      answered++;
      return Promise.resolve(req.body as T);
    },
    stream: () => new Promise<void>(() => {}),
    close: () => {},
  };
  const logger = rt.createLogger({ level: 'info', write: () => {} });
  const cache = new rt.InformerCache(transport, { logger });
  const client = new rt.ReconcileClient(transport, cache, 'bench');
  const kind = rt.builtinKinds.ConfigMap;
  let done = 0;
  let finish: () => void = () => {};
  const finished = new Promise<void>((r) => (finish = r));
  const c = new rt.Controller<unknown>({
    name: 'bench',
    kind: kind as never,
    reconciler: {
      async reconcile(ctx, req) {
        ctx.log.debug('reconciling');
        await ctx.client.create(kind, { metadata: { namespace: req.namespace, name: `${req.name}-x` } });
        if (++done === n) finish();
      },
    },
    client,
    recorder: { event: () => undefined },
    logger,
    metrics: new rt.RuntimeMetrics(),
    options: { maxConcurrentReconciles: 1 },
    ...(provider ? { tracer: rt.runtimeTracer(provider) } : {}),
  } as ConstructorParameters<Rt['Controller']>[0]);
  const cpu = process.cpuUsage();
  c.start();
  for (let i = 0; i < n; i++) c.enqueue(`ns${i % 50}/o${i}`);
  await finished;
  const used = process.cpuUsage(cpu);
  const ms = (used.user + used.system) / 1000;
  await c.stop(1000);
  if (answered !== n) throw new Error(`${answered} requests for ${n} reconciles`);
  return ms;
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

const branch = await load(join(ROOT, 'dist'));
const base = values.baseline ? await load(values.baseline) : undefined;
const samples: Record<'off' | 'on' | 'base', number[]> = { off: [], on: [], base: [] };
const provider = countingProvider();
// One warm-up round of each, not counted.
await once(branch, undefined);
await once(branch, provider);
if (base) await once(base, undefined);
for (let r = 0; r < runs; r++) {
  samples.off.push(await once(branch, undefined));
  samples.on.push(await once(branch, provider));
  if (base) samples.base.push(await once(base, undefined));
}
if (provider.ended < 2 * n * (runs + 1)) throw new Error(`only ${provider.ended} spans ended`);
const m = { off: median(samples.off), on: median(samples.on), base: base ? median(samples.base) : NaN };
console.log(`${n} reconciles, median of ${runs} alternating runs (CPU ms):`);
console.log(
  `  tracing off (no provider): ${m.off.toFixed(1)}  [${samples.off.map((x) => x.toFixed(0)).join(', ')}]`,
);
console.log(
  `  tracing on (recording):    ${m.on.toFixed(1)}  [${samples.on.map((x) => x.toFixed(0)).join(', ')}]`,
);
if (base)
  console.log(
    `  before tracing (baseline): ${m.base.toFixed(1)}  [${samples.base.map((x) => x.toFixed(0)).join(', ')}]`,
  );
if (base) console.log(`  off / baseline: ${(m.off / m.base).toFixed(3)}×`);
console.log(`  on / off: ${(m.on / m.off).toFixed(3)}×`);
