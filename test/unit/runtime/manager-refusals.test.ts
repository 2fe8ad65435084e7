import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import { defineKind } from '../../../src/client/kind.ts';
import type { ObjectLike } from '../../../src/client/resource-client.ts';
import { createLogger } from '../../../src/runtime/logger.ts';
import { Manager, type ManagerOptions } from '../../../src/runtime/manager.ts';
import { FakeApiServer } from '../../../src/testing/fake-api-server.ts';

/**
 * What a Manager refuses, each with its own message: sharding together with leader election, a second
 * controller of one name, a runnable added while it stops, webhooks registered after it started.
 */
const Widget = defineKind<ObjectLike>({
  group: 'test.op-gen.dev',
  version: 'v1',
  kind: 'Widget',
  plural: 'widgets',
  namespaced: true,
});

const managers: Manager[] = [];
afterEach(async () => {
  for (const m of managers.splice(0)) await m.stop();
});

async function manager(options: Partial<ManagerOptions> = {}): Promise<Manager> {
  const server = new FakeApiServer().register(Widget);
  const mgr = await Manager.create({
    transport: server.transport('manager'),
    metricsBindAddress: '0',
    healthProbeBindAddress: '0',
    handleSignals: false,
    gracefulShutdownTimeoutMs: 100,
    logger: createLogger({ level: 'error', write: () => undefined }),
    ...options,
  });
  managers.push(mgr);
  return mgr;
}

const reconciler = { reconcile: async (): Promise<void> => undefined };

describe('Manager refusals', () => {
  it('sharding and leader election together: create rejects, naming both', async () => {
    await assert.rejects(
      manager({ sharding: { ring: 'r' }, leaderElection: { enabled: true, id: 'x.example.com' } }),
      { message: /^Manager: sharding and leaderElection exclude each other/ },
    );
    // Either alone is accepted (the refusal is about the pair).
    await manager({ sharding: { ring: 'r' }, leaderElection: { enabled: false, id: 'x.example.com' } });
  });

  it('a second controller of the same name', async () => {
    const mgr = await manager();
    mgr.controller('widget').for(Widget).complete(reconciler);
    assert.throws(() => mgr.controller('widget'), { message: 'a controller named "widget" exists already' });
    mgr.controller('widget-2').for(Widget).complete(reconciler);
  });

  it('a runnable added while the manager stops', async () => {
    const mgr = await manager();
    const running = mgr.start();
    await mgr.ready;
    mgr.add(async () => undefined, { needLeaderElection: false });
    const stopped = mgr.stop();
    assert.throws(() => mgr.add(async () => undefined), { message: 'Manager.add: the manager is stopping' });
    await stopped;
    await running;
  });

  it('webhooks registered after start, or while stopping', async () => {
    const mgr = await manager();
    assert.ok(mgr.webhookFor(Widget), 'before start: accepted');
    const fresh = await manager();
    const running = fresh.start();
    await fresh.ready;
    assert.throws(() => fresh.webhookFor(Widget), {
      message: 'webhooks must be registered before the manager starts',
    });
    await fresh.stop();
    await running;
    assert.throws(() => fresh.webhookFor(Widget), {
      message: 'webhooks must be registered before the manager starts',
    });
  });
});
