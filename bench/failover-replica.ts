/**
 * One replica of bench/failover.ts: a manager with leader election (short lease, so a SIGKILLed
 * leader's lease expires in seconds) and one controller of the namespace's ConfigMaps, with or
 * without `warmup` (WARMUP=1). Prints JSON lines `{ event, at }` (Date.now()) on stdout: `started`,
 * `standby` (asking for the Lease), `warm` (cache synced, warmup only), `leader` (the Lease acquired,
 * from the elector's log line, so it is not delayed), `first-reconcile`.
 */
import { builtinKinds, createLogger, Manager } from '../src/runtime/index.ts';

const namespace = process.env.NAMESPACE ?? 'bench';
const emit = (event: string): void =>
  void process.stdout.write(`${JSON.stringify({ event, at: Date.now() })}\n`);
const warmup = process.env.WARMUP === '1';
const mgr = await Manager.create({
  metricsBindAddress: '0',
  healthProbeBindAddress: '0',
  namespaces: [namespace],
  logger: createLogger({
    level: 'info',
    write: (line) => {
      if (line.includes('"acquired the leader lease"')) emit('leader');
      else if (line.includes('"waiting to acquire the leader lease"')) emit('standby');
      else if (line.includes('"level":"error"')) process.stderr.write(line);
    },
  }),
  leaderElection: {
    enabled: true,
    id: 'failover-bench',
    namespace,
    leaseDurationMs: 4_000,
    renewDeadlineMs: 3_000,
    retryPeriodMs: 250,
  },
  warmup,
});
let first = true;
mgr
  .controller('configmaps')
  .for(builtinKinds.ConfigMap)
  .complete({
    async reconcile() {
      if (first) {
        first = false;
        emit('first-reconcile');
      }
    },
  });
void mgr.start();
emit('started');
if (warmup) void mgr.cache.waitForSync().then(() => emit('warm'));
