// The op-gen side of the runtime comparison, as a user's compiled operator runs: plain JavaScript on
// the built op-gen/runtime (dist/). Exactly what go-operator/main.go does for BenchApp: get from cache,
// create a Deployment with an owner reference if missing, set a Ready condition through the status
// subresource. Prints {"reconciles": N, ...} on stdout when it stops.
// Usage: KUBECONFIG=... node bench/compare/op-gen-operator.mjs --workers 4 [--read-only]
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { getHeapSpaceStatistics } from 'node:v8';
import {
  builtinKinds,
  defineKind,
  isAlreadyExists,
  isConditionTrue,
  Manager,
  metricValue,
  setCondition,
  setControllerReference,
} from '../../dist/runtime/index.js';

const BenchAppKind = defineKind({
  group: 'bench.op-gen.dev',
  version: 'v1',
  kind: 'BenchApp',
  plural: 'benchapps',
  namespaced: true,
});

const { values } = parseArgs({
  options: {
    workers: { type: 'string', default: '1' },
    'read-only': { type: 'boolean', default: false },
    'metrics-bind-address': { type: 'string', default: '0' },
  },
});
// --read-only: only read the BenchApp from the cache (bench:memory measures the cache, not the writes).
const readOnly = values['read-only'];

const reconciler = {
  async reconcile(ctx, req) {
    const app = await ctx.client.get(BenchAppKind, req);
    if (!app || readOnly) return;
    const dep = await ctx.client.get(builtinKinds.Deployment, req);
    if (!dep) {
      const labels = {
        'app.kubernetes.io/name': 'benchapp',
        'app.kubernetes.io/instance': app.metadata.name,
      };
      const desired = {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: app.metadata.name, namespace: app.metadata.namespace, labels },
        spec: {
          replicas: app.spec.replicas,
          selector: { matchLabels: labels },
          template: { metadata: { labels }, spec: { containers: [{ name: 'app', image: app.spec.image }] } },
        },
      };
      try {
        await ctx.client.create(builtinKinds.Deployment, setControllerReference(app, desired));
      } catch (err) {
        if (!isAlreadyExists(err)) throw err;
      }
    }
    if (!isConditionTrue(app.status?.conditions, 'Ready')) {
      const conditions = setCondition(app.status?.conditions, {
        type: 'Ready',
        status: 'True',
        reason: 'DeploymentCreated',
        message: 'the Deployment exists',
        observedGeneration: app.metadata.generation ?? 0,
      });
      await ctx.client.updateStatus(BenchAppKind, { ...app, status: { ...app.status, conditions } });
    }
  },
};

const mgr = await Manager.create({
  metricsBindAddress: values['metrics-bind-address'],
  metricsSecure: false,
  healthProbeBindAddress: '0',
  logLevel: 'warn',
});
mgr
  .controller('benchapp')
  .for(BenchAppKind)
  .owns(builtinKinds.Deployment)
  .withOptions({ maxConcurrentReconciles: Number(values.workers) })
  .complete(reconciler);
await mgr.start();
const byResult = Object.fromEntries(
  await Promise.all(
    ['success', 'error', 'requeue', 'requeue_after'].map(async (result) => [
      result,
      await metricValue(mgr.metrics.reconcileTotal, { controller: 'benchapp', result }),
    ]),
  ),
);
const reconciles = Object.values(byResult).reduce((a, b) => a + b, 0);
// The V8 heap spaces' committed sizes (MB) as the process ends: where RSS beyond live objects goes.
const spaces = Object.fromEntries(
  getHeapSpaceStatistics()
    .filter((s) => s.space_size > 0)
    .map((s) => [s.space_name, Math.round(s.space_size / 2 ** 16) / 16]),
);
// Resident memory by kind as the process ends (Linux): anonymous (heap, malloc) vs file-backed (the
// node binary's pages) — where RSS beyond the V8 heap goes.
const status = (() => {
  try {
    return readFileSync('/proc/self/status', 'utf8');
  } catch {
    return '';
  }
})();
const kb = (field) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
const residentMb = Object.fromEntries(
  ['VmHWM', 'VmRSS', 'RssAnon', 'RssFile'].map((f) => [f, Math.round(kb(f) / 102.4) / 10]),
);
process.stdout.write(`${JSON.stringify({ reconciles, ...byResult, spaces, residentMb })}\n`);
