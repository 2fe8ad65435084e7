import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import { ResourceClient, type ObjectLike } from '../../../../src/client/resource-client.ts';
import {
  dependent,
  externalDependent,
  readOnlyDependent,
} from '../../../../src/runtime/dependents/dependent.ts';
import { settle } from '../../../helpers/runtime-fakes.ts';
import { ConfigMap, Harness, Secret, configMap, type App } from './harness.ts';

const harnesses: Harness[] = [];
afterEach(async () => {
  for (const h of harnesses.splice(0)) await h.stop();
});
async function harness(...args: ConstructorParameters<typeof Harness>): Promise<Harness> {
  const h = new Harness(...args);
  harnesses.push(h);
  return h.start();
}

describe('read-only and external dependents', () => {
  it('a read-only dependent gates the workflow, its events reach the parents reading it, it is never written', async () => {
    const creds = readOnlyDependent<ObjectLike & { data?: Record<string, string> }, App>(Secret, {
      name: 'creds',
      key: (app) => ({ name: app.spec?.secretName ?? 'creds' }),
      ready: (s) => (s.data?.password ? true : 'no password key'),
    });
    const cfg = dependent<ObjectLike, App>(ConfigMap, {
      name: 'config',
      desired: (app, ctx) =>
        configMap(`${app.metadata?.name}-config`, {
          secretVersion: ctx.actual(creds)?.metadata?.resourceVersion ?? '',
        }),
    }).dependsOn(creds);
    const h = await harness([creds, cfg]);
    await h.createApp('a', { secretName: 'db' });
    await h.reconcile();
    assert.equal(h.condition('CredsReady')?.reason, 'NotFound');
    assert.equal(h.condition('CredsReady')?.message, 'Secret ns/db does not exist');
    assert.equal(h.condition('ConfigReady')?.reason, 'Waiting');
    assert.equal(h.get(ConfigMap, 'a-config'), undefined);
    const secrets = new ResourceClient(h.server.transport('user'), Secret);
    h.enqueued.length = 0;
    await secrets.create({ metadata: { name: 'db', namespace: 'ns' }, data: {} });
    await settle();
    assert.deepEqual(h.enqueued, ['ns/a'], 'the Secret it reads enqueues the parent');
    await h.reconcile();
    assert.equal(h.condition('CredsReady')?.message, 'Secret ns/db: no password key');
    await secrets.patch({ namespace: 'ns', name: 'db' }, 'merge', { data: { password: 'cHc=' } });
    await settle();
    await h.reconcile();
    assert.equal(h.condition('Ready')?.status, 'True');
    const cm = h.get(ConfigMap, 'a-config') as { data?: Record<string, string> };
    assert.equal(
      cm.data?.secretVersion,
      h.get(Secret, 'db')?.metadata?.resourceVersion,
      'ctx.actual gives the dependency',
    );
    assert.equal(
      h.writes().filter((r) => r.path.includes('/secrets')).length,
      0,
      'a read-only dependent is never written',
    );
    // Another Secret no parent reads: nobody is enqueued.
    h.enqueued.length = 0;
    await secrets.create({ metadata: { name: 'other', namespace: 'ns' } });
    await settle();
    assert.deepEqual(h.enqueued, []);
  });

  it('an external dependent polls while not ready and is deleted in order behind the finalizer', async () => {
    const calls: string[] = [];
    let ready = false;
    const db = externalDependent<App>({
      name: 'db-user',
      pollMs: 2_000,
      reconcile: async (app) => {
        calls.push(`reconcile ${app.metadata?.name}`);
        return ready || 'user being created';
      },
      delete: async (app) => void calls.push(`delete ${app.metadata?.name}`),
    });
    const cfg = dependent<ObjectLike, App>(ConfigMap, {
      name: 'config',
      cleanup: 'ordered',
      desired: () => configMap('a-config', { a: '1' }),
    }).dependsOn(db);
    const h = await harness([db, cfg]);
    await h.createApp();
    assert.deepEqual(await h.reconcile(), { requeueAfter: 2_000 });
    assert.equal(h.condition('DbUserReady')?.message, 'db-user: user being created');
    ready = true;
    assert.equal(await h.reconcile(), undefined);
    assert.ok(h.get(ConfigMap, 'a-config'));
    await h.apps.delete({ namespace: 'ns', name: 'a' });
    await settle();
    await h.reconcile();
    assert.ok(!calls.includes('delete a'), 'the external one waits for the ConfigMap that depends on it');
    await h.reconcile();
    assert.ok(calls.includes('delete a'));
    await h.reconcile();
    assert.equal(h.app(), undefined);
  });
});
