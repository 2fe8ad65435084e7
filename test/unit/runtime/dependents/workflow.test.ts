import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import { ResourceClient, type ObjectLike } from '../../../../src/client/resource-client.ts';
import type { Transport, TransportRequest } from '../../../../src/client/transport.ts';
import { dependent, dependents } from '../../../../src/runtime/dependents/dependent.ts';
import { DEPENDENT_LABEL, OWNER_UID_LABEL } from '../../../../src/runtime/dependents/workflow.ts';
import { isBeingDeleted, withoutFinalizer } from '../../../../src/runtime/finalizers.ts';
import { metricValue, type Counter } from '../../../../src/runtime/metrics.ts';
import { settle } from '../../../helpers/runtime-fakes.ts';
import {
  ConfigMap,
  Deployment,
  Harness,
  Service,
  configMap,
  deployment,
  service,
  AppKind,
  type App,
} from './harness.ts';

const harnesses: Harness[] = [];
afterEach(async () => {
  for (const h of harnesses.splice(0)) await h.stop();
});
async function harness(...args: ConstructorParameters<typeof Harness>): Promise<Harness> {
  const h = new Harness(...args);
  harnesses.push(h);
  return h.start();
}

const config = dependent<ObjectLike, App>(ConfigMap, {
  name: 'config',
  desired: (app) => configMap(`${app.metadata?.name}-config`, { image: app.spec?.image ?? 'nginx' }),
});
const web = dependent<ObjectLike, App>(Deployment, {
  name: 'web',
  desired: (app) => deployment(`${app.metadata?.name}-web`, app.spec?.image ?? 'nginx'),
});
const svc = dependent<ObjectLike, App>(Service, {
  name: 'svc',
  desired: (app) => service(`${app.metadata?.name}-web`),
});
const chain = [config, web.dependsOn(config), svc.dependsOn(web)];

describe('workflow of dependents on the fake API server', () => {
  it('reconciles in dependency order; a dependent waits for readiness without blocking; the child event requeues the parent', async () => {
    const h = await harness(chain);
    await h.createApp('a', { image: 'nginx:1' });
    const result = await h.reconcile();
    // The pass returned (no sleep, no poll) with the Service waiting for the Deployment.
    assert.equal(result, undefined);
    assert.ok(h.get(ConfigMap, 'a-config'));
    assert.ok(h.get(Deployment, 'a-web'));
    assert.equal(h.get(Service, 'a-web'), undefined, 'the Service waits for the Deployment to be ready');
    assert.equal(h.condition('ConfigReady')?.status, 'True');
    assert.equal(h.condition('WebReady')?.reason, 'NotReady');
    assert.match(h.condition('WebReady')?.message ?? '', /generation 1 not observed yet/);
    assert.equal(h.condition('SvcReady')?.reason, 'Waiting');
    assert.equal(h.condition('Ready')?.status, 'False');
    // The order of the writes: ConfigMap before Deployment.
    const applies = h.writes().filter((r) => r.method === 'PATCH' && !r.path.endsWith('/status'));
    assert.deepEqual(
      applies.map((r) => r.path.split('/').at(-2)),
      ['configmaps', 'deployments'],
    );
    h.enqueued.length = 0;
    await h.makeAvailable('a-web');
    assert.ok(h.enqueued.includes('ns/a'), 'the Deployment status change enqueues its parent');
    await h.reconcile();
    assert.ok(h.get(Service, 'a-web'), 'created once the Deployment is ready');
    assert.equal(h.condition('SvcReady')?.status, 'True');
    assert.equal(h.condition('Ready')?.status, 'True');
    assert.equal(h.condition('Ready')?.observedGeneration, h.app().metadata.generation);
    const svcObj = h.get(Service, 'a-web')!;
    const refs = (svcObj.metadata as { ownerReferences?: { uid?: string; controller?: boolean }[] })
      .ownerReferences;
    assert.deepEqual(
      refs?.map((r) => [r.uid, r.controller]),
      [[h.app().metadata.uid, true]],
    );
    assert.equal((svcObj.metadata as { labels?: Record<string, string> }).labels?.[DEPENDENT_LABEL], 'svc');
    assert.deepEqual(
      h.events.filter((e) => e.reason === 'Created').map((e) => e.message.split(' (')[0]),
      ['ConfigMap ns/a-config created', 'Deployment ns/a-web created', 'Service ns/a-web created'],
    );
  });

  it('a second reconcile with nothing changed sends no write; fields of other managers are left alone', async () => {
    const h = await harness(chain);
    await h.createApp('a', { image: 'nginx:1' });
    await h.reconcile();
    await h.makeAvailable('a-web');
    await h.reconcile();
    const before = h.server.requests.length;
    await h.reconcile();
    assert.deepEqual(h.writes(before), [], 'an unchanged pass writes nothing');
    // Another manager adds a field of its own: still nothing to write, and the field stays.
    const cms = new ResourceClient(h.server.transport('kubectl'), ConfigMap);
    await cms.patch(
      { namespace: 'ns', name: 'a-config' },
      'merge',
      { data: { extra: 'theirs' } },
      {
        fieldManager: 'kubectl',
      },
    );
    await settle();
    const mark = h.server.requests.length;
    await h.reconcile();
    assert.deepEqual(h.writes(mark), []);
    assert.equal((h.get(ConfigMap, 'a-config') as { data?: Record<string, string> }).data?.extra, 'theirs');
    // A change of the parent's spec: one apply per changed child, then quiet again.
    await h.apps.patch({ namespace: 'ns', name: 'a' }, 'merge', { spec: { image: 'nginx:2' } });
    await settle();
    const changed = h.server.requests.length;
    await h.reconcile();
    const applies = h.writes(changed).filter((r) => r.method === 'PATCH' && !r.path.endsWith('/status'));
    assert.deepEqual(applies.map((r) => r.path.split('/').at(-2)).sort(), ['configmaps', 'deployments']);
    await h.makeAvailable('a-web');
    await h.reconcile();
    const quiet = h.server.requests.length;
    await h.reconcile();
    assert.deepEqual(h.writes(quiet), []);
  });

  it('drift is corrected: a child deleted by hand is created again, a field this manager stops setting is removed', async () => {
    let keys = ['a', 'b'];
    const cfg = dependent<ObjectLike, App>(ConfigMap, {
      name: 'config',
      desired: () => configMap('a-config', Object.fromEntries(keys.map((k) => [k, k]))),
    });
    const h = await harness([cfg]);
    await h.createApp();
    await h.reconcile();
    await new ResourceClient(h.server.transport('kubectl'), ConfigMap).delete({
      namespace: 'ns',
      name: 'a-config',
    });
    await settle();
    await h.reconcile();
    assert.deepEqual((h.get(ConfigMap, 'a-config') as { data?: unknown }).data, { a: 'a', b: 'b' });
    keys = ['a'];
    await h.reconcile();
    assert.deepEqual((h.get(ConfigMap, 'a-config') as { data?: unknown }).data, { a: 'a' });
  });

  it('independent dependents are applied concurrently within one reconcile', async () => {
    const held: (() => void)[] = [];
    let inFlight = 0;
    let maxInFlight = 0;
    const gate = (t: Transport): Transport => ({
      ...t,
      request: async <T>(req: TransportRequest): Promise<T> => {
        if (req.method !== 'PATCH' || req.path.endsWith('/status')) return t.request<T>(req);
        inFlight++;
        maxInFlight = Math.max(maxInFlight, inFlight);
        await new Promise<void>((resolve) => held.push(resolve));
        inFlight--;
        return t.request<T>(req);
      },
    });
    const one = dependent<ObjectLike, App>(ConfigMap, {
      name: 'one',
      desired: () => configMap('one', { x: '1' }),
    });
    const two = dependent<ObjectLike, App>(ConfigMap, {
      name: 'two',
      desired: () => configMap('two', { x: '2' }),
    });
    const three = dependent<ObjectLike, App>(ConfigMap, {
      name: 'three',
      desired: () => configMap('three', { x: '3' }),
    }).dependsOn(one, two);
    const h = await harness([one, two, three], { transport: gate });
    await h.createApp();
    const pass = h.reconciler.reconcile(h.context(), { namespace: 'ns', name: 'a' });
    await settle();
    assert.equal(inFlight, 2, 'both independent applies are sent before either is answered');
    held.splice(0).forEach((r) => r());
    await settle();
    assert.equal(inFlight, 1, 'the dependent one starts after both');
    held.splice(0).forEach((r) => r());
    await pass;
    assert.equal(maxInFlight, 2);
  });

  it('on the parent deletion, ordered dependents are deleted in reverse order, each once its dependents are gone', async () => {
    const oc = dependent<ObjectLike, App>(ConfigMap, {
      name: 'config',
      cleanup: 'ordered',
      desired: (app) => configMap(`${app.metadata?.name}-config`, { a: '1' }),
    });
    const od = dependent<ObjectLike, App>(Deployment, {
      name: 'web',
      cleanup: 'ordered',
      ready: () => true,
      desired: (app) => deployment(`${app.metadata?.name}-web`, 'nginx'),
    });
    const os = dependent<ObjectLike, App>(Service, {
      name: 'svc',
      cleanup: 'ordered',
      desired: (app) => service(`${app.metadata?.name}-web`),
    });
    const h = await harness([oc, od.dependsOn(oc), os.dependsOn(od)]);
    await h.createApp();
    await h.reconcile();
    assert.deepEqual(h.app().metadata.finalizers, ['op-gen.dev/dependents']);
    assert.ok(h.get(Service, 'a-web'));
    await h.apps.delete({ namespace: 'ns', name: 'a' });
    await settle();
    const mark = h.server.requests.length;
    const deletes = (): string[] =>
      h
        .writes(mark)
        .filter((r) => r.method === 'DELETE')
        .map((r) => r.path.split('/').at(-2)!);
    await h.reconcile();
    assert.deepEqual(deletes(), ['services'], 'first the Service, the last of the chain');
    await h.reconcile();
    assert.deepEqual(deletes(), ['services', 'deployments']);
    await h.reconcile();
    assert.deepEqual(deletes(), ['services', 'deployments', 'configmaps']);
    assert.ok(h.app(), 'the parent waits for its finalizer');
    await h.reconcile();
    assert.equal(h.app(), undefined, 'the finalizer is removed once every ordered dependent is gone');
    assert.deepEqual(
      h.events.filter((e) => e.reason === 'Deleted').map((e) => e.message.split(' (')[0]),
      ['Service ns/a-web deleted', 'Deployment ns/a-web deleted', 'ConfigMap ns/a-config deleted'],
    );
  });

  it('garbage-collected dependents add no finalizer and are left to the owner references', async () => {
    const h = await harness(chain);
    await h.createApp();
    await h.reconcile();
    assert.equal(h.app().metadata.finalizers, undefined);
  });

  it('bulk dependents: one object per key, pruned when no longer desired; objects of other parents untouched', async () => {
    const zones = dependents<ObjectLike, App>(ConfigMap, {
      name: 'zones',
      desiredSet: (app) =>
        new Map(
          (app.spec?.zones ?? []).map((z) => [z, configMap(`${app.metadata?.name}-${z}`, { zone: z })]),
        ),
    });
    const h = await harness([zones]);
    await h.createApp('a', { zones: ['x', 'y', 'z'] });
    await h.createApp('b', { zones: ['y'] });
    await h.reconcile('a');
    await h.reconcile('b');
    assert.deepEqual(
      h.server.list(ConfigMap).map((c) => c.metadata.name),
      ['a-x', 'a-y', 'a-z', 'b-y'],
    );
    assert.equal(h.condition('ZonesReady')?.message, '3 ConfigMap(s) ready');
    const labels = (h.get(ConfigMap, 'a-y')?.metadata as { labels?: Record<string, string> }).labels;
    assert.equal(labels?.[OWNER_UID_LABEL], h.app('a').metadata.uid);
    await h.apps.patch({ namespace: 'ns', name: 'a' }, 'merge', { spec: { zones: ['x', 'z'] } });
    await settle();
    await h.reconcile('a');
    assert.deepEqual(
      h.server.list(ConfigMap).map((c) => c.metadata.name),
      ['a-x', 'a-z', 'b-y'],
    );
    assert.ok(
      h.events.some((e) => e.reason === 'Deleted' && e.message.startsWith('ConfigMap ns/a-y deleted')),
    );
    const mark = h.server.requests.length;
    await h.reconcile('a');
    assert.deepEqual(h.writes(mark), []);
  });

  it('a conflict with another field manager is reported in status and events, never overwritten', async () => {
    const h = await harness([config]);
    await h.createApp('a', { image: 'nginx:1' });
    await h.reconcile();
    // kubectl edit: an update by another manager takes the field over.
    const cms = new ResourceClient(h.server.transport('kubectl'), ConfigMap);
    await cms.patch(
      { namespace: 'ns', name: 'a-config' },
      'merge',
      { data: { image: 'hacked' } },
      {
        fieldManager: 'kubectl-edit',
      },
    );
    await settle();
    const result = await h.reconcile();
    assert.equal(result, undefined, 'not retried in a loop: the other manager must act');
    assert.equal((h.get(ConfigMap, 'a-config') as { data?: Record<string, string> }).data?.image, 'hacked');
    const c = h.condition('ConfigReady');
    assert.equal(c?.status, 'False');
    assert.equal(c?.reason, 'FieldConflict');
    assert.match(c?.message ?? '', /kubectl-edit/);
    assert.equal(h.condition('Ready')?.reason, 'DependentFailed');
    assert.ok(h.events.some((e) => e.type === 'Warning' && e.reason === 'FieldConflict'));
    assert.equal(
      await metricValue(h.registry.getSingleMetric('op_gen_dependent_reconcile_total') as Counter, {
        controller: 'app',
        dependent: 'config',
        result: 'conflict',
      }),
      1,
    );
  });

  it('an object of the same name controlled by someone else is not taken over', async () => {
    const h = await harness([config]);
    await h.createApp();
    await new ResourceClient(h.server.transport('kubectl'), ConfigMap).create({
      metadata: { name: 'a-config', namespace: 'ns' },
      data: { mine: 'yes' },
    });
    await settle();
    await h.reconcile();
    assert.equal(h.condition('ConfigReady')?.reason, 'NotOwned');
    assert.deepEqual((h.get(ConfigMap, 'a-config') as { data?: unknown }).data, { mine: 'yes' });
  });

  it('reconcileWhen false deletes what depends on the dependent, then it (reverse order); activationWhen false leaves it out unwatched', async () => {
    const maybeSvc = dependent<ObjectLike, App>(Service, {
      name: 'svc',
      reconcileWhen: (app) => app.spec?.withService === true,
      desired: (app) => service(`${app.metadata?.name}-web`),
    });
    const afterSvc = dependent<ObjectLike, App>(ConfigMap, {
      name: 'svc-config',
      desired: () => configMap('svc-config', { a: 'b' }),
    }).dependsOn(maybeSvc);
    const optional = dependent<ObjectLike, App>(Deployment, {
      name: 'optional',
      activationWhen: () => false,
      desired: () => deployment('never', 'x'),
    });
    const h = await harness([maybeSvc, afterSvc, optional]);
    assert.equal(h.cache.isCached(Deployment), false, 'an inactive dependent does not watch its kind');
    await h.createApp('a', { withService: true });
    await h.reconcile();
    assert.ok(h.get(Service, 'a-web'));
    assert.ok(h.get(ConfigMap, 'svc-config'));
    await h.apps.patch({ namespace: 'ns', name: 'a' }, 'merge', { spec: { withService: false } });
    await settle();
    await h.reconcile();
    assert.equal(h.get(ConfigMap, 'svc-config'), undefined, 'its dependent goes first');
    assert.ok(h.get(Service, 'a-web'), 'the Service waits for its dependent to be gone');
    assert.match(h.condition('SvcReady')?.message ?? '', /being deleted/);
    await h.reconcile();
    assert.equal(h.get(Service, 'a-web'), undefined, 'then the Service');
    assert.equal(h.condition('SvcReady')?.reason, 'NotReconciled');
    assert.equal(h.condition('OptionalReady'), undefined);
    assert.equal(h.condition('Ready')?.status, 'True');
    assert.equal(h.cache.isCached(Deployment), false);
    assert.equal(h.get(Deployment, 'never'), undefined);
  });

  it('a transient failure is written to status and rethrown for the backoff', async () => {
    const h = await harness([config]);
    await h.createApp();
    const heal = h.server.fault((r) =>
      r.method === 'PATCH' && r.path.includes('/configmaps/') ? new Error('socket hang up') : undefined,
    );
    await assert.rejects(h.reconcile(), /socket hang up/);
    assert.equal(h.condition('ConfigReady')?.reason, 'Error');
    heal();
    await h.reconcile();
    assert.equal(h.condition('ConfigReady')?.status, 'True');
  });

  it('the reconciler given to complete() runs after the workflow, and on deletion (for a finalizer of its own)', async () => {
    const seen: string[] = [];
    const h = await harness([config], {
      after: {
        reconcile: async (ctx, req) => {
          const app = await ctx.client.get(AppKind, req);
          if (app && isBeingDeleted(app)) {
            seen.push('deleting');
            await ctx.client.update(AppKind, withoutFinalizer(app, 'user/own'));
            return;
          }
          const cm = await ctx.client.get(ConfigMap, { namespace: 'ns', name: `${req.name}-config` });
          seen.push(cm ? 'after the ConfigMap' : 'before');
          return { requeueAfter: 1000 };
        },
      },
    });
    await h.createApp('a', {}, ['user/own']);
    assert.deepEqual(await h.reconcile(), { requeueAfter: 1000 });
    assert.deepEqual(seen, ['after the ConfigMap']);
    await h.apps.delete({ namespace: 'ns', name: 'a' });
    await settle();
    await h.reconcile();
    assert.deepEqual(seen, ['after the ConfigMap', 'deleting']);
    assert.equal(h.app(), undefined, "the reconciler's own finalizer was removed");
  });

  it('a child on its way out is not applied; its deletion brings the parent back and it is created again', async () => {
    const h = await harness([config]);
    await h.createApp();
    await h.reconcile();
    const cms = new ResourceClient(h.server.transport('kubectl'), ConfigMap);
    await cms.patch({ namespace: 'ns', name: 'a-config' }, 'merge', { metadata: { finalizers: ['x/hold'] } });
    await cms.delete({ namespace: 'ns', name: 'a-config' });
    await settle();
    const mark = h.server.requests.length;
    await h.reconcile();
    assert.deepEqual(
      h.writes(mark).filter((r) => r.path.includes('/configmaps')),
      [],
    );
    assert.equal(h.condition('ConfigReady')?.reason, 'BeingDeleted');
    h.enqueued.length = 0;
    await cms.patch({ namespace: 'ns', name: 'a-config' }, 'merge', { metadata: { finalizers: null } });
    await settle();
    assert.ok(h.enqueued.includes('ns/a'));
    await h.reconcile();
    assert.equal(
      (h.get(ConfigMap, 'a-config')?.metadata as { deletionTimestamp?: string }).deletionTimestamp,
      undefined,
    );
    assert.equal(h.condition('ConfigReady')?.status, 'True');
  });

  it('an inactive dependent is neither reconciled nor deleted; what depends on it is deleted', async () => {
    let active = true;
    const x = dependent<ObjectLike, App>(ConfigMap, {
      name: 'x',
      activationWhen: () => active,
      desired: () => configMap('x', { v: '1' }),
    });
    const y = dependent<ObjectLike, App>(ConfigMap, {
      name: 'y',
      desired: () => configMap('y', { v: '1' }),
    }).dependsOn(x);
    const h = await harness([x, y]);
    await h.createApp();
    await h.reconcile();
    assert.ok(h.get(ConfigMap, 'x'));
    assert.ok(h.get(ConfigMap, 'y'));
    active = false;
    await h.reconcile();
    assert.ok(h.get(ConfigMap, 'x'), 'inactive: left as it is');
    assert.equal(h.get(ConfigMap, 'y'), undefined);
    assert.equal(h.condition('XReady'), undefined);
    assert.match(h.condition('YReady')?.message ?? '', /^not reconciled: dependency x is not/);
  });

  it("a pass on a cache that has not seen the last pass's creations and deletions sends them again neither", async () => {
    let hold = false;
    const held: (() => void)[] = [];
    // The ConfigMap watch lags while `hold`: its lines wait until released.
    const lag = (t: Transport): Transport => ({
      ...t,
      stream: (req, onLine, onOpen) =>
        t.stream(
          req,
          (line) => {
            if (hold && req.path.includes('/configmaps')) held.push(() => onLine(line));
            else onLine(line);
          },
          onOpen,
        ),
    });
    const release = async (): Promise<void> => {
      hold = false;
      held.splice(0).forEach((f) => f());
      await settle();
    };
    const zones = dependents<ObjectLike, App>(ConfigMap, {
      name: 'zones',
      desiredSet: (app) =>
        new Map(
          (app.spec?.zones ?? []).map((z) => [z, configMap(`${app.metadata?.name}-${z}`, { zone: z })]),
        ),
    });
    const h = await harness([zones], { transport: lag });
    await h.createApp('a', { zones: ['x', 'y'] });
    const cmWrites = (since: number) => h.writes(since).filter((r) => r.path.includes('/configmaps'));
    hold = true;
    await h.reconcile();
    assert.equal(cmWrites(0).length, 2);
    assert.equal(h.workflow.pendingWrites, 2);
    let mark = h.server.requests.length;
    await h.reconcile();
    assert.deepEqual(cmWrites(mark), [], 'not created twice');
    assert.match(h.condition('ZonesReady')?.message ?? '', /not in the cache yet/);
    await release();
    mark = h.server.requests.length;
    await h.reconcile();
    assert.deepEqual(cmWrites(mark), []);
    assert.equal(h.events.filter((e) => e.reason === 'Created').length, 2);
    hold = true;
    await h.apps.patch({ namespace: 'ns', name: 'a' }, 'merge', { spec: { zones: ['x'] } });
    await settle();
    mark = h.server.requests.length;
    await h.reconcile();
    assert.deepEqual(
      cmWrites(mark).map((r) => `${r.method} ${r.path.split('/').at(-1)}`),
      ['DELETE a-y'],
    );
    mark = h.server.requests.length;
    await h.reconcile();
    assert.deepEqual(cmWrites(mark), [], 'not deleted twice');
    await release();
    await h.reconcile();
    assert.deepEqual(
      h.server.list(ConfigMap).map((c) => c.metadata.name),
      ['a-x'],
    );
    assert.equal(h.events.filter((e) => e.reason === 'Deleted').length, 1);
    assert.equal(h.workflow.pendingWrites, 0, 'nothing remembered once the cache has shown every write');
  });

  it('a pass on a parent the cache has not updated with the last condition write does not write them again', async () => {
    let hold = false;
    const held: (() => void)[] = [];
    const lag = (t: Transport): Transport => ({
      ...t,
      stream: (req, onLine, onOpen) =>
        t.stream(
          req,
          (line) => {
            if (hold && req.path.includes('/apps')) held.push(() => onLine(line));
            else onLine(line);
          },
          onOpen,
        ),
    });
    const h = await harness([config], { transport: lag });
    await h.createApp();
    hold = true;
    await h.reconcile();
    const statusWrites = (since: number) => h.writes(since).filter((r) => r.path.endsWith('/status'));
    assert.equal(statusWrites(0).length, 1);
    const mark = h.server.requests.length;
    await h.reconcile();
    assert.deepEqual(statusWrites(mark), [], 'no second write (it could only conflict)');
    hold = false;
    held.splice(0).forEach((f) => f());
    await settle();
    await h.reconcile();
    assert.deepEqual(statusWrites(mark), []);
    assert.equal(h.condition('Ready')?.status, 'True');
  });

  it('a desired object without a name is reported (InvalidDesired), not retried in a loop', async () => {
    const nameless = dependent<ObjectLike & { data?: Record<string, string> }, App>(ConfigMap, {
      name: 'bad',
      desired: () => ({ data: { a: 'b' } }),
    });
    const elsewhere = dependent<ObjectLike, App>(ConfigMap, {
      name: 'elsewhere',
      desired: () => ({ metadata: { name: 'x', namespace: 'other' } }),
    });
    const h = await harness([nameless, elsewhere]);
    await h.createApp();
    assert.equal(await h.reconcile(), undefined);
    assert.equal(h.condition('BadReady')?.reason, 'InvalidDesired');
    assert.match(h.condition('BadReady')?.message ?? '', /has no metadata.name/);
    assert.match(h.condition('ElsewhereReady')?.message ?? '', /another namespace than its App/);
    assert.ok(h.events.some((e) => e.type === 'Warning' && e.reason === 'InvalidDesired'));
  });
});
