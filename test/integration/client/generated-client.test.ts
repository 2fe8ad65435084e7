import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { ApiError } from '../../../src/client/api-error.ts';
import type { ObjectList, ObjectLike, WatchEvent } from '../../../src/client/resource-client.ts';
import { Transport } from '../../../src/client/transport.ts';
import { generateCrds } from '../../../src/generate/crd/index.ts';
import { renderClients } from '../../../src/generate/client/index.ts';
import type { Informer, Lister } from '../../../src/runtime/index.ts';
import { createLogger } from '../../../src/runtime/logger.ts';
import { controlPlaneSkip, startControlPlane, type ControlPlane } from '../../../src/testing/index.ts';
import { installCrd } from '../../../src/testing/install-crd.ts';

const repo = join(import.meta.dirname, '..', '..', '..');
const fixture = join(repo, 'test', 'fixtures', 'client');

// The shapes of the fleet fixture API (test/fixtures/client/api/fleet/v1/ship_types.ts), as loaded at run time.
interface Ship extends ObjectLike {
  metadata?: {
    name?: string;
    namespace?: string;
    resourceVersion?: string;
    uid?: string;
    labels?: Record<string, string>;
    managedFields?: { manager?: string }[];
  };
  spec: { replicas: number; port: string; speed?: number | string; tags?: string[] };
  status?: { replicas?: number; phase?: 'Docked' | 'Sailing'; selector?: string };
}
interface Harbor extends ObjectLike {
  spec: { berths: number };
}
type Key = { namespace: string; name: string };
interface ShipClient {
  get(key: Key): Promise<Ship>;
  list(o?: object): Promise<ObjectList<Ship>>;
  listAll(o?: object): Promise<ObjectList<Ship>>;
  watch(o: object, onEvent: (e: WatchEvent<Ship>) => void): Promise<void>;
  create(obj: Ship): Promise<Ship>;
  replace(obj: Ship): Promise<Ship>;
  mergePatch(key: Key, patch: object): Promise<Ship>;
  jsonPatch(key: Key, ops: object[]): Promise<Ship>;
  apply(obj: object, o: { fieldManager: string; force?: boolean }): Promise<Ship>;
  delete(key: Key, o?: object): Promise<unknown>;
  getStatus(key: Key): Promise<Ship>;
  replaceStatus(obj: Ship): Promise<Ship>;
  mergePatchStatus(key: Key, patch: object): Promise<Ship>;
  applyStatus(obj: object, o: { fieldManager: string; force?: boolean }): Promise<Ship>;
  getScale(
    key: Key,
  ): Promise<{ spec?: { replicas?: number }; status?: { replicas: number; selector?: string } }>;
  scale(key: Key, replicas: number): Promise<unknown>;
  informer(o: object): Informer<Ship>;
  lister(i: Informer<Ship>): Lister<Ship>;
}
interface HarborClient {
  get(key: { name: string }): Promise<Harbor>;
  create(obj: Harbor): Promise<Harbor>;
  delete(key: { name: string }): Promise<unknown>;
  mergePatch(key: { name: string }, patch: object): Promise<Harbor>;
}

async function rejectsWith(p: Promise<unknown>, statusCode: number, reason: string): Promise<ApiError> {
  let caught: unknown;
  await assert.rejects(p, (err: unknown) => {
    caught = err;
    return true;
  });
  assert.ok(caught instanceof ApiError, `expected an ApiError, got ${String(caught)}`);
  assert.equal(caught.statusCode, statusCode);
  assert.equal(caught.reason, reason);
  return caught;
}

const ns = 'sea';
const ship = (name: string, extra: Partial<Ship['spec']> = {}, labels?: Record<string, string>): Ship => ({
  apiVersion: 'fleet.example.com/v1',
  kind: 'Ship',
  metadata: { namespace: ns, name, ...(labels ? { labels } : {}) },
  spec: { replicas: 1, port: 'Tortuga', ...extra },
});

describe(
  'generated typed client against the real API server',
  { timeout: 180_000, skip: controlPlaneSkip() },
  () => {
    let cp: ControlPlane;
    let transport: Transport;
    let dir: string;
    let ships: ShipClient;
    let harbors: HarborClient;

    before(async () => {
      cp = await startControlPlane();
      transport = await Transport.fromKubeConfig(cp.kubeConfig);
      const { crds } = await generateCrds({ cwd: fixture, apiDir: 'api', check: true });
      for (const crd of crds) {
        const names = (crd as unknown as { spec: { names: { kind: string; plural: string } } }).spec.names;
        await installCrd(transport, crd, {
          group: 'fleet.example.com',
          version: 'v1',
          kind: names.kind,
          plural: names.plural,
          namespaced: names.kind === 'Ship',
        });
      }
      await transport.request({
        method: 'POST',
        path: '/api/v1/namespaces',
        body: { metadata: { name: ns } },
      });

      dir = mkdtempSync(join(tmpdir(), 'op-gen-client-it-'));
      const files = await renderClients({
        cwd: fixture,
        apiDir: 'api',
        outDir: dir,
        runtimeModule: join(repo, 'src', 'runtime', 'index.ts'),
      });
      for (const f of files) {
        mkdirSync(join(f.path, '..'), { recursive: true });
        writeFileSync(f.path, f.content);
      }
      const shipModule = (await import(join(dir, 'fleet/v1/ship.ts'))) as {
        ShipClient: new (t: Transport) => ShipClient;
      };
      const harborModule = (await import(join(dir, 'fleet/v1/harbor.ts'))) as {
        HarborClient: new (t: Transport) => HarborClient;
      };
      ships = new shipModule.ShipClient(transport);
      harbors = new harborModule.HarborClient(transport);
    });

    after(async () => {
      transport?.close();
      await cp?.stop();
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    it('CRUD: create, get, replace, merge and JSON patch, delete; typed NotFound/AlreadyExists/Invalid', async () => {
      const created = await ships.create(ship('pearl', { speed: 'flank' }));
      assert.equal(created.spec.speed, 'flank');
      await rejectsWith(ships.create(ship('pearl')), 409, 'AlreadyExists');
      const got = await ships.get({ namespace: ns, name: 'pearl' });
      assert.equal(got.metadata?.uid, created.metadata?.uid);
      const replaced = await ships.replace({ ...got, spec: { ...got.spec, port: 'Port Royal' } });
      assert.equal(replaced.spec.port, 'Port Royal');
      const merged = await ships.mergePatch(
        { namespace: ns, name: 'pearl' },
        { spec: { speed: null, tags: ['fast'] } },
      );
      assert.equal(merged.spec.speed, undefined);
      assert.deepEqual(merged.spec.tags, ['fast']);
      const patched = await ships.jsonPatch({ namespace: ns, name: 'pearl' }, [
        { op: 'replace', path: '/spec/replicas', value: 2 },
      ]);
      assert.equal(patched.spec.replicas, 2);
      await rejectsWith(ships.get({ namespace: ns, name: 'dutchman' }), 404, 'NotFound');
      const invalid = await rejectsWith(
        ships.create({ ...ship('broken'), spec: { replicas: 1 } as Ship['spec'] }),
        422,
        'Invalid',
      );
      assert.ok(
        invalid.causes.some((c) => c.field === 'spec.port'),
        JSON.stringify(invalid.causes),
      );
      await ships.delete({ namespace: ns, name: 'pearl' }, { propagationPolicy: 'Background' });
      await rejectsWith(ships.get({ namespace: ns, name: 'pearl' }), 404, 'NotFound');
    });

    it('conflicts: a stale resourceVersion on replace and a failed delete precondition are typed Conflicts', async () => {
      const first = await ships.create(ship('revenge'));
      await ships.mergePatch({ namespace: ns, name: 'revenge' }, { spec: { port: 'Nassau' } });
      const err = await rejectsWith(
        ships.replace({ ...first, spec: { ...first.spec, replicas: 9 } }),
        409,
        'Conflict',
      );
      assert.match(err.message, /the object has been modified/);
      await rejectsWith(
        ships.delete(
          { namespace: ns, name: 'revenge' },
          { preconditions: { uid: '00000000-0000-0000-0000-000000000000' } },
        ),
        409,
        'Conflict',
      );
      await ships.delete(
        { namespace: ns, name: 'revenge' },
        { preconditions: { uid: first.metadata?.uid ?? '' } },
      );
    });

    it('status subresource: replace/patch/apply change only status; the main resource ignores status', async () => {
      const created = await ships.create({ ...ship('interceptor'), status: { phase: 'Sailing' } });
      assert.equal(created.status, undefined, 'status is dropped on create');
      const withStatus = await ships.replaceStatus({ ...created, status: { phase: 'Docked', replicas: 1 } });
      assert.equal(withStatus.status?.phase, 'Docked');
      const patched = await ships.mergePatchStatus(
        { namespace: ns, name: 'interceptor' },
        { status: { phase: 'Sailing' } },
      );
      assert.equal(patched.status?.phase, 'Sailing');
      await ships.applyStatus(
        { metadata: { namespace: ns, name: 'interceptor' }, status: { selector: 'crew=pirates' } },
        { fieldManager: 'status-writer' },
      );
      const got = await ships.getStatus({ namespace: ns, name: 'interceptor' });
      assert.equal(got.status?.selector, 'crew=pirates');
      assert.equal(got.status?.phase, 'Sailing');
      const ignored = await ships.mergePatch(
        { namespace: ns, name: 'interceptor' },
        { status: { phase: 'Docked' } },
      );
      assert.equal(ignored.status?.phase, 'Sailing');
    });

    it('server-side apply: field managers, a conflict is typed, force takes the field', async () => {
      const applied = await ships.apply(
        { metadata: { namespace: ns, name: 'queen-anne' }, spec: { replicas: 3, port: 'Tortuga' } },
        { fieldManager: 'captain' },
      );
      assert.equal(applied.spec.replicas, 3);
      const err = await rejectsWith(
        ships.apply(
          { metadata: { namespace: ns, name: 'queen-anne' }, spec: { replicas: 5, port: 'Tortuga' } },
          { fieldManager: 'mutineer' },
        ),
        409,
        'Conflict',
      );
      assert.ok(
        err.causes.some((c) => c.field === '.spec.replicas'),
        JSON.stringify(err.causes),
      );
      const forced = await ships.apply(
        { metadata: { namespace: ns, name: 'queen-anne' }, spec: { replicas: 5, port: 'Tortuga' } },
        { fieldManager: 'mutineer', force: true },
      );
      assert.equal(forced.spec.replicas, 5);
      assert.deepEqual((forced.metadata?.managedFields ?? []).map((m) => m.manager).sort(), [
        'captain',
        'mutineer',
      ]);
    });

    it('scale subresource: getScale and scale', async () => {
      await ships.create(ship('flying-fish', { replicas: 2 }));
      const scale = await ships.getScale({ namespace: ns, name: 'flying-fish' });
      assert.equal(scale.spec?.replicas, 2);
      await ships.scale({ namespace: ns, name: 'flying-fish' }, 7);
      assert.equal((await ships.get({ namespace: ns, name: 'flying-fish' })).spec.replicas, 7);
    });

    it('list: label selectors and pagination with continue; listAll follows every page', async () => {
      for (let i = 0; i < 5; i++) await ships.create(ship(`convoy-${i}`, {}, { fleet: 'convoy' }));
      const seen: string[] = [];
      let page = await ships.list({ namespace: ns, labelSelector: 'fleet=convoy', limit: 2 });
      let pages = 1;
      seen.push(...page.items.map((s) => s.metadata?.name ?? ''));
      while (page.metadata.continue) {
        page = await ships.list({
          namespace: ns,
          labelSelector: 'fleet=convoy',
          limit: 2,
          continue: page.metadata.continue,
        });
        seen.push(...page.items.map((s) => s.metadata?.name ?? ''));
        pages++;
      }
      assert.equal(pages, 3);
      assert.deepEqual(seen, ['convoy-0', 'convoy-1', 'convoy-2', 'convoy-3', 'convoy-4']);
      const all = await ships.listAll({ namespace: ns, labelSelector: 'fleet=convoy' });
      assert.equal(all.items.length, 5);
      const none = await ships.list({ namespace: ns, labelSelector: 'fleet=armada' });
      assert.equal(none.items.length, 0);
      const byField = await ships.list({ namespace: ns, fieldSelector: 'metadata.name=convoy-3' });
      assert.deepEqual(
        byField.items.map((s) => s.metadata?.name),
        ['convoy-3'],
      );
    });

    it('watch: typed ADDED, MODIFIED and DELETED events', async () => {
      const { metadata } = await ships.list({ namespace: ns, limit: 1 });
      const abort = new AbortController();
      const events: string[] = [];
      let watchError: unknown;
      const watching = ships
        .watch(
          {
            namespace: ns,
            resourceVersion: metadata.resourceVersion,
            labelSelector: 'watch=me',
            signal: abort.signal,
          },
          (e) => {
            events.push(`${e.type} ${e.object.metadata?.name} ${e.object.spec.port}`);
          },
        )
        .catch((err: unknown) => {
          watchError = err;
        });
      await ships.create(ship('black-pearl', {}, { watch: 'me' }));
      await ships.mergePatch({ namespace: ns, name: 'black-pearl' }, { spec: { port: 'Singapore' } });
      await ships.delete({ namespace: ns, name: 'black-pearl' });
      for (let i = 0; i < 100 && events.length < 3; i++) await sleep(20);
      abort.abort();
      await watching;
      // The only error allowed to end the watch is the abort this test sent.
      if (
        watchError !== undefined &&
        !(abort.signal.aborted && (watchError as Error).name === 'AbortError')
      ) {
        throw watchError;
      }
      assert.deepEqual(events, [
        'ADDED black-pearl Tortuga',
        'MODIFIED black-pearl Singapore',
        'DELETED black-pearl Singapore',
      ]);
    });

    it('informer and lister: a typed local store that plugs into the runtime', async () => {
      const informer = ships.informer({ namespace: ns, logger: createLogger({ level: 'error' }) });
      informer.start();
      try {
        await informer.waitForSync();
        const lister = ships.lister(informer);
        assert.deepEqual(
          lister.list({ labelSelector: 'fleet=convoy' }).map((s) => s.metadata?.name),
          ['convoy-0', 'convoy-1', 'convoy-2', 'convoy-3', 'convoy-4'],
        );
        await ships.create(ship('late-arrival', {}, { fleet: 'convoy' }));
        for (let i = 0; i < 100 && !lister.get(ns, 'late-arrival'); i++) await sleep(20);
        assert.equal(lister.get(ns, 'late-arrival')?.spec.port, 'Tortuga');
      } finally {
        await informer.stop();
      }
    });

    it('Forbidden: a ServiceAccount without RBAC gets a typed 403', async () => {
      const kc = await cp.kubeConfigForServiceAccount(ns, 'deckhand');
      const saTransport = await Transport.fromKubeConfig(kc);
      try {
        const shipModule = (await import(join(dir, 'fleet/v1/ship.ts'))) as {
          ShipClient: new (t: Transport) => ShipClient;
        };
        const err = await rejectsWith(
          new shipModule.ShipClient(saTransport).list({ namespace: ns }),
          403,
          'Forbidden',
        );
        assert.match(err.message, /system:serviceaccount:sea:deckhand/);
      } finally {
        saTransport.close();
      }
    });

    it('a cluster-scoped kind: create, patch, get, delete without a namespace', async () => {
      await harbors.create({
        apiVersion: 'fleet.example.com/v1',
        kind: 'Harbor',
        metadata: { name: 'port-royal' },
        spec: { berths: 12 },
      });
      await harbors.mergePatch({ name: 'port-royal' }, { spec: { berths: 14 } });
      assert.equal((await harbors.get({ name: 'port-royal' })).spec.berths, 14);
      await harbors.delete({ name: 'port-royal' });
      await rejectsWith(harbors.get({ name: 'port-royal' }), 404, 'NotFound');
    });
  },
);
