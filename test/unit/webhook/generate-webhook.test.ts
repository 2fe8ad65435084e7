import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parse, parseAllDocuments, stringify } from 'yaml';
import { assertGoldenDir } from '../../helpers/golden.ts';
import { kustomizeBuild, toolSkip } from '../../helpers/tools.ts';
import { listFiles, run, snapshot, tempDir } from '../scaffold/helpers.ts';

/** A built object as the assertions read it; typing every manifest shape would only restate the API. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Doc = Record<string, any>;

const GOLDEN = new URL('../../golden/webhook/project/', import.meta.url).pathname;

const HANDLERS = `/**
 * Defaults and validates Memcached.
 * @webhook path=/mutate-cache-example-com-v1-memcached mutating=true failurePolicy=fail sideEffects=None
 *   groups=cache.example.com resources=memcacheds verbs=create;update versions=v1 name=mmemcached-v1.kb.io
 *   admissionReviewVersions=v1
 * @webhook path=/validate-cache-example-com-v1-memcached mutating=false failurePolicy=fail sideEffects=None
 *   groups=cache.example.com resources=memcacheds verbs=create;update versions=v1 name=vmemcached-v1.kb.io
 *   admissionReviewVersions=v1
 */
export class MemcachedWebhook {}
`;

/** The generated files of a project (config/webhook, config/certmanager, config/crd patches and kustomization). */
function generated(dir: string): string[] {
  return listFiles(join(dir, 'config')).filter((f) =>
    /^(webhook|certmanager)\/|^crd\/(patches\/|kustomiz)/.test(f),
  );
}

describe('op-gen generate webhook on a scaffolded project', () => {
  const { dir: tmp, cleanup } = tempDir('op-gen-webhook-');
  const dir = join(tmp, 'memcached-operator');
  after(cleanup);

  before(async () => {
    const steps = [
      [
        'init',
        dir,
        '--domain',
        'example.com',
        '--name',
        'memcached-operator',
        '--skip-install',
        '--owner',
        'Example',
      ],
      [
        '--cwd',
        dir,
        'create',
        'api',
        '--group',
        'cache',
        '--version',
        'v1',
        '--kind',
        'Memcached',
        '--skip-generate',
      ],
      [
        '--cwd',
        dir,
        'create',
        'api',
        '--group',
        'cache',
        '--version',
        'v2',
        '--kind',
        'Memcached',
        '--skip-generate',
      ],
      ['--cwd', dir, 'generate', 'crd'],
    ];
    for (const args of steps) {
      const r = await run(tmp, ...args);
      assert.equal(r.code, 0, r.err);
    }
    mkdirSync(join(dir, 'src', 'webhooks'), { recursive: true });
    writeFileSync(join(dir, 'src', 'webhooks', 'memcached.webhook.ts'), HANDLERS);
    const projectFile = join(dir, 'op-gen.yaml');
    const project = parse(readFileSync(projectFile, 'utf8')) as { resources: Record<string, unknown>[] };
    project.resources[0] = {
      ...project.resources[0],
      webhooks: { defaulting: true, validation: true, conversion: true, spokes: ['v2'] },
    };
    writeFileSync(projectFile, stringify(project));
  });

  it('writes the webhook configurations, Service, certificates and conversion patch (golden)', async () => {
    const r = await run(dir, 'generate', 'webhook');
    assert.equal(r.code, 0, r.err);
    const files = generated(dir);
    assert.deepEqual(files, [
      'certmanager/certificate.yaml',
      'certmanager/issuer.yaml',
      'certmanager/kustomization.yaml',
      'certmanager/kustomizeconfig.yaml',
      'crd/kustomization.yaml',
      'crd/kustomizeconfig.yaml',
      'crd/patches/webhook_in_memcacheds.yaml',
      'webhook/kustomization.yaml',
      'webhook/manifests.yaml',
      'webhook/service.yaml',
    ]);
    assertGoldenDir(GOLDEN, new Map(files.map((f) => [f, readFileSync(join(dir, 'config', f), 'utf8')])));
  });

  it('is idempotent and --check passes on its own output', async () => {
    const before = snapshot(dir);
    const r = await run(dir, 'generate', 'webhook', '--check');
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /up to date/);
    assert.equal((await run(dir, 'generate', 'webhook')).code, 0);
    assert.deepEqual(snapshot(dir), before);
  });

  it(
    'kustomize builds config/default with the webhook: names prefixed, namespaces set, CA injected',
    {
      skip: toolSkip('kustomize'),
    },
    () => {
      const defaults = join(dir, 'config', 'default', 'kustomization.yaml');
      const original = readFileSync(defaults, 'utf8');
      try {
        writeFileSync(
          defaults,
          original.replace('  - ../manager\n', '  - ../manager\n  - ../webhook\n  - ../certmanager\n'),
        );
        const r = kustomizeBuild(join(dir, 'config', 'default'));
        assert.equal(r.status, 0, r.stderr);
        const objects = parseAllDocuments(r.stdout).map((d) => d.toJS() as Doc);
        const find = (kind: string): Doc => {
          const o = objects.find((x) => x.kind === kind);
          assert.ok(o, `no ${kind} in the build`);
          return o;
        };
        const ns = 'memcached-operator-system';
        const inject = `${ns}/memcached-operator-serving-cert`;
        assert.ok(
          objects.some(
            (o) => o.kind === 'Service' && o.metadata.name === 'memcached-operator-webhook-service',
          ),
        );
        for (const kind of ['MutatingWebhookConfiguration', 'ValidatingWebhookConfiguration']) {
          const cfg = find(kind);
          assert.equal(cfg.metadata.annotations['cert-manager.io/inject-ca-from'], inject, kind);
          assert.deepEqual(cfg.webhooks[0].clientConfig.service.name, 'memcached-operator-webhook-service');
          assert.deepEqual(cfg.webhooks[0].clientConfig.service.namespace, ns);
        }
        const crd = find('CustomResourceDefinition');
        assert.equal(crd.metadata.annotations['cert-manager.io/inject-ca-from'], inject);
        assert.deepEqual(crd.spec.conversion.webhook.clientConfig.service, {
          name: 'memcached-operator-webhook-service',
          namespace: ns,
          path: '/convert',
        });
        const cert = find('Certificate');
        assert.equal(cert.metadata.name, 'memcached-operator-serving-cert');
        assert.equal(cert.metadata.namespace, ns);
        assert.equal(cert.spec.issuerRef.name, 'memcached-operator-selfsigned-issuer');
        assert.deepEqual(cert.spec.dnsNames, [
          `memcached-operator-webhook-service.${ns}.svc`,
          `memcached-operator-webhook-service.${ns}.svc.cluster.local`,
        ]);
      } finally {
        writeFileSync(defaults, original);
      }
    },
  );

  it('a bad marker is an error naming file:line, and nothing is written', async () => {
    const file = join(dir, 'src', 'webhooks', 'memcached.webhook.ts');
    const before = snapshot(join(dir, 'config'));
    writeFileSync(
      file,
      HANDLERS.replace(
        'sideEffects=None\n *   groups=cache.example.com resources=memcacheds verbs=create;update versions=v1 name=vmemcached',
        'sideEffects=Some\n *   groups=cache.example.com resources=memcacheds verbs=create;update versions=v1 name=vmemcached',
      ),
    );
    const r = await run(dir, 'generate', 'webhook');
    assert.notEqual(r.code, 0);
    assert.match(r.err, /src\/webhooks\/memcached\.webhook\.ts:6: @webhook: sideEffects=Some is not allowed/);
    writeFileSync(
      file,
      HANDLERS.replace(
        'failurePolicy=fail sideEffects=None',
        'failurePolicy=fail sideEffects=None timeoutSecond=5',
      ),
    );
    const typo = await run(dir, 'generate', 'webhook');
    assert.notEqual(typo.code, 0);
    assert.match(typo.err, /memcached\.webhook\.ts:3: @webhook: unknown argument "timeoutSecond"/);
    assert.deepEqual(snapshot(join(dir, 'config')), before);
    writeFileSync(file, HANDLERS);
  });

  it('a file that does not parse is an error at its line, not a file without webhooks (nothing removed)', async () => {
    const file = join(dir, 'src', 'webhooks', 'memcached.webhook.ts');
    const before = snapshot(join(dir, 'config'));
    // An unterminated template literal swallows every comment after it: read as it parses, the file
    // has no @webhook at all, and the generated configuration would be removed as stale.
    writeFileSync(file, `const note = \`\n${HANDLERS}`);
    // Another file that parses, with a bad marker: reported in the same run.
    const other = join(dir, 'src', 'webhooks', 'other.webhook.ts');
    writeFileSync(
      other,
      HANDLERS.replace(
        'failurePolicy=fail sideEffects=None',
        'failurePolicy=fail sideEffects=None timeoutSecond=5',
      ),
    );
    const r = await run(dir, 'generate', 'webhook');
    assert.equal(r.code, 1, r.err);
    assert.match(
      r.err,
      /src\/webhooks\/memcached\.webhook\.ts:\d+:\d+: Unterminated template literal\. \(TS1160\)/,
    );
    assert.match(r.err, /src\/webhooks\/other\.webhook\.ts:3: @webhook: unknown argument "timeoutSecond"/);
    assert.match(r.err, /\n2 problems\n$/);
    assert.deepEqual(snapshot(join(dir, 'config')), before);
    rmSync(other);
    writeFileSync(file, HANDLERS);
  });

  it('removes what it generated once the webhooks are gone; --check reports them first', async () => {
    rmSync(join(dir, 'src', 'webhooks'), { recursive: true });
    const projectFile = join(dir, 'op-gen.yaml');
    const project = parse(readFileSync(projectFile, 'utf8')) as { resources: Record<string, unknown>[] };
    delete project.resources[0]?.webhooks;
    writeFileSync(projectFile, stringify(project));
    const check = await run(dir, 'generate', 'webhook', '--check');
    assert.notEqual(check.code, 0);
    assert.match(check.err, /config\/webhook\/manifests\.yaml/);
    const r = await run(dir, 'generate', 'webhook');
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /removed {3}config\/crd\/patches\/webhook_in_memcacheds\.yaml \(stale\)/);
    assert.deepEqual(generated(dir), ['crd/kustomization.yaml']);
    assert.ok(
      !existsSync(join(dir, 'config', 'webhook')) || listFiles(join(dir, 'config', 'webhook')).length === 0,
    );
    const crdKustomization = parse(
      readFileSync(join(dir, 'config', 'crd', 'kustomization.yaml'), 'utf8'),
    ) as Record<string, unknown>;
    assert.equal(crdKustomization.patches, undefined);
    assert.equal(crdKustomization.configurations, undefined);
  });
});
