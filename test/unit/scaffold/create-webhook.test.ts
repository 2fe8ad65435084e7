import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { parse, parseAllDocuments } from 'yaml';
import { kustomizeBuild, toolSkip } from '../../helpers/tools.ts';
import { listFiles, run, snapshot, typecheckAgainstSources } from './helpers.ts';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
// Inside op-gen's tree (op-gen's own tsconfig excludes test/**/tmp), so the generated project can use
// op-gen's node_modules through a link.
const TMP = join(ROOT, 'test/unit/scaffold/tmp');

/** A project as the assertions read its YAML; typing every manifest would only restate the API. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Doc = Record<string, any>;

async function ok(cwd: string, ...args: string[]): Promise<string> {
  const r = await run(cwd, ...args);
  assert.equal(r.code, 0, `op-gen ${args.join(' ')}:\n${r.out}${r.err}`);
  return r.out;
}

describe('op-gen create webhook', () => {
  mkdirSync(TMP, { recursive: true });
  const dir = mkdtempSync(join(TMP, 'webhook-'));
  const root = join(dir, 'demo');
  after(() => rmSync(dir, { recursive: true, force: true }));

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
    await ok(root, 'create', 'api', '--group', 'cache', '--version', 'v1', '--kind', 'Memcached');
    await ok(root, 'create', 'api', '--group', 'cache', '--version', 'v2', '--kind', 'Memcached');
    await ok(root, 'create', 'api', '--group', 'cache', '--version', 'v1', '--kind', 'Single');
  });

  it('refuses with a clear message and writes nothing: no flag, unknown kind, one version, unknown spoke', async () => {
    const before = snapshot(root);
    const cases: [string[], RegExp][] = [
      [
        ['--group', 'cache', '--version', 'v1', '--kind', 'Memcached'],
        /at least one of --defaulting, --programmatic-validation, --conversion/,
      ],
      [
        ['--group', 'cache', '--version', 'v1', '--kind', 'Nope', '--defaulting'],
        /unknown kind: Nope cache\.example\.com\/v1 .*op-gen create api/,
      ],
      [
        ['--group', 'cache', '--version', 'v1', '--kind', 'Single', '--conversion', '--spoke', 'v2'],
        /Single has one version \(v1\); conversion needs two/,
      ],
      [
        ['--group', 'cache', '--version', 'v1', '--kind', 'Memcached', '--conversion', '--spoke', 'v3'],
        /--spoke v3: Memcached has no version v3/,
      ],
      [
        ['--group', 'cache', '--version', 'v1', '--kind', 'Memcached', '--conversion'],
        /--conversion needs --spoke/,
      ],
    ];
    for (const [args, message] of cases) {
      const r = await run(root, 'create', 'webhook', ...args);
      assert.notEqual(r.code, 0, args.join(' '));
      assert.match(r.err, message);
    }
    assert.deepEqual(snapshot(root), before);
  });

  it('--check plans through emit and writes nothing: lists the files it would write, exits 1', async () => {
    const before = snapshot(root);
    const args = ['create', 'webhook', '--group', 'cache', '--version', 'v1', '--kind', 'Single'];
    const r = await run(root, ...args, '--defaulting', '--check');
    assert.equal(r.code, 1, `${r.out}${r.err}`);
    assert.match(
      r.out,
      /create webhook would write for Single cache\.example\.com\/v1: .*src\/webhooks\/cache\/v1\/single\.webhook\.ts/,
    );
    for (const edited of [
      'op-gen.yaml',
      'src/main.ts',
      'config/default/kustomization.yaml',
      'src/webhooks/index.ts',
    ])
      assert.ok(r.out.includes(edited), `${edited} is listed: ${r.out}`);
    assert.match(r.err, /create webhook --check: \d+ file\(s\) would change/);
    assert.deepEqual(snapshot(root), before);
  });

  it('scaffolds defaulting + validation and conversion, registers them, records them, runs generate webhook', async () => {
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
    const out = await ok(
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
    assert.match(out, /Running op-gen generate webhook/);
    const files = listFiles(root);
    for (const f of [
      'src/webhooks/index.ts',
      'src/webhooks/cache/v1/memcached.webhook.ts',
      'src/webhooks/cache/v1/memcached.conversion.ts',
      'test/unit/webhooks/cache/v1/memcached.webhook.test.ts',
      'test/unit/webhooks/cache/v1/memcached.conversion.test.ts',
      'config/default/manager_webhook_patch.yaml',
      'config/webhook/manifests.yaml',
      'config/certmanager/certificate.yaml',
      'config/crd/patches/webhook_in_memcacheds.yaml',
    ])
      assert.ok(files.includes(f), `${f} is missing`);
    const main = readFileSync(join(root, 'src/main.ts'), 'utf8');
    assert.match(main, /import \{ registerWebhooks \} from '\.\/webhooks\/index\.ts';/);
    assert.match(main, /registerControllers\(mgr\);\nregisterWebhooks\(mgr\);/);
    const project = parse(readFileSync(join(root, 'op-gen.yaml'), 'utf8')) as Doc;
    assert.deepEqual(project.resources[0].webhooks, {
      defaulting: true,
      validation: true,
      conversion: true,
      spokes: ['v2'],
    });
    // The scaffold's `npm run generate` is `op-gen generate`, which runs generate webhook once
    // op-gen.yaml records webhooks: the script is left as it is.
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as Doc;
    assert.equal(pkg.scripts.generate, 'op-gen generate');
    const manifests = parseAllDocuments(
      readFileSync(join(root, 'config/webhook/manifests.yaml'), 'utf8'),
    ).map((d) => d.toJS() as Doc);
    assert.deepEqual(
      manifests.map((m) => m.webhooks.map((w: Doc) => `${w.name} ${w.clientConfig.service.path}`)),
      [
        ['mmemcached-v1.kb.io /mutate-cache-example-com-v1-memcached'],
        ['vmemcached-v1.kb.io /validate-cache-example-com-v1-memcached'],
      ],
    );
    // generate webhook is part of npm run generate: the project is up to date.
    await ok(root, 'generate', 'webhook', '--check');
    assert.match(await ok(root, 'generate', '--check'), /^\d+ webhook file\(s\) up to date$/m);
  });

  it('refuses a webhook that exists unless --force', async () => {
    const before = snapshot(root);
    const r = await run(
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
    );
    assert.notEqual(r.code, 0);
    assert.match(r.err, /already has a webhook: src\/webhooks\/cache\/v1\/memcached\.webhook\.ts .*--force/);
    const c = await run(
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
    assert.match(c.err, /memcached\.conversion\.ts \(conversion\)/);
    assert.deepEqual(snapshot(root), before);
    const file = join(root, 'src/webhooks/cache/v1/memcached.webhook.ts');
    writeFileSync(file, `${readFileSync(file, 'utf8')}// edited\n`);
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
      '--force',
    );
    const again = readFileSync(file, 'utf8');
    assert.doesNotMatch(again, /\/\/ edited/);
    assert.match(again, /MemcachedCustomValidator/, 'the validation the kind had is kept');
  });

  it(
    'kustomize builds config/default: the manager serves 9443 with the cert-manager Secret mounted',
    {
      skip: toolSkip('kustomize'),
    },
    () => {
      const r = kustomizeBuild(join(root, 'config/default'));
      assert.equal(r.status, 0, r.stderr);
      const objects = parseAllDocuments(r.stdout).map((d) => d.toJS() as Doc);
      const deployment = objects.find((o) => o.kind === 'Deployment');
      const container = deployment?.spec.template.spec.containers[0];
      assert.ok(container.ports.some((p: Doc) => p.containerPort === 9443));
      assert.ok(container.args.includes('--webhook-cert-dir=/tmp/k8s-webhook-server/serving-certs'));
      assert.deepEqual(container.volumeMounts, [
        { mountPath: '/tmp/k8s-webhook-server/serving-certs', name: 'webhook-certs', readOnly: true },
      ]);
      assert.deepEqual(deployment?.spec.template.spec.volumes, [
        { name: 'webhook-certs', secret: { secretName: 'webhook-server-cert' } },
      ]);
      assert.ok(objects.some((o) => o.kind === 'Certificate' && o.metadata.name === 'demo-serving-cert'));
    },
  );

  it('the project bundles with its webhookdefinitions and passes bundle validate', async () => {
    await ok(
      root,
      'bundle',
      '--version',
      '0.1.0',
      '--channels',
      'alpha',
      '--created-at',
      '2026-01-01T00:00:00Z',
    );
    const csv = parse(
      readFileSync(join(root, 'bundle/manifests/demo.clusterserviceversion.yaml'), 'utf8'),
    ) as Doc;
    assert.deepEqual(
      csv.spec.webhookdefinitions.map((d: Doc) => `${d.type} ${d.generateName} ${d.webhookPath}`),
      [
        'ConversionWebhook cmemcacheds.kb.io /convert',
        'MutatingAdmissionWebhook mmemcached-v1.kb.io /mutate-cache-example-com-v1-memcached',
        'ValidatingAdmissionWebhook vmemcached-v1.kb.io /validate-cache-example-com-v1-memcached',
      ],
    );
    const r = await run(root, 'bundle', 'validate', 'bundle');
    assert.equal(r.code, 0, r.out + r.err);
  });

  it('the generated handlers type-check and their tests pass', () => {
    typecheckAgainstSources(root);
    // op-gen as the project would install it (this checkout, built to dist/).
    mkdirSync(join(root, 'node_modules'), { recursive: true });
    symlinkSync(ROOT, join(root, 'node_modules', 'op-gen'), 'dir');
    const tests = spawnSync(
      process.execPath,
      [
        '--test',
        'test/unit/webhooks/cache/v1/memcached.webhook.test.ts',
        'test/unit/webhooks/cache/v1/memcached.conversion.test.ts',
      ],
      // NODE_TEST_CONTEXT would make the child report to this test runner instead of its stdout.
      { cwd: root, encoding: 'utf8', env: { ...process.env, NODE_TEST_CONTEXT: undefined } },
    );
    assert.equal(tests.status, 0, `${tests.stdout}${tests.stderr}`);
    assert.match(tests.stdout, /pass 3/);
    assert.match(tests.stdout, /fail 0/);
  });
});

describe('op-gen create webhook in a project whose generate script names each generator', () => {
  mkdirSync(TMP, { recursive: true });
  const dir = mkdtempSync(join(TMP, 'webhook-script-'));
  const root = join(dir, 'demo');
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('appends `&& op-gen generate webhook` to the script', async () => {
    await ok(dir, 'init', root, '--domain', 'example.com', '--name', 'demo', '--skip-install');
    const file = join(root, 'package.json');
    const pkg = JSON.parse(readFileSync(file, 'utf8')) as Doc;
    const named = 'op-gen generate crd && op-gen generate rbac && op-gen generate client';
    pkg.scripts.generate = named;
    writeFileSync(file, `${JSON.stringify(pkg, null, 2)}\n`);
    await ok(root, 'create', 'api', '--group', 'cache', '--version', 'v1', '--kind', 'Memcached');
    await ok(root, ...'create webhook --group cache --version v1 --kind Memcached --defaulting'.split(' '));
    const after = JSON.parse(readFileSync(file, 'utf8')) as Doc;
    assert.equal(after.scripts.generate, `${named} && op-gen generate webhook`);
  });
});
