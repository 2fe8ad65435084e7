/**
 * `node bench/dependents-requests.ts [--parents N]`: the requests the Memcached operator sends, written
 * by hand (test/fixtures/runtime/memcached-operator.ts) and declared on dependents
 * (test/fixtures/runtime/memcached-dependents.ts), on the fake API server: the writes until a pass
 * writes nothing (Deployments made available by hand between passes, at most 10 passes), and the
 * writes of one more pass over every parent with nothing changed (a resync). Counts, not times: the
 * same on every machine. Reads come from the informer cache in both.
 */
import { parseArgs } from 'node:util';
import { builtinKinds } from '../src/runtime/builtin-kinds.ts';
import { deployment, service } from '../test/fixtures/runtime/memcached-dependents.ts';
import { MemcachedReconciler } from '../test/fixtures/runtime/memcached-operator.ts';
import { measureMemcached, workflowReconciler, type MemcachedRun } from './dependents-harness.ts';

const { values } = parseArgs({ options: { parents: { type: 'string', default: '200' } } });
const N = Number(values.parents);
const { Service } = builtinKinds;

const counts = (run: MemcachedRun) => ({
  passesToQuiet: run.passesToQuiet, // 10: still writing after 10 passes
  writesToConverge: run.toConverge,
  writesPerSteadyPass: run.steady,
});
const measure = async (make: Parameters<typeof measureMemcached>[0]['make']) =>
  counts(
    await measureMemcached({ parents: N, childKinds: [Service], counted: (r) => r.method !== 'GET', make }),
  );

const handWritten = await measure(() => new MemcachedReconciler());
const declared = await measure((cache) => workflowReconciler(cache, [deployment, service]));
console.log(`Memcached operator, ${N} parents, fake API server (node ${process.version})`);
console.log(JSON.stringify({ handWritten, declared }, null, 2));
