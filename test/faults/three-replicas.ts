/**
 * Three replicas with leader election: the leader is SIGTERMed (one of the two standbys takes over at
 * once), then the new leader is SIGKILLed (the last one takes over when the lease expires). Leadership
 * is sampled all along (leadership.ts): never two leaders at once by /metrics, by the logs, or by the
 * Lease's holders; the objects converge after each handoff.
 */
import assert from 'node:assert/strict';
import { ResourceClient } from '../../src/client/resource-client.ts';
import { Transport } from '../../src/client/transport.ts';
import { builtinKinds } from '../../src/runtime/builtin-kinds.ts';
import { logIntervals, metricIntervals, overlaps, sampleLeadership, type LeaseLike } from './leadership.ts';
import type { OperatorProcess } from './operator.ts';
import { started, until, type FaultEnv, type Figures } from './scenarios.ts';

/** The scaffold's Lease name (its main.ts: `<project>.<domain>`). */
const LEASE_NAME = 'memcached-operator.example.com';

const identityOf = (op: OperatorProcess): string | undefined =>
  op.log().find((l) => l.msg === 'waiting to acquire the leader lease')?.identity as string | undefined;

export async function threeReplicaHandoff(env: FaultEnv, ns: string): Promise<Figures> {
  await env.cluster.createNamespace(ns);
  const transport = await Transport.fromKubeConfig(env.cp.kubeConfig, { timeoutMs: 5_000 });
  const leases = new ResourceClient(transport, builtinKinds.Lease as never) as ResourceClient<
    LeaseLike & { metadata?: object }
  >;
  const replicas: OperatorProcess[] = [];
  const killedAt = new Map<string, number>();
  const sampler = sampleLeadership(() => replicas, leases, { namespace: ns, name: LEASE_NAME });
  try {
    const a = await env.start('three-a', ns, true);
    replicas.push(a);
    await started(a, true);
    for (const name of ['three-b', 'three-c']) replicas.push(await env.start(name, ns, true));
    const standingBy = (op: OperatorProcess) =>
      op.loggedAt('waiting to acquire the leader lease') ? true : undefined;
    await until('b and c standing by', () =>
      replicas.slice(1).every((r) => standingBy(r)) ? true : undefined,
    );
    await env.cluster.createMemcacheds(ns, env.objects);
    await env.cluster.waitConverged(ns, { expectCount: env.objects });
    const names = Array.from({ length: env.objects }, (_, i) => `m-${i}`);
    const bumped = names.filter((_, i) => i % 4 === 0);
    const bump = (size: (old: number) => number) =>
      env.cluster.eachMemcached(ns, bumped, (m) =>
        env.cluster.memcacheds.patch({ namespace: ns, name: m.metadata.name }, 'merge', {
          spec: { size: size(m.spec.size ?? 1) },
        }),
      );
    const leaderAmong = (candidates: readonly OperatorProcess[]) =>
      until(
        'a standby to lead',
        () => candidates.find((r) => r.loggedAt('acquired the leader lease') !== undefined),
        60_000,
      );

    // SIGTERM: a releases after its controllers stopped; one standby takes over at once.
    const termAt = Date.now();
    a.signal('SIGTERM');
    const aExit = await a.exited;
    assert.equal(aExit.code, 0, a.logTail());
    const second = await leaderAmong(replicas.slice(1));
    const secondAt = second.loggedAt('acquired the leader lease')!;
    await bump((s) => (s % 3) + 2);
    const afterTerm = await env.cluster.waitConverged(ns, { expectCount: env.objects });
    const third = replicas.slice(1).find((r) => r !== second)!;
    assert.equal(third.loggedAt('acquired the leader lease'), undefined, 'only one standby took over');

    // SIGKILL: the second leader dies holding the lease; the third waits for it to expire.
    const killAt = Date.now();
    second.signal('SIGKILL');
    killedAt.set(second.name, killAt);
    await second.exited;
    await leaderAmong([third]);
    const thirdAt = third.loggedAt('acquired the leader lease')!;
    assert.ok(thirdAt >= killAt, 'the third took over only after the second died');
    await bump((s) => (s % 3) + 1);
    const afterKill = await env.cluster.waitConverged(ns, { expectCount: env.objects });
    assert.ok(third.running, third.logTail());
    // Let the sampler see the third lead for a while.
    await new Promise((r) => setTimeout(r, 500));

    const record = await sampler.stop();
    const byMetric = metricIntervals(record);
    assert.deepEqual(
      byMetric.map((i) => i.replica).sort(),
      replicas.map((r) => r.name).sort(),
      `each replica was seen leading through /metrics in turn: ${JSON.stringify(byMetric)}`,
    );
    assert.deepEqual(overlaps(byMetric), [], 'no two leaders at once by /metrics');
    assert.equal(record.roundsWithTwoLeaders, 0, 'no sampling round found two replicas leading');
    assert.deepEqual(
      overlaps(logIntervals(replicas, (r) => killedAt.get(r.name))),
      [],
      'no two leaders at once by the logs',
    );
    // The Lease named a, then (released) the second, then the third; never went back.
    const order = [a, second, third].map(identityOf);
    assert.ok(
      order.every((id) => id !== undefined),
      'every replica logged its identity',
    );
    assert.deepEqual(
      record.holders.filter((h) => h !== ''),
      order,
      `Lease holders in order: ${JSON.stringify(record.holders)}`,
    );
    const figures: Figures = {
      sigtermExitMs: aExit.at - termAt,
      sigtermTakeoverMs: secondAt - termAt,
      convergedAfterSigtermMs: afterTerm,
      sigkillTakeoverMs: thirdAt - killAt,
      convergedAfterSigkillMs: afterKill,
      leadershipRounds: record.rounds,
      roundsWithTwoLeaders: record.roundsWithTwoLeaders,
    };
    await third.stop();
    return figures;
  } finally {
    await sampler.stop();
    transport.close();
  }
}
