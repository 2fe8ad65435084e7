import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { request as httpsRequest, type RequestOptions } from 'node:https';
import { after, before, describe, it } from 'node:test';
import type { KubeConfig } from '@kubernetes/client-node';
import { isApiError, type ApiError } from '../../../src/client/api-error.ts';
import { defineKind } from '../../../src/client/kind.ts';
import { ResourceClient, type ObjectLike } from '../../../src/client/resource-client.ts';
import { Transport } from '../../../src/client/transport.ts';
import { Manager } from '../../../src/runtime/manager.ts';
import {
  controlPlaneSkip,
  installWebhooks,
  startControlPlane,
  type ControlPlane,
  type WebhookEnvironment,
} from '../../../src/testing/index.ts';
import {
  CONFIGMAP_REFUSAL,
  registerWidgetWebhooks,
  TIER_ANNOTATION,
  WidgetV1Kind,
  WidgetV2Kind,
  type WidgetV1,
  type WidgetV2,
  type WidgetValidator,
} from '../../fixtures/webhook/widget-webhooks.ts';
import { createNamespace, eventually, memoryLogger } from '../runtime/helpers.ts';

const CRD = new URL('../../fixtures/webhook/widget-crd.yaml', import.meta.url);
const MANIFESTS = new URL('../../fixtures/webhook/manifests.yaml', import.meta.url);
const ns = 'webhooks';

const ConfigMapKind = defineKind<ObjectLike>({
  group: '',
  version: 'v1',
  kind: 'ConfigMap',
  plural: 'configmaps',
  namespaced: true,
});
const CrdKind = defineKind<ObjectLike & { spec: { versions: { name: string; storage: boolean }[] } }>({
  group: 'apiextensions.k8s.io',
  version: 'v1',
  kind: 'CustomResourceDefinition',
  plural: 'customresourcedefinitions',
  namespaced: false,
});

const v2 = (name: string, spec: WidgetV2['spec']): WidgetV2 => ({
  apiVersion: 'example.com/v2',
  kind: 'Widget',
  metadata: { name, namespace: ns },
  spec,
});
const v1 = (name: string, spec: WidgetV1['spec']): WidgetV1 => ({
  apiVersion: 'example.com/v1',
  kind: 'Widget',
  metadata: { name, namespace: ns },
  spec,
});

/** A request with the admin credentials that returns the headers too (for `Warning`). */
async function raw(
  kc: KubeConfig,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; warnings: string[]; body: Record<string, unknown> }> {
  const url = new URL(path, kc.getCurrentCluster()!.server);
  const options: RequestOptions = {
    method,
    hostname: url.hostname,
    port: url.port,
    path: `${url.pathname}${url.search}`,
    headers: {},
  };
  await kc.applyToHTTPSOptions(options);
  options.headers = { ...options.headers, 'content-type': 'application/json', accept: 'application/json' };
  return new Promise((resolve, reject) => {
    const req = httpsRequest(options, (res) => {
      let text = '';
      res.on('data', (d: Buffer) => (text += d.toString()));
      res.on('end', () => {
        const w = res.headers.warning;
        const warnings = (Array.isArray(w) ? w : w ? [w] : []).map((x) => x.replace(/^299 - "(.*)"$/, '$1'));
        resolve({
          status: res.statusCode ?? 0,
          warnings,
          body: JSON.parse(text || '{}') as Record<string, unknown>,
        });
      });
    });
    req.on('error', reject);
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

async function rejection(p: Promise<unknown>): Promise<ApiError> {
  try {
    await p;
  } catch (err) {
    if (isApiError(err)) return err;
    throw err;
  }
  assert.fail('the write was not refused');
}

describe('webhooks on a real API server', { timeout: 240_000, skip: controlPlaneSkip() }, () => {
  let cp: ControlPlane;
  let env: WebhookEnvironment;
  let mgr: Manager;
  let running: Promise<void>;
  let validator: WidgetValidator;
  let transport: Transport;
  let hub: ResourceClient<WidgetV2>;
  let spokeClient: ResourceClient<WidgetV1>;
  const { logger } = memoryLogger();

  before(async () => {
    cp = await startControlPlane();
    env = await installWebhooks(cp.kubeConfig, {
      paths: [MANIFESTS.pathname],
      crds: [readFileSync(CRD, 'utf8')],
    });
    await createNamespace(cp.kubeConfig, ns);
    mgr = await Manager.create({
      kubeConfig: cp.kubeConfig,
      metricsBindAddress: '0',
      healthProbeBindAddress: '0',
      handleSignals: false,
      logger,
      webhook: env.serverOptions,
    });
    validator = registerWidgetWebhooks(mgr);
    running = mgr.start();
    await mgr.ready;
    await env.waitForWebhooks();
    transport = await Transport.fromKubeConfig(cp.kubeConfig);
    hub = new ResourceClient(transport, WidgetV2Kind);
    spokeClient = new ResourceClient(transport, WidgetV1Kind);
  });

  after(async () => {
    transport?.close();
    await mgr?.stop();
    await running;
    await env?.uninstall().catch(() => {});
    await cp?.stop();
  });

  it('installs the configurations rewritten to the local URL with the test CA', () => {
    const urls = env.configurations.flatMap((c) => (c.webhooks ?? []).map((w) => w.clientConfig?.url));
    assert.deepEqual(urls, [
      `https://127.0.0.1:${env.port}/mutate-example-com-v2-widget`,
      `https://127.0.0.1:${env.port}/validate-example-com-v2-widget`,
      `https://127.0.0.1:${env.port}/validate--v1-configmap`,
    ]);
  });

  it('defaulting: spec.replicas computed from spec.size is stored', async () => {
    await hub.create(v2('defaulted', { size: 3 }));
    const stored = await hub.get({ namespace: ns, name: 'defaulted' });
    assert.equal(stored.spec.replicas, 6);
    // An explicit value is kept.
    await hub.create(v2('explicit', { size: 3, replicas: 1 }));
    assert.equal((await hub.get({ namespace: ns, name: 'explicit' })).spec.replicas, 1);
  });

  it('validation: a cross-field violation on update is refused with the field path and message', async () => {
    const obj = await hub.get({ namespace: ns, name: 'defaulted' });
    const err = await rejection(hub.replace({ ...obj, spec: { ...obj.spec, replicas: 10 } }));
    assert.equal(err.statusCode, 422);
    assert.equal(err.reason, 'Invalid');
    assert.match(
      err.message,
      /admission webhook "vwidget-v2.kb.io" denied the request: Widget.example.com "defaulted" is invalid: spec.replicas: Invalid value: 10: must be at most 3 × spec.size \(9\)/,
    );
    assert.deepEqual(
      err.causes.map((c) => [c.field, c.message]),
      [['spec.replicas', 'Invalid value: 10: must be at most 3 × spec.size (9)']],
    );
    const tier = await rejection(
      hub.replace({ ...obj, spec: { ...obj.spec, tier: 'gold' }, metadata: obj.metadata }).then(async () => {
        const again = await hub.get({ namespace: ns, name: 'defaulted' });
        return hub.replace({ ...again, spec: { ...again.spec, tier: 'silver' } });
      }),
    );
    assert.deepEqual(
      tier.causes.map((c) => c.field),
      ['spec.tier'],
    );
    assert.match(tier.message, /spec.tier: Forbidden: is immutable once set/);
  });

  it('validation: a warning reaches the client; dry runs are flagged to the handler', async () => {
    const res = await raw(
      cp.kubeConfig,
      'POST',
      `/apis/example.com/v2/namespaces/${ns}/widgets?dryRun=All`,
      v2('big', { size: 20 }),
    );
    assert.equal(res.status, 201, JSON.stringify(res.body));
    assert.deepEqual(res.warnings, ['spec.size 20 is large; consider splitting the widget']);
    assert.ok(validator.seen.includes('CREATE big dryRun=true'), validator.seen.join('\n'));
    await assert.rejects(hub.get({ namespace: ns, name: 'big' }), /NotFound/);
  });

  it('validation on delete sees the object being deleted', async () => {
    await hub.create(v2('to-delete', { size: 1 }));
    await hub.delete({ namespace: ns, name: 'to-delete' });
    assert.ok(validator.seen.includes('DELETE to-delete dryRun=false'), validator.seen.join('\n'));
  });

  it('conversion: created in the spoke, read in the hub and back', async () => {
    await spokeClient.create(v1('from-spoke', { sizeText: '4' }));
    const asHub = await hub.get({ namespace: ns, name: 'from-spoke' });
    assert.equal(asHub.apiVersion, 'example.com/v2');
    assert.equal(asHub.spec.size, 4);
    // Defaulted through the v2 webhook (matchPolicy Equivalent converts the v1 request).
    assert.equal(asHub.spec.replicas, 8);
    const asSpoke = await spokeClient.get({ namespace: ns, name: 'from-spoke' });
    assert.equal(asSpoke.apiVersion, 'example.com/v1');
    assert.deepEqual(asSpoke.spec, { sizeText: '4', replicas: 8 });
    assert.equal(asSpoke.metadata.uid, asHub.metadata.uid);
  });

  it('conversion: a hub-only field survives a round trip through the spoke', async () => {
    await hub.create(v2('gold', { size: 2, tier: 'gold' }));
    const asSpoke = await spokeClient.get({ namespace: ns, name: 'gold' });
    assert.equal(asSpoke.metadata.annotations?.[TIER_ANNOTATION], 'gold');
    // Written back through v1 (which has no tier field): the tier must survive.
    await spokeClient.replace({ ...asSpoke, spec: { ...asSpoke.spec, sizeText: '3' } });
    const back = await hub.get({ namespace: ns, name: 'gold' });
    assert.equal(back.spec.size, 3);
    assert.equal(back.spec.tier, 'gold');
    assert.equal(back.metadata.annotations?.[TIER_ANNOTATION], undefined);
  });

  it('conversion: a list in the other version converts every item', async () => {
    for (let i = 0; i < 12; i++) await hub.create(v2(`item-${i}`, { size: i + 1 }));
    const list = await spokeClient.list();
    const items = list.items.filter((o) => o.metadata.name?.startsWith('item-'));
    assert.equal(items.length, 12);
    for (const item of items) {
      assert.equal(item.apiVersion, 'example.com/v1');
      const i = Number(item.metadata.name?.slice(5));
      assert.deepEqual(item.spec, { sizeText: String(i + 1), replicas: (i + 1) * 2 });
    }
  });

  it('conversion: switching the storage version keeps every object readable in both versions', async () => {
    const crds = new ResourceClient(transport, CrdKind);
    const crd = await crds.get({ name: 'widgets.example.com' });
    crd.spec.versions = crd.spec.versions.map((v) => ({ ...v, storage: v.name === 'v1' }));
    await crds.replace(crd);
    await eventually('v1 is the storage version', async () => {
      const now = await crds.get({ name: 'widgets.example.com' });
      return now.spec.versions.find((v) => v.name === 'v1')?.storage === true;
    });
    // Objects written now are stored as v1 (through the webhook); the old ones stay v2 in etcd.
    await eventually('a v1-stored object', async () => {
      await hub.create(v2(`after-switch-${Date.now()}`, { size: 5, tier: 'bronze' }));
      return true;
    });
    const all = await hub.list();
    assert.ok(all.items.length >= 16);
    for (const o of all.items) assert.equal(typeof o.spec.size, 'number', JSON.stringify(o));
    const afterSwitch = all.items.find((o) => o.metadata.name?.startsWith('after-switch-'));
    assert.equal(afterSwitch?.spec.tier, 'bronze', 'the hub-only field survived storage as v1');
    const spokes = await spokeClient.list();
    assert.equal(spokes.items.length, all.items.length);
    for (const o of spokes.items) assert.match(o.spec.sizeText, /^\d+$/);
    const old = await hub.get({ namespace: ns, name: 'gold' });
    assert.equal(old.spec.tier, 'gold');
  });

  it('the webhook server survives bad input sent to it and keeps serving the API server', async () => {
    const post = (path: string, body: string, contentType = 'application/json'): Promise<number> =>
      new Promise((resolve, reject) => {
        const req = httpsRequest(
          {
            host: '127.0.0.1',
            port: env.port,
            path,
            method: 'POST',
            ca: env.caCert,
            agent: false,
            headers: { 'content-type': contentType },
          },
          (res) => {
            res.resume();
            res.on('end', () => resolve(res.statusCode ?? 0));
          },
        );
        req.on('error', reject);
        req.end(body);
      });
    const statuses = [
      await post('/mutate-example-com-v2-widget', '{not json'),
      await post(
        '/mutate-example-com-v2-widget',
        JSON.stringify({ apiVersion: 'admission.k8s.io/v1beta1', kind: 'AdmissionReview' }),
      ),
      await post('/validate-example-com-v2-widget', 'x'.repeat(8 * 1024 * 1024)),
      await post('/convert', '[]'),
      await post('/nowhere', '{}'),
      await post('/convert', '{}', 'text/plain'),
    ];
    assert.deepEqual(statuses, [400, 400, 413, 400, 404, 415]);
    await hub.create(v2('after-bad-input', { size: 1 }));
    assert.equal((await hub.get({ namespace: ns, name: 'after-bad-input' })).spec.replicas, 2);
    const metrics = await mgr.metrics.registry.render();
    assert.match(metrics, /controller_runtime_webhook_requests_total\{code="200",webhook="\/convert"\} \d+/);
    assert.match(
      metrics,
      /controller_runtime_webhook_requests_total\{code="413",webhook="\/validate-example-com-v2-widget"\} 1/,
    );
  });

  it('failurePolicy: with the server down, Fail blocks the write and Ignore lets it through', async () => {
    const configMaps = new ResourceClient(transport, ConfigMapKind);
    const labelled = (name: string): ObjectLike => ({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name, namespace: ns, labels: { 'op-gen-test': 'ignore' } },
    });
    // While the server runs, the Ignore webhook is called and refuses.
    const refused = await rejection(configMaps.create(labelled('while-up')));
    assert.match(refused.message, new RegExp(CONFIGMAP_REFUSAL));
    await mgr.stop();
    await running;
    const blocked = await rejection(hub.create(v2('while-down', { size: 1 })));
    assert.match(blocked.message, /failed calling webhook "mwidget-v2.kb.io"/);
    await configMaps.create(labelled('while-down'));
    assert.ok(await configMaps.get({ namespace: ns, name: 'while-down' }));
  });
});
