import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createLogger } from '../../../src/runtime/logger.ts';
import { Manager } from '../../../src/runtime/manager.ts';
import { RunnableGroups, ShutdownDeadline, type ManagedRunnable } from '../../../src/runtime/runnables.ts';
import { FakeApiServer } from '../../../src/testing/fake-api-server.ts';
import { quietLogger as quiet } from '../../helpers/runtime-fakes.ts';

function member(name: string, log: string[], startGate?: Promise<void>): ManagedRunnable {
  return {
    name,
    start: async () => {
      log.push(`start ${name}`);
      await startGate;
      log.push(`started ${name}`);
    },
    stop: () => void log.push(`stop ${name}`),
  };
}

describe('RunnableGroups', () => {
  it('starts groups in the order asked, stops them in reverse, members of a group in the order added', async () => {
    const log: string[] = [];
    const groups = new RunnableGroups(quiet);
    groups.add('leaderElection', member('controllers', log));
    groups.add('httpServers', member('metrics', log));
    groups.add('httpServers', member('health', log));
    groups.add('caches', member('cache', log));
    groups.add('webhooks', member('webhooks', log));
    await groups.start('httpServers');
    await groups.start('webhooks');
    await groups.start('caches');
    await groups.start('leaderElection');
    await groups.start('caches'); // once only
    assert.deepEqual(
      log.filter((l) => l.startsWith('start ')),
      ['start metrics', 'start health', 'start webhooks', 'start cache', 'start controllers'],
    );
    log.length = 0;
    assert.deepEqual(await groups.stop(new ShutdownDeadline(1_000)), []);
    assert.deepEqual(log.slice(0, 2), ['stop controllers', 'stop cache']);
    assert.deepEqual(log.slice(2, 3), ['stop webhooks']);
    assert.deepEqual(log.slice(3).sort(), ['stop health', 'stop metrics']);
  });

  it('a member still starting is stopped once its start is done; nothing starts after stop()', async () => {
    const log: string[] = [];
    const groups = new RunnableGroups(quiet);
    let bind: () => void = () => {};
    const binding = new Promise<void>((resolve) => (bind = resolve));
    groups.add('httpServers', member('metrics', log, binding));
    groups.add('httpServers', member('health', log));
    groups.add('leaderElection', member('controllers', log));
    const starting = groups.start('httpServers');
    const stopping = groups.stop(new ShutdownDeadline(1_000));
    await groups.start('leaderElection');
    assert.deepEqual(log, ['start metrics'], 'not stopped while starting');
    bind();
    await Promise.all([starting, stopping]);
    assert.deepEqual(log, ['start metrics', 'started metrics', 'stop metrics']);
  });

  it('names a member whose stop outlives the deadline, and goes on with the next groups', async () => {
    const log: string[] = [];
    const groups = new RunnableGroups(quiet);
    groups.add('httpServers', member('metrics', log));
    groups.add('caches', { name: 'hung cache', start: () => {}, stop: () => new Promise<void>(() => {}) });
    await groups.start('httpServers');
    await groups.start('caches');
    // leftForApi() gives at least a second: the stop is over a second later, not never.
    const late = await groups.stop(new ShutdownDeadline(0));
    assert.deepEqual(late, ['hung cache']);
    assert.deepEqual(log.at(-1), 'stop metrics', 'the servers were still stopped');
  });
});

describe('Manager shutdown deadline', () => {
  it('reports by name the runnables still running at the deadline, and still stops', async () => {
    const lines: string[] = [];
    const mgr = await Manager.create({
      transport: new FakeApiServer().transport(),
      metricsBindAddress: '0',
      healthProbeBindAddress: '0',
      handleSignals: false,
      gracefulShutdownTimeoutMs: 20,
      logger: createLogger({ level: 'warn', write: (l) => void lines.push(l) }),
    });
    let returned = false;
    mgr.add(
      async (signal) => {
        await new Promise((r) => signal.addEventListener('abort', r));
      },
      { name: 'polite', needLeaderElection: false },
    );
    mgr.add(() => new Promise<void>(() => {}), { name: 'stubborn' });
    mgr.add(async (signal) => {
      await new Promise((r) => signal.addEventListener('abort', r));
      returned = true;
    });
    const running = mgr.start();
    await mgr.ready;
    await mgr.stop();
    await running;
    assert.equal(returned, true);
    const warning = lines
      .map((l) => JSON.parse(l) as { msg?: string; runnables?: string[] })
      .find((l) => l.msg === 'runnables still running at the shutdown deadline');
    assert.deepEqual(warning?.runnables, ['leader runnables: stubborn']);
  });
});
