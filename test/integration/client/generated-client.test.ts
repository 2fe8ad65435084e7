import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ApiextensionsV1Api, type V1CustomResourceDefinition } from '@kubernetes/client-node';
import { parse } from 'yaml';
import { generateClients } from '../../../src/generate/client/index.ts';
import { generateCrds } from '../../../src/generate/crd/index.ts';
import { ApiError, isConflict, Transport, type WatchEvent } from '../../../src/runtime/index.ts';
import { controlPlaneSkip, startControlPlane, type ControlPlane } from '../../../src/testing/index.ts';

const FIXTURE = new URL('../../fixtures/client/', import.meta.url).pathname;
// Inside the op-gen package, so the generated `import ... from 'op-gen/runtime'` resolves to dist/.
const OUT = new URL('./.generated/', import.meta.url).pathname;

interface Widget {
  apiVersion: string;
  kind: string;
  metadata: { name?: string; namespace?: string; resourceVersion?: string; labels?: Record<string, string> };
  spec: { replicas: number; colour?: string };
  status?: { replicas?: number; selector?: string };
}

describe('generated client against a real API server', { timeout: 120_000, skip: controlPlaneSkip() }, () => {
  let cp: ControlPlane;
  let transport: Transport;
  // The generated module, loaded at run time (it is written by this test).
  let client: {
    get(k: object): Promise<Widget>;
    list(o?: object): Promise<{ items: Widget[]; metadata: { continue?: string } }>;
    listAll(o?: object): Promise<{ items: Widget[] }>;
    create(w: Widget): Promise<Widget>;
    replace(w: Widget): Promise<Widget>;
    patch(k: object, t: string, p: unknown, o?: object): Promise<Widget>;
    apply(w: Widget, o: object): Promise<Widget>;
    delete(k: object, o?: object): Promise<unknown>;
    replaceStatus(w: Widget): Promise<Widget>;
    patchStatus(k: object, t: string, p: unknown): Promise<Widget>;
    getScale(k: object): Promise<{ spec?: { replicas?: number }; status?: { replicas: number } }>;
    patchScale(k: object, n: number): Promise<unknown>;
    watch(o: object, on: (e: WatchEvent<Widget>) => void): Promise<void>;
  };
  const ns = 'default';

  before(async () => {
    rmSync(OUT, { recursive: true, force: true });
    mkdirSync(OUT, { recursive: true });
    const crds = await generateCrds({ cwd: FIXTURE, apiDir: 'api', outDir: join(OUT, 'crd') });
    await generateClients({ cwd: FIXTURE, apiDir: 'api', outDir: join(OUT, 'client') });
    cp = await startControlPlane();
    const ext = cp.kubeConfig.makeApiClient(ApiextensionsV1Api);
    const crd = parse(
      readFileSync(join(OUT, 'crd', crds.files[0]!.split('/').pop()!), 'utf8'),
    ) as V1CustomResourceDefinition;
    await ext.createCustomResourceDefinition({ body: crd });
    for (let i = 0; i < 100; i++) {
      const got = await ext.readCustomResourceDefinition({ name: crd.metadata!.name! });
      if (got.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True')) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    transport = await Transport.fromKubeConfig(cp.kubeConfig);
    const mod = (await import(join(OUT, 'client', 'index.ts'))) as {
      createClients(t: Transport): { widget: typeof client };
    };
    client = mod.createClients(transport).widget;
  });

  after(async () => {
    transport?.close();
    await cp?.stop();
    rmSync(OUT, { recursive: true, force: true });
  });

  const widget = (name: string, replicas = 1): Widget => ({
    apiVersion: 'demo.example.com/v1',
    kind: 'Widget',
    metadata: { name, namespace: ns, labels: { app: 'demo' } },
    spec: { replicas },
  });

  it('creates, gets, replaces and deletes', async () => {
    const created = await client.create(widget('crud'));
    assert.equal(created.spec.replicas, 1);
    const got = await client.get({ namespace: ns, name: 'crud' });
    const replaced = await client.replace({ ...got, spec: { ...got.spec, colour: 'red' } });
    assert.equal(replaced.spec.colour, 'red');
    await client.delete({ namespace: ns, name: 'crud' }, { propagationPolicy: 'Background' });
    await assert.rejects(
      client.get({ namespace: ns, name: 'crud' }),
      (e) => e instanceof ApiError && e.reason === 'NotFound',
    );
  });

  it('rejects invalid objects with a typed Invalid error and its causes', async () => {
    await assert.rejects(client.create(widget('bad', -1)), (e) => {
      assert.ok(e instanceof ApiError);
      assert.equal(e.statusCode, 422);
      assert.equal(e.reason, 'Invalid');
      assert.ok(e.causes.some((c) => c.field === 'spec.replicas'));
      return true;
    });
  });

  it('writes status through the subresource, and scale', async () => {
    const w = await client.create(widget('st', 2));
    const withStatus = await client.replaceStatus({ ...w, status: { replicas: 2, selector: 'app=demo' } });
    assert.equal(withStatus.status?.replicas, 2);
    await client.patchStatus({ namespace: ns, name: 'st' }, 'merge', { status: { replicas: 3 } });
    const scale = await client.getScale({ namespace: ns, name: 'st' });
    assert.equal(scale.spec?.replicas, 2);
    assert.equal(scale.status?.replicas, 3);
    await client.patchScale({ namespace: ns, name: 'st' }, 5);
    assert.equal((await client.get({ namespace: ns, name: 'st' })).spec.replicas, 5);
  });

  it('server-side applies with a field manager', async () => {
    const applied = await client.apply(widget('ssa', 4), { fieldManager: 'test-manager', force: true });
    assert.equal(applied.spec.replicas, 4);
    const again = await client.apply(
      { ...widget('ssa', 4), spec: { replicas: 4, colour: 'blue' } },
      { fieldManager: 'test-manager' },
    );
    assert.equal(again.spec.colour, 'blue');
  });

  it('turns a stale write into a typed Conflict', async () => {
    const w = await client.create(widget('conf'));
    await client.patch({ namespace: ns, name: 'conf' }, 'merge', { spec: { replicas: 2 } });
    await assert.rejects(client.replace({ ...w, spec: { replicas: 9 } }), (e) => isConflict(e));
  });

  it('deletes with a resourceVersion precondition', async () => {
    const w = await client.create(widget('pre'));
    await client.patch({ namespace: ns, name: 'pre' }, 'merge', { spec: { replicas: 2 } });
    await assert.rejects(
      client.delete(
        { namespace: ns, name: 'pre' },
        { preconditions: { resourceVersion: w.metadata.resourceVersion } },
      ),
      (e) => isConflict(e),
    );
  });

  it('lists with pagination and selectors', async () => {
    for (let i = 0; i < 7; i++) await client.create(widget(`page-${i}`));
    const first = await client.list({ namespace: ns, limit: 3, labelSelector: 'app=demo' });
    assert.equal(first.items.length, 3);
    assert.ok(first.metadata.continue);
    const all = await client.listAll({ namespace: ns, labelSelector: 'app=demo' });
    assert.ok(all.items.filter((w) => w.metadata.name?.startsWith('page-')).length === 7);
    const none = await client.list({ namespace: ns, labelSelector: 'app=other' });
    assert.equal(none.items.length, 0);
  });

  it('watches with typed events', async () => {
    const start = await client.list({ namespace: ns });
    const events: WatchEvent<Widget>[] = [];
    const abort = new AbortController();
    const done = client.watch(
      {
        namespace: ns,
        resourceVersion: (start.metadata as { resourceVersion?: string }).resourceVersion,
        signal: abort.signal,
      },
      (e) => events.push(e),
    );
    await client.create(widget('watched'));
    await client.delete({ namespace: ns, name: 'watched' });
    for (let i = 0; i < 100 && !events.some((e) => e.type === 'DELETED'); i++)
      await new Promise((r) => setTimeout(r, 20));
    abort.abort();
    await done;
    assert.deepEqual(
      events.filter((e) => e.object.metadata.name === 'watched').map((e) => e.type),
      ['ADDED', 'DELETED'],
    );
  });
});
