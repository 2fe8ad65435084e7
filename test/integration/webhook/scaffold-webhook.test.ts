import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { parse, stringify } from 'yaml';
// The built runtime: the generated project imports op-gen/runtime, which resolves to dist/, and its
// handlers' errors (ValidationError) must be the classes the server checks for.
import { Manager, ResourceClient, Transport, defineKind, type Kind } from '../../../dist/runtime/index.js';
import {
  controlPlaneSkip,
  installWebhooks,
  startControlPlane,
  type ControlPlane,
} from '../../../src/testing/index.ts';
import { run } from '../../unit/scaffold/helpers.ts';

/**
 * The scaffold against the real API server: a project from `op-gen init`, `create api` (v1, v2) and
 * `create webhook` (defaulting + validation on v1, conversion v1 ⇄ v2), whose generated
 * config/webhook/manifests.yaml and CRD (with its generated conversion patch) are installed on the
 * test control plane, and whose generated handlers, registered by the generated registerWebhooks,
 * serve the API server's calls.
 */

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const TMP = join(ROOT, 'test/integration/webhook/tmp');

/** A Memcached as the test writes and reads it. */
interface Memcached {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; annotations?: Record<string, string> };
  spec: { size?: number; image: string };
}

async function ok(cwd: string, ...args: string[]): Promise<void> {
  const r = await run(cwd, ...args);
  assert.equal(r.code, 0, `op-gen ${args.join(' ')}:\n${r.out}${r.err}`);
}

describe('scaffolded webhooks on a real API server', { skip: controlPlaneSkip() }, () => {
  mkdirSync(TMP, { recursive: true });
  const dir = mkdtempSync(join(TMP, 'e2e-'));
  const root = join(dir, 'demo');
  let cp: ControlPlane | undefined;
  let mgr: Manager | undefined;
  let uninstall: (() => Promise<void>) | undefined;
  let v1: ResourceClient<Memcached>;
  let v2: ResourceClient<Memcached>;

  before(async () => {
    await ok(
      dir,
      'init',
      root,
      '--domain',
      'example.com',
      '--name',
      'demo',
      '--skip-install',
      '--owner',
      'Example',
    );
    await ok(
      root,
      'create',
      'api',
      '--group',
      'cache',
      '--version',
      'v1',
      '--kind',
      'Memcached',
      '--example',
      'deployment',
    );
    await ok(
      root,
      'create',
      'api',
      '--group',
      'cache',
      '--version',
      'v2',
      '--kind',
      'Memcached',
      '--example',
      'deployment',
    );
    await ok(
      root,
      'create',
      'webhook',
      '--group',
      'cache',
      '--version',
      'v1',
      '--kind',
      'Memcached',
      '--defaulting',
      '--programmatic-validation',
    );
    await ok(
      root,
      'create',
      'webhook',
      '--group',
      'cache',
      '--version',
      'v1',
      '--kind',
      'Memcached',
      '--conversion',
      '--spoke',
      'v2',
    );
    // What a user puts in the TODOs: a default only code can set, and a rule naming its field.
    const webhook = join(root, 'src/webhooks/cache/v1/memcached.webhook.ts');
    const source = readFileSync(webhook, 'utf8');
    const defaultsTodo = '    // TODO(user): set the defaults that need code';
    const rulesTodo = '  // TODO(user): your rules';
    assert.ok(source.includes(defaultsTodo) && source.includes(rulesTodo), source);
    writeFileSync(
      webhook,
      source
        .replace(
          defaultsTodo,
          "    obj.spec.size ??= 1;\n    obj.metadata.annotations = { ...obj.metadata.annotations, 'example.com/image': obj.spec.image };\n" +
            defaultsTodo,
        )
        .replace(
          rulesTodo,
          "  if (/\\s/.test(obj.spec.image))\n    errors.push(field.invalid(field.path('spec', 'image'), obj.spec.image, 'must not contain spaces'));\n" +
            rulesTodo,
        )
        .replace('  type AdmissionContext,', '  type AdmissionContext,\n  field,'),
    );
    // op-gen as the project would install it: this checkout (dist/ built by the test run).
    mkdirSync(join(root, 'node_modules'), { recursive: true });
    symlinkSync(ROOT, join(root, 'node_modules', 'op-gen'), 'dir');

    cp = await startControlPlane();
    const base = parse(
      readFileSync(join(root, 'config/crd/bases/cache.example.com_memcacheds.yaml'), 'utf8'),
    ) as {
      spec: Record<string, unknown>;
    };
    const patch = parse(
      readFileSync(join(root, 'config/crd/patches/webhook_in_memcacheds.yaml'), 'utf8'),
    ) as {
      spec: { conversion: unknown };
    };
    base.spec.conversion = patch.spec.conversion; // what kustomize does with the patch
    const env = await installWebhooks(cp.kubeConfig, {
      paths: [join(root, 'config/webhook/manifests.yaml')],
      crds: [stringify(base)],
    });
    uninstall = () => env.uninstall();
    mgr = await Manager.create({
      kubeConfig: cp.kubeConfig,
      metricsBindAddress: '0',
      healthProbeBindAddress: '0',
      webhook: env.serverOptions,
      logLevel: 'error',
    });
    const { registerWebhooks } = (await import(join(root, 'src/webhooks/index.ts'))) as {
      registerWebhooks: (m: Manager) => void;
    };
    registerWebhooks(mgr);
    void mgr.start();
    await env.waitForWebhooks({ timeoutMs: 60_000 });
    const transport = await Transport.fromKubeConfig(cp.kubeConfig);
    const kind = (version: string): Kind<Memcached> =>
      defineKind<Memcached>({
        group: 'cache.example.com',
        version,
        kind: 'Memcached',
        plural: 'memcacheds',
        namespaced: true,
      });
    v1 = new ResourceClient(transport, kind('v1'));
    v2 = new ResourceClient(transport, kind('v2'));
  });

  after(async () => {
    await mgr?.stop();
    await uninstall?.();
    await cp?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const object = (version: string, name: string, image: string): Memcached => ({
    apiVersion: `cache.example.com/${version}`,
    kind: 'Memcached',
    metadata: { name, namespace: 'default' },
    spec: { image },
  });

  it('the generated defaulter runs: its default is in the stored object', async () => {
    await v1.create(object('v1', 'defaulted', 'registry.k8s.io/pause:3.10'));
    const stored = await v1.get({ namespace: 'default', name: 'defaulted' });
    assert.equal(stored?.metadata.annotations?.['example.com/image'], 'registry.k8s.io/pause:3.10');
    assert.equal(stored?.spec.size, 1);
  });

  it('the generated validator refuses an image with spaces, naming spec.image', async () => {
    await assert.rejects(
      () => v1.create(object('v1', 'invalid', 'bad image')),
      (err: Error) => /spec\.image/.test(err.message) && /must not contain spaces/.test(err.message),
    );
  });

  it('the generated converter serves v2: created in v2, read in v1 and back', async () => {
    await v2.create(object('v2', 'converted', 'nginx:1.27'));
    const hub = await v1.get({ namespace: 'default', name: 'converted' });
    assert.equal(hub?.apiVersion, 'cache.example.com/v1');
    assert.equal(hub?.spec.image, 'nginx:1.27');
    const spoke = await v2.get({ namespace: 'default', name: 'converted' });
    assert.equal(spoke?.apiVersion, 'cache.example.com/v2');
    assert.equal(spoke?.spec.image, 'nginx:1.27');
  });
});
