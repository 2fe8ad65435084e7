import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, it } from 'node:test';
import { ResourceClient, type ObjectLike } from '../../../../src/client/resource-client.ts';
import { dependent } from '../../../../src/runtime/dependents/dependent.ts';
import { Manager } from '../../../../src/runtime/manager.ts';
import { FakeApiServer } from '../../../../src/testing/fake-api-server.ts';
import { setupMemcachedDependents } from '../../../fixtures/runtime/memcached-dependents.ts';
import { MemcachedKind, type Memcached } from '../../../fixtures/runtime/memcached-operator.ts';
import { quietLogger } from '../../../helpers/runtime-fakes.ts';
import {
  AppKind,
  ConfigMap,
  Deployment,
  Service,
  configMap,
  deployment,
  service,
  type App,
} from './harness.ts';

/** The builder's dependents() on a Manager: the watches it sets up drive the workflow to Ready. */
async function until(what: string, condition: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(2);
  }
}

const managers: Manager[] = [];
afterEach(async () => {
  for (const m of managers.splice(0)) await m.stop();
});

describe('ControllerBuilder.dependents() on a Manager', () => {
  it('a cycle fails at declaration; events of the children drive the parent to Ready', async () => {
    const server = new FakeApiServer()
      .register(AppKind, { statusSubresource: true })
      .register(ConfigMap)
      .register(Deployment, { statusSubresource: true })
      .register(Service);
    const mgr = await Manager.create({
      transport: server.transport('manager'),
      metricsBindAddress: '0',
      healthProbeBindAddress: '0',
      handleSignals: false,
      gracefulShutdownTimeoutMs: 100,
      logger: quietLogger,
    });
    managers.push(mgr);
    const cfg = dependent<ObjectLike, App>(ConfigMap, {
      name: 'config',
      desired: (a) => configMap(`${a.metadata?.name}-config`, { a: '1' }),
    });
    const web = dependent<ObjectLike, App>(Deployment, {
      name: 'web',
      desired: (a) => deployment(`${a.metadata?.name}-web`, 'nginx'),
    });
    const svc = dependent<ObjectLike, App>(Service, {
      name: 'svc',
      desired: (a) => service(`${a.metadata?.name}-web`),
    });
    assert.throws(
      () =>
        mgr
          .controller('cyclic')
          .for(AppKind)
          .dependents([cfg.dependsOn(svc), web.dependsOn(cfg), svc.dependsOn(web)]),
      /a dependency cycle: config -> svc -> web -> config/,
    );
    mgr
      .controller('app')
      .for(AppKind)
      .dependents([cfg, web.dependsOn(cfg), svc.dependsOn(web)])
      .complete();
    const running = mgr.start();
    await mgr.ready;
    const apps = new ResourceClient(server.transport('test'), AppKind);
    await apps.create({ metadata: { name: 'a', namespace: 'ns' } });
    const ready = (type: string) =>
      (server.get(AppKind, 'ns', 'a') as App | undefined)?.status?.conditions?.find((c) => c.type === type)
        ?.status === 'True';
    await until('the Deployment created', () => server.get(Deployment, 'ns', 'a-web') !== undefined);
    await until(
      'WebReady=False written',
      () =>
        (server.get(AppKind, 'ns', 'a') as App).status?.conditions?.some((c) => c.type === 'WebReady') ===
        true,
    );
    assert.equal(server.get(Service, 'ns', 'a-web'), undefined);
    // No polling: nothing is written while nothing changes...
    const deployments = new ResourceClient(server.transport('kube-controller-manager'), Deployment);
    const d = server.get(Deployment, 'ns', 'a-web')!;
    // ...and the Deployment's status change alone brings the parent back.
    await deployments.patchStatus({ namespace: 'ns', name: 'a-web' }, 'merge', {
      status: {
        observedGeneration: d.metadata.generation,
        replicas: 1,
        updatedReplicas: 1,
        availableReplicas: 1,
      },
    });
    await until('Ready', () => ready('Ready'));
    assert.ok(server.get(Service, 'ns', 'a-web'));
    const text = await mgr.metrics.registry.render();
    assert.match(
      text,
      /op_gen_dependent_reconcile_total\{controller="app",dependent="svc",result="created"\} 1/,
    );
    assert.match(
      text,
      /op_gen_dependent_reconcile_time_seconds_count\{controller="app",dependent="web"\} \d+/,
    );
    await mgr.stop();
    await running;
  });

  it('the declared Memcached of docs/dependents.md: Deployment, then Service once available, Ready', async () => {
    const server = new FakeApiServer()
      .register(MemcachedKind, { statusSubresource: true })
      .register(Deployment, { statusSubresource: true })
      .register(Service);
    const mgr = await Manager.create({
      transport: server.transport('manager'),
      metricsBindAddress: '0',
      healthProbeBindAddress: '0',
      handleSignals: false,
      gracefulShutdownTimeoutMs: 100,
      logger: quietLogger,
    });
    managers.push(mgr);
    setupMemcachedDependents(mgr);
    const running = mgr.start();
    await mgr.ready;
    await new ResourceClient(server.transport('test'), MemcachedKind).create({
      apiVersion: 'cache.example.com/v1alpha1',
      kind: 'Memcached',
      metadata: { name: 'm', namespace: 'ns' },
      spec: { image: 'memcached:1.6', size: 2 },
    });
    await until('the Deployment', () => server.get(Deployment, 'ns', 'm') !== undefined);
    const d = server.get(Deployment, 'ns', 'm') as {
      metadata: { generation?: number };
      spec?: { replicas?: number };
    };
    assert.equal(d.spec?.replicas, 2);
    await new ResourceClient(server.transport('kcm'), Deployment).patchStatus(
      { namespace: 'ns', name: 'm' },
      'merge',
      {
        status: {
          observedGeneration: d.metadata.generation,
          replicas: 2,
          updatedReplicas: 2,
          availableReplicas: 2,
        },
      },
    );
    const ready = () =>
      (server.get(MemcachedKind, 'ns', 'm') as Memcached | undefined)?.status?.conditions?.find(
        (c) => c.type === 'Ready',
      )?.status === 'True';
    await until('Ready', ready);
    assert.ok(server.get(Service, 'ns', 'm'));
    await mgr.stop();
    await running;
  });
});
