/**
 * `node bench/lookup.ts` (after `npm run build`): the cost of reconcilers' cache lookups (issue 39's micro-case). A store of
 * 25,000 cached ConfigMaps in 500 namespaces (10 parents × 5 children each, labelled with their
 * parent), then 5,000 lookups `lister.list({ namespace, labelSelector: 'parent=pK' })` of 5 objects
 * each, on the built runtime (dist/). Each run is a fresh node process; the CPU time of the lookups
 * alone (process.cpuUsage) is reported as the median of --runs, with V8's defaults and with the
 * scaffold's production flags (`--no-opt --no-maglev`), and the heap in use (after a full GC) once
 * the store is filled and after the lookups (which build the label index).
 *
 * `--baseline DIR`: also run a second build of the runtime (e.g. a copy of dist/ from main) in the
 * same rounds, alternating with this one, and print the ratio of the medians.
 * `--controller-runtime`: also run the same store and lookups in controller-runtime's informer cache
 * (bench/compare/go-lookup, built on first use), alternating, and print the ratio of the medians.
 * `--mode field`: look up by a field index (`informer.addIndex` / controller-runtime's IndexField)
 * instead of a label selector (not with --baseline: main has no field indexes).
 * Options: --runs N (default 5), --namespaces N (500), --parents N (10 per namespace),
 * --children N (5), --lookups N (5000).
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import type { ObjectLike } from '../src/client/resource-client.ts';
import { goProgram } from './compare/tools.ts';
import type * as Runtime from '../src/runtime/index.ts';

const ROOT = new URL('..', import.meta.url).pathname;
const { values } = parseArgs({
  options: {
    child: { type: 'string' },
    baseline: { type: 'string' },
    'controller-runtime': { type: 'boolean', default: false },
    mode: { type: 'string', default: 'label' },
    runs: { type: 'string', default: '5' },
    namespaces: { type: 'string', default: '500' },
    parents: { type: 'string', default: '10' },
    children: { type: 'string', default: '5' },
    lookups: { type: 'string', default: '5000' },
  },
});
const field = values.mode === 'field';
if (values.mode !== 'label' && !field) throw new Error(`--mode ${values.mode}: label or field`);
const shape = {
  namespaces: Number(values.namespaces),
  parents: Number(values.parents),
  children: Number(values.children),
  lookups: Number(values.lookups),
};

interface Sample {
  readonly cpuMs: number;
  readonly wallMs: number;
  readonly cached: number;
  readonly answers: number;
  /** Heap in use after the store filled, and after the lookups (each after a full GC). */
  readonly heapSyncedMb: number;
  readonly heapAfterLookupsMb: number;
}

/** Heap in use after a full collection (the child runs with --expose-gc). */
function heapMb(): number {
  (globalThis as { gc?: () => void }).gc?.();
  return process.memoryUsage().heapUsed / 1024 / 1024;
}

/** One run in this process: fill an informer's store, then time the lookups. */
async function child(dist: string): Promise<Sample> {
  const rt = (await import(pathToFileURL(join(dist, 'runtime/index.js')).href)) as typeof Runtime;
  const items: ObjectLike[] = [];
  for (let n = 0; n < shape.namespaces; n++) {
    for (let p = 0; p < shape.parents; p++) {
      for (let c = 0; c < shape.children; c++) {
        items.push({
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: {
            name: `p${p}-c${c}`,
            namespace: `ns-${n}`,
            uid: `uid-${n}-${p}-${c}`,
            resourceVersion: '1',
            labels: { app: 'bench', parent: `p${p}` },
          },
        } as ObjectLike);
      }
    }
  }
  const lw = {
    kind: rt.builtinKinds.ConfigMap,
    listAll: () => Promise.resolve({ metadata: { resourceVersion: '1' }, items }),
    watch: (options: { signal?: AbortSignal }) =>
      new Promise<void>((done) => options.signal?.addEventListener('abort', () => done(), { once: true })),
  } as unknown as ConstructorParameters<typeof rt.Informer>[0];
  const informer = new rt.Informer(lw, { logger: rt.createLogger({ level: 'error', write: () => {} }) });
  if (field)
    informer.addIndex('parent', (o) => [(o.metadata as { labels: Record<string, string> }).labels.parent!]);
  informer.start();
  await informer.waitForSync();
  const heapSyncedMb = heapMb();
  const lister = new rt.Lister(informer);
  let answers = 0;
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  for (let i = 0; i < shape.lookups; i++) {
    const namespace = `ns-${i % shape.namespaces}`;
    const parent = `p${(i * 7) % shape.parents}`;
    answers += (
      field
        ? lister.list({ namespace, field: { parent } })
        : lister.list({ namespace, labelSelector: `parent=${parent}` })
    ).length;
  }
  const wallMs = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  await informer.stop();
  if (answers !== shape.lookups * shape.children) {
    throw new Error(`wrong answers: ${answers}, expected ${shape.lookups * shape.children}`);
  }
  const heapAfterLookupsMb = heapMb();
  return {
    cpuMs: (cpu.user + cpu.system) / 1000,
    wallMs,
    cached: informer.size,
    answers,
    heapSyncedMb,
    heapAfterLookupsMb,
  };
}

function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

const shapeArgs = (): string[] => [
  ...(['namespaces', 'parents', 'children', 'lookups'] as const).flatMap((k) => [`--${k}`, String(shape[k])]),
];

function parseSample(r: ReturnType<typeof spawnSync>, what: string): Sample {
  if (r.status !== 0) throw new Error(`bench child failed (${what}):\n${String(r.stderr)}`);
  return JSON.parse(String(r.stdout).trim().split('\n').at(-1)!) as Sample;
}

function runChild(dist: string, flags: readonly string[]): Sample {
  const r = spawnSync(
    process.execPath,
    [
      ...flags,
      '--expose-gc',
      new URL(import.meta.url).pathname,
      '--child',
      dist,
      '--mode',
      String(values.mode),
      ...shapeArgs(),
    ],
    { encoding: 'utf8' },
  );
  return parseSample(r, `${dist} ${flags.join(' ')}`);
}

interface Build {
  readonly name: string;
  run(flags: readonly string[]): Sample;
}

if (values.child !== undefined) {
  console.log(JSON.stringify(await child(values.child)));
} else {
  const dist = join(ROOT, 'dist');
  if (!existsSync(join(dist, 'runtime/index.js'))) {
    console.error('bench:lookup: dist/ is not built; run `npm run build` first');
    process.exit(1);
  }
  const builds: Build[] = [{ name: 'this build', run: (flags) => runChild(dist, flags) }];
  if (values.baseline) {
    if (field) throw new Error('--baseline with --mode field: main has no field indexes');
    const base = resolve(values.baseline);
    builds.push({ name: 'baseline', run: (flags) => runChild(base, flags) });
  }
  if (values['controller-runtime']) {
    const bin = goProgram('go-lookup', 'the controller-runtime lookup bench');
    if (!bin) throw new Error('--controller-runtime needs Go (go build)');
    builds.push({
      name: 'ctrl-rt',
      run: () =>
        parseSample(
          spawnSync(bin, ['--mode', String(values.mode), ...shapeArgs()], { encoding: 'utf8' }),
          'controller-runtime',
        ),
    });
  }
  const runs = Number(values.runs);
  const cached = shape.namespaces * shape.parents * shape.children;
  console.log(
    `bench:lookup: ${cached} cached objects in ${shape.namespaces} namespaces; ${shape.lookups} lookups by namespace + ${field ? 'field index' : 'label'} (${shape.children} answers each); ${runs} runs each, alternating (node ${process.version})`,
  );
  for (const flags of [[], ['--no-opt', '--no-maglev']]) {
    const samples = new Map<string, Sample[]>(builds.map((b) => [b.name, []]));
    for (let r = 0; r < runs; r++) {
      for (const b of builds) samples.get(b.name)!.push(b.run(flags));
    }
    const label = flags.length ? flags.join(' ') : 'V8 defaults';
    for (const b of builds) {
      const xs = samples.get(b.name)!;
      const cpu = xs.map((x) => x.cpuMs);
      console.log(
        `  ${label.padEnd(22)} ${b.name.padEnd(10)} median ${median(cpu).toFixed(1)} ms CPU (${(
          (median(cpu) * 1000) /
          shape.lookups
        ).toFixed(1)} µs a lookup; runs: ${cpu.map((x) => x.toFixed(0)).join(', ')}); heap ${median(
          xs.map((x) => x.heapSyncedMb),
        ).toFixed(
          1,
        )} MB synced, ${median(xs.map((x) => x.heapAfterLookupsMb)).toFixed(1)} MB after the lookups`,
      );
    }
    const med = (name: string, f: (x: Sample) => number) => median(samples.get(name)!.map(f));
    for (const other of builds.slice(1)) {
      const ratio = med('this build', (x) => x.cpuMs) / med(other.name, (x) => x.cpuMs);
      const perObject = (f: (x: Sample) => number) =>
        (((med('this build', f) - med(other.name, f)) * 1024 * 1024) / cached).toFixed(0);
      // Heaps of two builds of the runtime compare; a Go heap and a V8 heap do not (bench:memory does that).
      const heap =
        other.name === 'baseline'
          ? `; heap ${perObject((x) => x.heapSyncedMb)} B an object synced, ${perObject((x) => x.heapAfterLookupsMb)} B after the lookups`
          : '';
      console.log(`  ${label.padEnd(22)} this build / ${other.name}: ${ratio.toFixed(3)}× CPU${heap}`);
    }
  }
}
