import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, it } from 'node:test';
import { ResourceClient } from '../../../src/client/resource-client.ts';
import { builtinKinds } from '../../../src/runtime/builtin-kinds.ts';
import { createLogger } from '../../../src/runtime/logger.ts';
import { Manager } from '../../../src/runtime/manager.ts';
import { FakeApiServer, type FakeRequest } from '../../../src/testing/fake-api-server.ts';

/**
 * Warm replicas (`Manager.create({ warmup: true })`, controller-runtime's EnableWarmup): a standby
 * lists and watches before it is leader, so after the leader leaves it reconciles without listing;
 * a cold standby lists nothing until it leads.
 */
const managers: Manager[] = [];
afterEach(async () => {
  for (const m of managers.splice(0)) await m.stop();
});

async function until(what: string, condition: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(2);
  }
}

/** A list of ConfigMaps: a list request, or a watch-list (a watch that sends the initial events). */
const isConfigMapList = (r: FakeRequest): boolean =>
  r.method === 'GET' &&
  /\/configmaps$/.test(r.path) &&
  (!r.watch || r.query.sendInitialEvents === true || r.query.sendInitialEvents === 'true');

async function setup() {
  const server = new FakeApiServer();
  const configMaps = new ResourceClient(server.transport('test'), builtinKinds.ConfigMap);
  for (let i = 0; i < 20; i++)
    await configMaps.create({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { namespace: 'default', name: `c${i}` },
    });
  const reconciled: { replica: string; name: string; requestsBefore: number }[] = [];
  const replica = async (identity: string, warmup: boolean): Promise<Manager> => {
    const mgr = await Manager.create({
      transport: server.transport(identity),
      metricsBindAddress: '0',
      healthProbeBindAddress: '0',
      handleSignals: false,
      gracefulShutdownTimeoutMs: 100,
      logger: createLogger({ level: 'error', write: () => {} }),
      leaderElection: {
        enabled: true,
        id: 'op',
        namespace: 'default',
        identity,
        leaseDurationMs: 15_000,
        renewDeadlineMs: 10_000,
        retryPeriodMs: 100,
      },
      warmup,
    });
    managers.push(mgr);
    mgr
      .controller('configmaps')
      .for(builtinKinds.ConfigMap)
      .complete({
        async reconcile(_ctx, req) {
          reconciled.push({ replica: identity, name: req.name, requestsBefore: server.requests.length });
        },
      });
    void mgr.start().catch(() => {});
    return mgr;
  };
  return { server, reconciled, replica };
}

describe('warm replicas', () => {
  it('a warm standby syncs before leadership and, once leader, reconciles without a list', async () => {
    const { server, reconciled, replica } = await setup();
    const a = await replica('a', false);
    await a.ready;
    await until('a reconciles all', () => reconciled.filter((r) => r.replica === 'a').length === 20);
    const b = await replica('b', true);
    await until('b lists before leadership', () =>
      server.requests.some((r) => r.client === 'b' && isConfigMapList(r)),
    );
    await b.cache.waitForSync();
    assert.equal(b.cache.hasSynced, true);
    assert.equal(b.isLeader, false);
    assert.equal(reconciled.filter((r) => r.replica === 'b').length, 0, 'a standby does not reconcile');
    const handover = server.requests.length;
    await a.stop();
    await until('b reconciles', () => reconciled.filter((r) => r.replica === 'b').length === 20);
    const afterHandover = server.requests.slice(handover).filter((r) => r.client === 'b');
    assert.deepEqual(afterHandover.filter(isConfigMapList), [], 'the new leader lists nothing');
    // Between the handover and its first reconcile it sent nothing but Lease requests (and watches).
    const first = reconciled.find((r) => r.replica === 'b')!;
    assert.deepEqual(
      server.requests
        .slice(handover, first.requestsBefore)
        .filter((r) => r.client === 'b' && !r.watch && !r.path.includes('/leases')),
      [],
    );
  });

  it('a cold standby lists only after it leads', async () => {
    const { server, reconciled, replica } = await setup();
    const a = await replica('a', false);
    await a.ready;
    const c = await replica('c', false);
    // c is standing by once it has asked for the Lease (and been refused it).
    await until('c asks for the lease', () =>
      server.requests.some((r) => r.client === 'c' && r.path.includes('/leases')),
    );
    assert.equal(c.isLeader, false);
    assert.equal(server.requests.filter((r) => r.client === 'c' && isConfigMapList(r)).length, 0);
    await a.stop();
    await until('c reconciles', () => reconciled.filter((r) => r.replica === 'c').length === 20);
    assert.equal(server.requests.filter((r) => r.client === 'c' && isConfigMapList(r)).length, 1);
  });
});
