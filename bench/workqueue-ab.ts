/**
 * A/B of the controller's enqueue path in two source checkouts (e.g. main and a change): each
 * measurement is a fresh Node process that imports the checkout's src/runtime and times, in CPU
 * (user + system of the process, from process.cpuUsage, steadier than wall time on a loaded machine):
 *
 * - `adds`: N distinct keys through `Controller.enqueue(key, LOW_PRIORITY)` (the initial list's
 *   priority), the controller's queue wired to RuntimeMetrics as in a manager;
 * - `gets`: then N `queue.get()` + `queue.done()` (what the workers do, without a reconcile);
 * - `list`: a fresh store, controller and builder handler: one `list` event of N ConfigMaps applied
 *   to an InformerStore whose handler is the builder's (for(kind): predicates, key, priority, queue),
 *   i.e. what an informer's initial list costs from the parsed objects to the queue.
 *
 * The sides alternate, the order reversed every round; per side the median (min–max) and the ratio
 * B ÷ A of the medians. Node's flags for the children: --node-args (default the scaffold's production
 * flags `--max-semi-space-size=1 --no-opt --no-maglev`; "" for Node's defaults).
 *
 *   node bench/workqueue-ab.ts --a /path/to/before --b . [--rounds 9] [--objects 100000] [--node-args ""]
 *
 * A measurement script, not a test: timings depend on the machine and its load.
 */
import { spawnSync } from 'node:child_process';
import { loadavg } from 'node:os';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import type { Kind } from '../src/client/kind.ts';
import type { ObjectLike } from '../src/client/resource-client.ts';
import type * as BuilderModule from '../src/runtime/builder.ts';
import type * as BuiltinKindsModule from '../src/runtime/builtin-kinds.ts';
import type * as ControllerModule from '../src/runtime/controller.ts';
import type * as InformerStoreModule from '../src/runtime/informer-store.ts';
import type * as MetricsModule from '../src/runtime/metrics.ts';
import type * as WorkQueueModule from '../src/runtime/workqueue.ts';

const { values } = parseArgs({
  options: {
    a: { type: 'string' },
    b: { type: 'string' },
    rounds: { type: 'string', default: '9' },
    objects: { type: 'string', default: '100000' },
    'node-args': { type: 'string', default: '--max-semi-space-size=1 --no-opt --no-maglev' },
    child: { type: 'string' },
  },
});
const objects = Number(values.objects);

interface Sample {
  readonly adds: number;
  readonly gets: number;
  readonly list: number;
}

function cpuMs(since: NodeJS.CpuUsage): number {
  const u = process.cpuUsage(since);
  return (u.user + u.system) / 1000;
}

/** The child: one measurement of `checkout`; prints a Sample as JSON. */
async function child(checkout: string): Promise<void> {
  const src = (path: string): string => pathToFileURL(resolve(checkout, 'src', path)).href;
  const { Controller } = (await import(src('runtime/controller.ts'))) as typeof ControllerModule;
  const { ControllerBuilder } = (await import(src('runtime/builder.ts'))) as typeof BuilderModule;
  const { InformerStore } = (await import(src('runtime/informer-store.ts'))) as typeof InformerStoreModule;
  const { RuntimeMetrics } = (await import(src('runtime/metrics.ts'))) as typeof MetricsModule;
  const { LOW_PRIORITY } = (await import(src('runtime/workqueue.ts'))) as typeof WorkQueueModule;
  const { builtinKinds } = (await import(src('runtime/builtin-kinds.ts'))) as typeof BuiltinKindsModule;
  type Obj = ObjectLike;
  type Ctl = ControllerModule.Controller<Obj>;

  const kind = builtinKinds.ConfigMap as Kind<Obj>;
  const reconciler = { reconcile: async (): Promise<void> => {} };
  const newController = (metrics: InstanceType<typeof RuntimeMetrics>): Ctl =>
    new Controller<Obj>({
      name: 'configmap',
      kind,
      reconciler,
      client: {} as never,
      recorder: {} as never,
      logger: {} as never,
      metrics,
      options: {},
    });

  // adds, then gets + dones, on the controller's queue.
  const keys = Array.from({ length: objects }, (_, i) => `default/cm-${i}`);
  const controller = newController(new RuntimeMetrics());
  let t = process.cpuUsage();
  for (const key of keys) controller.enqueue(key, LOW_PRIORITY);
  const adds = cpuMs(t);
  t = process.cpuUsage();
  for (let i = 0; i < objects; i++) {
    const key = (await controller.queue.get()) as string;
    controller.queue.done(key);
  }
  const gets = cpuMs(t);
  if (controller.queue.length !== 0) throw new Error('queue not drained');

  // An initial list through the store and the builder's handler.
  const store = new InformerStore<Obj>();
  const listed: Obj[] = keys.map((_, i) => ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: `cm-${i}`, namespace: 'default', resourceVersion: String(1000 + i), uid: `uid-${i}` },
    data: { key: 'value' },
  }));
  let built: Ctl | undefined;
  const host = {
    cache: {
      addHandlers: (_k: unknown, h: InformerStoreModule.InformerHandlers<Obj>) => store.addHandlers(h),
      addMetadataHandlers: () => {},
    } as never,
    register: () => {},
    newController: () => (built = newController(new RuntimeMetrics())),
  };
  new ControllerBuilder(host as never, 'configmap').for(kind).complete(reconciler);
  t = process.cpuUsage();
  store.apply({ type: 'list', objects: listed } as never);
  const list = cpuMs(t);
  if (built?.queue.length !== objects) throw new Error(`list queued ${built?.queue.length}`);
  const sample: Sample = { adds, gets, list };
  process.stdout.write(JSON.stringify(sample));
}

function median(xs: readonly number[]): number {
  const s = [...xs].sort((x, y) => x - y);
  const m = s.length >> 1;
  return s.length % 2 ? (s[m] as number) : ((s[m - 1] as number) + (s[m] as number)) / 2;
}

function run(checkout: string, nodeArgs: readonly string[]): Sample {
  const r = spawnSync(
    process.execPath,
    [...nodeArgs, new URL(import.meta.url).pathname, '--child', checkout, '--objects', String(objects)],
    { encoding: 'utf8' },
  );
  if (r.status !== 0) throw new Error(`child failed (${checkout}): ${r.stderr}`);
  return JSON.parse(r.stdout) as Sample;
}

async function main(): Promise<void> {
  if (values.child) return child(values.child);
  if (!values.a || !values.b) throw new Error('usage: --a <checkout> --b <checkout>');
  const sides = { a: resolve(values.a), b: resolve(values.b) };
  const nodeArgs = (values['node-args'] ?? '').split(/\s+/).filter(Boolean);
  const rounds = Number(values.rounds);
  const got: Record<'a' | 'b', Sample[]> = { a: [], b: [] };
  const loads: number[] = [];
  run(sides.a, nodeArgs); // warm the file cache for both
  run(sides.b, nodeArgs);
  for (let i = 0; i < rounds; i++) {
    const order: ('a' | 'b')[] = i % 2 ? ['b', 'a'] : ['a', 'b'];
    for (const side of order) got[side].push(run(sides[side], nodeArgs));
    loads.push(loadavg()[0] as number);
  }
  console.log(
    `${objects} keys, ${rounds} rounds, node ${nodeArgs.join(' ') || '(defaults)'}; ` +
      `load average (1 min) ${Math.min(...loads).toFixed(1)}–${Math.max(...loads).toFixed(1)}`,
  );
  console.log(`A ${sides.a}\nB ${sides.b}\nCPU ms, median (min–max):`);
  for (const phase of ['adds', 'gets', 'list'] as const) {
    const a = got.a.map((s) => s[phase]);
    const b = got.b.map((s) => s[phase]);
    const fmt = (xs: number[]): string =>
      `${median(xs).toFixed(1)} (${Math.min(...xs).toFixed(0)}–${Math.max(...xs).toFixed(0)})`;
    console.log(`  ${phase.padEnd(5)} A ${fmt(a)}  B ${fmt(b)}  B/A ${(median(b) / median(a)).toFixed(2)}`);
  }
}

await main();
