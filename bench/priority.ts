/**
 * `node bench/priority.ts`: issue 39's "restart under backlog" on the fake API server (in process).
 * 20,000 ConfigMaps exist; a manager starts (a restart: every object comes with the informer's
 * initial list) with one controller whose reconcile reads the object from the cache and GETs it from
 * the API server (one uncached round trip, the controller's work). 200 ms after the cache synced
 * (the whole list is queued, the backlog is being worked; the issue's "1 s after restart" depended
 * on how long the list took on a loaded machine: an edit made before the list is read is part of the
 * initial list) one object is edited (a label); the time from the edit to the reconcile that sees it
 * is measured, with the
 * priority queue (the default) and without (`usePriorityQueue: false`: first in, first out).
 * Each run is a fresh node process; the modes alternate; medians of --runs.
 *
 * `--controller-runtime`: also run controller-runtime v0.22.5 (bench/compare/go-lookup/priority,
 * built on first use) with UsePriorityQueue on and off, same objects, same reconcile, its own
 * in-process HTTP server, in the same rounds.
 *
 * Options: --runs N (5), --objects N (20000), --edit last|middle|first (which object, in list
 * order; default last), --edit-after-ms N (1000), --workers N (maxConcurrentReconciles, 1).
 * This is a measurement script, not a test: timings depend on the machine and its load.
 */
import { spawnSync } from 'node:child_process';
import { parseArgs } from 'node:util';
import { ResourceClient } from '../src/client/resource-client.ts';
import { builtinKinds } from '../src/runtime/builtin-kinds.ts';
import { createLogger } from '../src/runtime/logger.ts';
import { Manager } from '../src/runtime/manager.ts';
import { FakeApiServer } from '../src/testing/fake-api-server.ts';
import { goProgram } from './compare/tools.ts';

const { values } = parseArgs({
  options: {
    child: { type: 'string' },
    runs: { type: 'string', default: '5' },
    objects: { type: 'string', default: '20000' },
    edit: { type: 'string', default: 'last' },
    'edit-after-ms': { type: 'string', default: '200' },
    workers: { type: 'string', default: '1' },
    'controller-runtime': { type: 'boolean', default: false },
  },
});
const objects = Number(values.objects);
const editAfterMs = Number(values['edit-after-ms']);
const workers = Number(values.workers);

interface Sample {
  /** Edit (request sent) to the start of the reconcile that read the edited object. */
  readonly editToReconcileMs: number;
  /** Manager start to every object reconciled at least once. */
  readonly backlogMs: number;
  /** Reconciles before the edited one was reconciled (after the edit). */
  readonly reconcilesBefore: number;
}

function nameOf(i: number): string {
  return `cm-${String(i).padStart(6, '0')}`;
}

async function child(usePriorityQueue: boolean): Promise<Sample> {
  const ConfigMap = builtinKinds.ConfigMap;
  const server = new FakeApiServer().register(ConfigMap);
  const cms = new ResourceClient(server.transport('seed'), ConfigMap);
  for (let i = 0; i < objects; i++)
    await cms.create({ metadata: { name: nameOf(i), namespace: `ns-${i % 10}` }, data: { i: String(i) } });
  // The list answers in namespace/name order: the last listed object is the last of ns-9.
  const listed = server.list(ConfigMap).map((o) => o.metadata as { name: string; namespace: string });
  const at =
    values.edit === 'first'
      ? 0
      : values.edit === 'middle'
        ? Math.floor(listed.length / 2)
        : listed.length - 1;
  const target = listed[at]!;
  const mgr = await Manager.create({
    transport: server.transport('manager'),
    metricsBindAddress: '0',
    healthProbeBindAddress: '0',
    handleSignals: false,
    gracefulShutdownTimeoutMs: 100,
    logger: createLogger({ level: 'error', write: () => {} }),
  });
  const api = new ResourceClient(server.transport('work'), ConfigMap);
  const seen = new Set<string>();
  let editedAt = 0;
  let reconciles = 0;
  let editReconciles = 0;
  let sawEdit: ((ms: number) => void) | undefined;
  const sawEditP = new Promise<number>((r) => (sawEdit = r));
  let drained: (() => void) | undefined;
  const drainedP = new Promise<void>((r) => (drained = r));
  mgr
    .controller('cms')
    .for(ConfigMap)
    .withOptions({ usePriorityQueue, maxConcurrentReconciles: workers })
    .complete({
      async reconcile(ctx, req) {
        const started = performance.now();
        reconciles++;
        const cached = await ctx.client.get(ConfigMap, req);
        if (editedAt > 0 && cached?.metadata?.labels?.edited === 'yes' && sawEdit) {
          editReconciles = reconciles;
          sawEdit(started - editedAt);
          sawEdit = undefined;
        }
        await api.get({ namespace: req.namespace, name: req.name });
        seen.add(`${req.namespace}/${req.name}`);
        if (seen.size === objects) drained?.();
      },
    });
  const start = performance.now();
  const running = mgr.start();
  await mgr.ready; // synced: the whole initial list is queued
  await new Promise((r) => setTimeout(r, editAfterMs));
  const before = reconciles;
  const obj = await cms.get(target);
  editedAt = performance.now();
  await cms.replace({ ...obj, metadata: { ...obj.metadata, labels: { edited: 'yes' } } });
  const editToReconcileMs = await sawEditP;
  await drainedP;
  const backlogMs = performance.now() - start;
  await mgr.stop();
  await running;
  return { editToReconcileMs, backlogMs, reconcilesBefore: editReconciles - before - 1 };
}

function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

if (values.child) {
  const sample = await child(values.child === 'priority');
  process.stdout.write(JSON.stringify(sample) + '\n');
} else {
  const runs = Number(values.runs);
  const goBin = values['controller-runtime']
    ? goProgram('go-lookup/priority', 'the controller-runtime priority bench')
    : undefined;
  if (values['controller-runtime'] && !goBin) throw new Error('--controller-runtime needs go on PATH');
  const modes = goBin
    ? (['priority', 'fifo', 'cr-priority', 'cr-fifo'] as const)
    : (['priority', 'fifo'] as const);
  type Mode = (typeof modes)[number];
  const samples = new Map<Mode, Sample[]>(modes.map((m) => [m, []]));
  const shape = [
    '--objects',
    String(objects),
    '--edit',
    String(values.edit),
    '--edit-after-ms',
    String(editAfterMs),
    '--workers',
    String(workers),
  ];
  for (let r = 0; r < runs; r++) {
    for (const mode of r % 2 ? [...modes].reverse() : modes) {
      const out = mode.startsWith('cr-')
        ? spawnSync(goBin!, [...shape, `-priority=${mode === 'cr-priority'}`], {
            encoding: 'utf8',
            timeout: 600_000,
          })
        : spawnSync(process.execPath, [new URL(import.meta.url).pathname, '--child', mode, ...shape], {
            encoding: 'utf8',
            timeout: 600_000,
          });
      if (out.status !== 0) throw new Error(`${mode} run failed: ${out.stderr}`);
      const s = JSON.parse(out.stdout) as Sample;
      samples.get(mode)!.push(s);
      process.stdout.write(
        `run ${r + 1} ${mode.padEnd(11)} edit→reconcile ${s.editToReconcileMs.toFixed(1)} ms (${s.reconcilesBefore} reconciles ahead of it), backlog ${s.backlogMs.toFixed(0)} ms\n`,
      );
    }
  }
  const m = (mode: Mode, f: (s: Sample) => number) => median(samples.get(mode)!.map(f));
  const edit = (s: Sample) => s.editToReconcileMs;
  const backlog = (s: Sample) => s.backlogMs;
  process.stdout.write(
    `\n${objects} objects, edit of the ${values.edit} listed object ${editAfterMs} ms after sync, ${workers} worker(s), medians of ${runs}:\n`,
  );
  for (const mode of modes)
    process.stdout.write(
      `  ${mode.padEnd(11)} edit→reconcile ${m(mode, edit).toFixed(1)} ms, backlog ${m(mode, backlog).toFixed(0)} ms\n`,
    );
  const ratio = (a: Mode, b: Mode, f: (s: Sample) => number) => (m(a, f) / m(b, f)).toFixed(3);
  process.stdout.write(
    `  op-gen priority/fifo: edit→reconcile ${ratio('priority', 'fifo', edit)}, backlog ${ratio('priority', 'fifo', backlog)}\n`,
  );
  if (goBin)
    process.stdout.write(
      `  controller-runtime priority/fifo: edit→reconcile ${ratio('cr-priority', 'cr-fifo', edit)}, backlog ${ratio('cr-priority', 'cr-fifo', backlog)}\n` +
        `  op-gen/controller-runtime, both with priority: edit→reconcile ${ratio('priority', 'cr-priority', edit)}, backlog ${ratio('priority', 'cr-priority', backlog)}\n`,
    );
}
