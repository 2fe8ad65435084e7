/**
 * SIGTERM while the API server hangs: kube-apiserver is SIGSTOPped while reconciles are in flight (it
 * accepts connections and answers nothing), then the manager is SIGTERMed. It must exit within its
 * shutdown deadline (`--graceful-shutdown-timeout`), non-zero when reconciles were aborted, and after
 * SIGCONT no object is half-applied: each owned Deployment is absent or exactly as its Memcached says.
 * A new operator then converges everything.
 */
import assert from 'node:assert/strict';
import { retry } from './cluster.ts';
import { started, until, type FaultEnv, type Figures } from './scenarios.ts';

const GRACE_S = 3;

export async function sigtermApiServerHung(env: FaultEnv, ns: string): Promise<Figures> {
  await env.cluster.createNamespace(ns);
  const op = await env.start('hung-1', ns, true, { extraArgs: [`--graceful-shutdown-timeout=${GRACE_S}`] });
  await started(op, true);
  // Mid-convergence, while objects are still being created: a reconcile is in flight.
  const creating = env.cluster.createMemcacheds(ns, env.objects);
  await until('the first Ready', async () => ((await env.cluster.readyCount(ns)) >= 3 ? true : undefined));
  const pid = env.cp.apiServerPid;
  assert.ok(pid, 'kube-apiserver runs');
  process.kill(pid, 'SIGSTOP');
  let exit: { code: number | null; signal: NodeJS.Signals | null; at: number };
  let termAt: number;
  try {
    // Let the in-flight requests reach the stopped server.
    await new Promise((r) => setTimeout(r, 300));
    termAt = Date.now();
    op.signal('SIGTERM');
    const timer = setTimeout(() => op.signal('SIGKILL'), (GRACE_S + 30) * 1000);
    exit = await op.exited;
    clearTimeout(timer);
  } finally {
    process.kill(pid, 'SIGCONT');
  }
  await creating;
  const exitMs = exit.at - termAt;
  const stopped = op.log().find((l) => l.msg === 'controllers stopped');
  assert.ok(stopped, `logged controllers stopped:\n${op.logTail()}`);
  const aborted = Number(stopped.aborted ?? 0);
  assert.ok(aborted > 0, `reconciles were in flight at SIGTERM:\n${op.logTail()}`);
  assert.equal(exit.signal, null, `exited by itself, not killed:\n${op.logTail()}`);
  assert.equal(exit.code, 1, `aborted reconciles give exit code 1:\n${op.logTail()}`);
  // The deadline, plus a second for the aborted workers and up to a second each for the steps after.
  assert.ok(exitMs <= GRACE_S * 1000 + 3_500, `exited ${exitMs} ms after SIGTERM (deadline ${GRACE_S} s)`);

  // No half-applied object: every Deployment present is controlled by its Memcached, as specified.
  const [ms, ds] = await retry(() =>
    Promise.all([
      env.cluster.memcacheds.listAll({ namespace: ns }),
      env.cluster.deployments.listAll({ namespace: ns }),
    ]),
  );
  const byName = new Map(ms.items.map((m) => [m.metadata.name, m]));
  for (const d of ds.items) {
    const m = byName.get(d.metadata?.name ?? '');
    assert.ok(m, `${d.metadata?.name}: a Deployment without its Memcached`);
    const ref = d.metadata?.ownerReferences?.find((r) => r.controller);
    assert.equal(ref?.uid, m.metadata.uid, `${d.metadata?.name}: controlled by its Memcached`);
    assert.equal(d.spec?.replicas, m.spec.size ?? 1, `${d.metadata?.name}: replicas as specified`);
    assert.equal(
      d.spec?.template?.spec?.containers?.[0]?.image,
      m.spec.image,
      `${d.metadata?.name}: image as specified`,
    );
  }
  // Without leader election: the lease the first one could not release would take 15 s to expire.
  const next = await env.start('hung-2', ns);
  await started(next);
  const convergedMs = await env.cluster.waitConverged(ns, { expectCount: env.objects });
  const figures: Figures = {
    graceMs: GRACE_S * 1000,
    exitMs,
    abortedReconciles: aborted,
    deploymentsAtExit: ds.items.length,
    convergedAfterRestartMs: convergedMs,
  };
  await next.stop();
  return figures;
}
