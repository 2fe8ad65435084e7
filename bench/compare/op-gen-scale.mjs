// The op-gen side of bench/compare/scale-compare.ts, as a user's compiled operator runs: plain
// JavaScript on the built op-gen/runtime (dist/). Exactly what go-scale/main.go does, mode by mode.
// Prints JSON lines {"event": ..., "at": Date.now(), "cpu": seconds of CPU so far, ...} on stdout.
// Usage: KUBECONFIG=... node bench/compare/op-gen-scale.mjs --mode lookup|sync|backlog
//   --namespace NS [--run ID] [--parents N] [--workers N]
//   lookup:  BenchApps (parents) and the ConfigMaps they own (children); each reconcile reads its
//            parent from the cache, lists its children through the owner index
//            (ctx.client.list(ConfigMap, { namespace, field: ownedBy(parent) })) and writes a Ready
//            condition naming --run and the child count; "done" once --parents parents are written.
//   sync:    a controller of the namespace's ConfigMaps; "synced" once its cache is synced.
//   backlog: a controller of the namespace's ConfigMaps (priority queue, the default); each reconcile
//            reads the object from the cache and GETs it from the API server; "edited" when it
//            reconciles an object carrying the label edited=--run.
import { parseArgs } from 'node:util';
import {
  builtinKinds,
  defineKind,
  findCondition,
  generationChanged,
  Manager,
  ownedBy,
  setCondition,
} from '../../dist/runtime/index.js';

const { values } = parseArgs({
  options: {
    mode: { type: 'string', default: 'lookup' },
    namespace: { type: 'string', default: 'default' },
    run: { type: 'string', default: '' },
    parents: { type: 'string', default: '0' },
    workers: { type: 'string', default: '1' },
    // go-scale's flag, taken so both sides run with the same arguments: op-gen's cache drops
    // managedFields by default (ManagerOptions.stripManagedFields).
    'strip-managed-fields': { type: 'boolean', default: false },
  },
});
const { mode, namespace, run } = values;
const parents = Number(values.parents);

const BenchAppKind = defineKind({
  group: 'bench.op-gen.dev',
  version: 'v1',
  kind: 'BenchApp',
  plural: 'benchapps',
  namespaced: true,
});
const ConfigMap = builtinKinds.ConfigMap;

function emit(event, fields = {}) {
  const { user, system } = process.cpuUsage();
  process.stdout.write(
    `${JSON.stringify({ event, at: Date.now(), cpu: (user + system) / 1e6, ...fields })}\n`,
  );
}

const mgr = await Manager.create({
  metricsBindAddress: '0',
  healthProbeBindAddress: '0',
  namespaces: [namespace],
  logLevel: 'warn',
  // OP_GEN_BENCH_WATCH_LIST=true: the informers list by watch-list instead of list requests.
  ...(process.env.OP_GEN_BENCH_WATCH_LIST === 'true' ? { watchList: true } : {}),
});
const options = { maxConcurrentReconciles: Number(values.workers) };

if (mode === 'lookup') {
  const written = new Set();
  let lookupNs = 0n;
  let lookups = 0;
  let children = 0;
  mgr
    .controller('scale-lookup')
    .for(BenchAppKind, { predicates: [generationChanged] })
    .owns(ConfigMap)
    .withOptions(options)
    .complete({
      async reconcile(ctx, req) {
        const app = await ctx.client.get(BenchAppKind, req);
        if (!app) return;
        const t = process.hrtime.bigint();
        const owned = await ctx.client.list(ConfigMap, {
          namespace: app.metadata.namespace,
          field: ownedBy(app),
        });
        lookupNs += process.hrtime.bigint() - t;
        lookups++;
        const message = `${run}: ${owned.length} children`;
        if (findCondition(app.status?.conditions, 'Ready')?.message !== message) {
          const conditions = setCondition(app.status?.conditions, {
            type: 'Ready',
            status: 'True',
            reason: 'ChildrenCounted',
            message,
            observedGeneration: app.metadata.generation ?? 0,
          });
          await ctx.client.updateStatus(BenchAppKind, { ...app, status: { ...app.status, conditions } });
        }
        const key = `${req.namespace}/${req.name}`;
        if (!written.has(key)) {
          written.add(key);
          children += owned.length;
          if (written.size === parents) emit('done', { lookups, lookupNs: Number(lookupNs), children });
        }
      },
    });
} else if (mode === 'sync' || mode === 'backlog') {
  let reported = false;
  mgr
    .controller('scale-configmaps')
    .for(ConfigMap)
    .withOptions(options)
    .complete({
      async reconcile(ctx, req) {
        const cm = await ctx.client.get(ConfigMap, req);
        if (!cm) return;
        if (mode === 'backlog') await ctx.client.resource(ConfigMap).get(req);
        if (run && !reported && cm.metadata?.labels?.edited === run) {
          reported = true;
          emit('edited', { name: cm.metadata.name });
        }
      },
    });
} else {
  throw new Error(`unknown --mode ${mode}`);
}

emit('started');
void mgr.ready.then(() => emit('synced'));
await mgr.start();
