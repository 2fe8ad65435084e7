import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { withRetries } from '../../../src/client/retry.ts';
import { FakeClock } from '../../../src/runtime/clock.ts';
import { builtinKinds } from '../../../src/runtime/builtin-kinds.ts';
import { LeaderElector } from '../../../src/runtime/leader-election.ts';
import { createLogger } from '../../../src/runtime/logger.ts';
import { FakeApiServer, statusError } from '../../../src/testing/fake-api-server.ts';

/**
 * Leader election on the fake API server and the fake clock, as client-go's leaderelection tests:
 * acquire a free lease, renew every retry period, lose it when renewals fail past the renew
 * deadline, take over an expired lease, release on shutdown.
 */
const quiet = createLogger({ level: 'error', write: () => {} });

async function settle(): Promise<void> {
  for (let i = 0; i < 30; i++) await new Promise<void>((r) => setImmediate(r));
}

function setup() {
  const clock = new FakeClock(Date.parse('2026-01-01T00:00:00Z'));
  const server = new FakeApiServer({ clock });
  const elector = (identity: string): LeaderElector =>
    new LeaderElector(
      // As in a manager: the transport retries 429 and 5xx (withRetries), on the same clock.
      withRetries(server.transport(identity), { clock }),
      {
        enabled: true,
        id: 'op',
        namespace: 'default',
        identity,
        leaseDurationMs: 15_000,
        renewDeadlineMs: 10_000,
        retryPeriodMs: 2_000,
      },
      quiet,
      clock,
    );
  const holder = (): unknown =>
    (server.get(builtinKinds.Lease, 'default', 'op')?.spec as { holderIdentity?: string } | undefined)
      ?.holderIdentity;
  return { clock, server, elector, holder };
}

/** Steps the clock in retry-period steps, letting the elector's requests finish between steps. */
async function advance(clock: FakeClock, ms: number, step = 500): Promise<void> {
  for (let t = 0; t < ms; t += step) {
    clock.step(step);
    await settle();
  }
}

describe('LeaderElector on the fake API server', () => {
  it('acquires a free lease and renews it every retry period', async () => {
    const { clock, server, elector, holder } = setup();
    const a = elector('a');
    assert.equal(await a.acquire(), true);
    assert.equal(holder(), 'a');
    const holding = a.holdLeadership();
    const renew0 = server.get(builtinKinds.Lease, 'default', 'op')?.spec as { renewTime: string };
    await advance(clock, 5_000);
    const renew1 = server.get(builtinKinds.Lease, 'default', 'op')?.spec as { renewTime: string };
    assert.ok(renew1.renewTime > renew0.renewTime, 'renewed');
    assert.equal(a.isLeader, true);
    await a.release();
    assert.equal(await holding, 'stopped');
    assert.equal(holder(), '', 'released');
  });

  it('loses leadership within the renew deadline when renewals fail, before a standby can take over', async () => {
    const { clock, server, elector, holder } = setup();
    // No jitter: renewals exactly every 2 s, the case where a retried attempt ends just inside the
    // deadline and the next one would outlive the lease.
    const random = Math.random;
    Math.random = () => 0;
    after(() => (Math.random = random));
    const a = elector('a');
    const b = elector('b');
    assert.equal(await a.acquire(), true);
    let lostAt: number | undefined;
    const holding = a.holdLeadership().then((outcome) => {
      lostAt = clock.now();
      return outcome;
    });
    let bWonAt: number | undefined;
    const bAcquiring = b.acquire().then((won) => {
      if (won) bWonAt = clock.now();
    });
    await advance(clock, 4_000);
    assert.equal(bWonAt, undefined, 'the lease is held and renewed');

    // a's requests fail from now on (503: retried by the transport, within the renew deadline).
    const lastRenew = Date.parse(
      (server.get(builtinKinds.Lease, 'default', 'op')?.spec as { renewTime: string }).renewTime,
    );
    server.fault((req) => (req.client === 'a' ? statusError(503, 'ServiceUnavailable') : undefined));
    await advance(clock, 30_000);
    assert.equal(await holding, 'lost');
    assert.equal(a.isLeader, false);
    assert.ok(
      lostAt !== undefined && lostAt - lastRenew < 15_000,
      `lost ${lostAt! - lastRenew} ms after the last renewal: not before the lease (15 s) expired`,
    );
    await bAcquiring;
    assert.ok(bWonAt !== undefined && bWonAt > lostAt!, 'b took over after a gave up');
    assert.ok(bWonAt - lastRenew >= 15_000, 'b waited for the lease to expire');
    assert.equal(holder(), 'b');
    const spec = server.get(builtinKinds.Lease, 'default', 'op')?.spec as { leaseTransitions: number };
    assert.equal(spec.leaseTransitions, 1);
    await b.release();
    await a.release();
  });

  it('a standby does not take a lease that is renewed, and takes it at once when it is released', async () => {
    const { clock, elector, holder } = setup();
    const a = elector('a');
    const b = elector('b');
    assert.equal(await a.acquire(), true);
    const holding = a.holdLeadership();
    let bWon = false;
    const bAcquiring = b.acquire().then((won) => (bWon = won));
    await advance(clock, 60_000, 1_000);
    assert.equal(bWon, false, 'a renewed all along');
    await a.release();
    await holding;
    await settle();
    clock.step(1);
    await settle();
    await bAcquiring;
    assert.equal(bWon, true, 'woken by the release');
    assert.equal(holder(), 'b');
    await b.release();
  });
});
