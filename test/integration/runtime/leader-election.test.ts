import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Manager, Transport } from '../../../src/runtime/index.ts';
import { controlPlaneSkip, startControlPlane, type ControlPlane } from '../../../src/testing/index.ts';
import { eventually, memoryLogger } from './helpers.ts';

interface Lease {
  metadata: { name: string; namespace: string; resourceVersion?: string };
  spec: { holderIdentity?: string; leaseDurationSeconds?: number; renewTime?: string; acquireTime?: string };
}

const microTime = (d: Date): string => d.toISOString().replace('Z', '000Z');

/**
 * A leader that loses its Lease to another holder stops and its start() rejects, so the process exits
 * and is restarted rather than reconciling without leadership (controller-runtime's OnStoppedLeading).
 */
describe('leader election: losing the lease', { timeout: 120_000, skip: controlPlaneSkip() }, () => {
  let cp: ControlPlane;
  before(async () => {
    cp = await startControlPlane();
  });
  after(async () => {
    await cp?.stop();
  });

  it('another holder takes the lease: the manager stops and start() rejects', async () => {
    const { logger, lines } = memoryLogger();
    const mgr = await Manager.create({
      kubeConfig: cp.kubeConfig,
      metricsBindAddress: '0',
      healthProbeBindAddress: '0',
      handleSignals: false,
      logger,
      leaderElection: {
        enabled: true,
        id: 'lost-lock',
        namespace: 'default',
        identity: 'victim',
        leaseDurationMs: 3000,
        renewDeadlineMs: 1000,
        retryPeriodMs: 200,
      },
    });
    let outcome: 'resolved' | Error | undefined;
    const running = mgr.start().then(
      () => (outcome = 'resolved'),
      (err: Error) => (outcome = err),
    );
    await mgr.ready;
    assert.equal(mgr.isLeader, true);

    // Someone else writes the Lease as theirs, for an hour: every renewal of the victim now fails.
    const t = await Transport.fromKubeConfig(cp.kubeConfig);
    const path = '/apis/coordination.k8s.io/v1/namespaces/default/leases/lost-lock';
    await eventually('the lease taken over', async () => {
      const lease = await t.request<Lease>({ method: 'GET', path });
      const now = microTime(new Date());
      await t.request({
        method: 'PUT',
        path,
        body: {
          ...lease,
          spec: {
            ...lease.spec,
            holderIdentity: 'thief',
            leaseDurationSeconds: 3600,
            renewTime: now,
            acquireTime: now,
          },
        },
      });
      return true;
    });

    await eventually('start() to settle', async () => outcome !== undefined, 30_000);
    await running;
    assert.ok(outcome instanceof Error, `start() ${String(outcome)} instead of rejecting`);
    assert.match(outcome.message, /leader election lost/);
    assert.equal(mgr.isLeader, false);
    assert.ok(lines.some((l) => String(l.msg).startsWith('lost the leader lease')));
    const lease = await t.request<Lease>({ method: 'GET', path });
    assert.equal(
      lease.spec.holderIdentity,
      'thief',
      'the stopping manager does not release a lease it no longer holds',
    );
    t.close();
  });
});
