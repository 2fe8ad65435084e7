import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import { parse, parseAllDocuments, stringify } from 'yaml';
import { validateBundle } from '../../../src/bundle/index.ts';
import { assertGolden } from '../../helpers/golden.ts';
import { opGen, sampleProject } from './project.ts';

const GOLDEN = new URL('../../golden/webhook/bundle-webhookdefinitions.yaml', import.meta.url).pathname;
const CSV = 'bundle/manifests/memcached-operator.clusterserviceversion.yaml';
const ARGS = ['bundle', '--version', '0.1.0', '--channels', 'alpha', '--created-at', '2026-01-01T00:00:00Z'];

/** A CSV as the tests read and break it; typing the whole CSV would only restate its schema. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Doc = Record<string, any>;

const HANDLER = `/**
 * @webhook path=/mutate-cache-example-com-v1alpha1-memcached mutating=true failurePolicy=fail sideEffects=None
 *   groups=cache.example.com resources=memcacheds verbs=create;update versions=v1alpha1
 *   name=mmemcached-v1alpha1.kb.io admissionReviewVersions=v1
 * @webhook path=/validate-cache-example-com-v1alpha1-memcached mutating=false failurePolicy=fail sideEffects=None
 *   groups=cache.example.com resources=memcacheds verbs=create;update;delete versions=v1alpha1
 *   name=vmemcached-v1alpha1.kb.io admissionReviewVersions=v1 timeoutSeconds=5
 */
export class MemcachedWebhook {}
`;

function must(r: { status: number | null; stdout: string; stderr: string }): string {
  assert.equal(r.status, 0, r.stdout + r.stderr);
  return r.stdout + r.stderr;
}

/** The sample project with defaulting + validation on Memcached v1alpha1, converted to v1beta1, webhooks deployed. */
function webhookProject(): string {
  const project = sampleProject();
  must(opGen(project, 'create', 'api', '--group', 'cache', '--version', 'v1beta1', '--kind', 'Memcached'));
  mkdirSync(join(project, 'src', 'webhooks'), { recursive: true });
  writeFileSync(join(project, 'src', 'webhooks', 'memcached.webhook.ts'), HANDLER);
  const projectFile = join(project, 'op-gen.yaml');
  const p = parse(readFileSync(projectFile, 'utf8')) as Doc;
  p.resources[0].webhooks = { defaulting: true, validation: true, conversion: true, spokes: ['v1beta1'] };
  writeFileSync(projectFile, stringify(p));
  must(opGen(project, 'generate', 'webhook'));
  const defaults = join(project, 'config', 'default', 'kustomization.yaml');
  writeFileSync(
    defaults,
    readFileSync(defaults, 'utf8').replace(
      '  - ../manager\n',
      '  - ../manager\n  - ../webhook\n  - ../certmanager\n',
    ),
  );
  return project;
}

describe('op-gen bundle with webhooks', () => {
  let project = '';
  let output = '';
  before(() => {
    project = webhookProject();
    output = must(opGen(project, ...ARGS));
  });

  it('writes spec.webhookdefinitions as operator-sdk does (golden)', () => {
    const csv = parse(readFileSync(join(project, CSV), 'utf8')) as Doc;
    const actual = stringify(csv.spec.webhookdefinitions);
    assertGolden(GOLDEN, actual);
    const names = (csv.spec.webhookdefinitions as Doc[]).map((d) => `${d.type} ${d.generateName}`);
    assert.deepEqual(names, [
      'ConversionWebhook cmemcacheds.kb.io',
      'MutatingAdmissionWebhook mmemcached-v1alpha1.kb.io',
      'ValidatingAdmissionWebhook vmemcached-v1alpha1.kb.io',
    ]);
    for (const d of csv.spec.webhookdefinitions as Doc[]) {
      assert.equal(d.deploymentName, csv.spec.install.spec.deployments[0].name);
      assert.equal(d.containerPort, 443);
      assert.equal(d.targetPort, 9443);
    }
  });

  it('leaves out the webhook Service and the cert-manager objects, without warnings (OLM provides them)', () => {
    const files = readdirSync(join(project, 'bundle', 'manifests'));
    assert.ok(
      !files.some((f) => /webhook-service|issuer|certificate|webhookconfiguration/i.test(f)),
      files.join(', '),
    );
    assert.doesNotMatch(output, /left out/);
  });

  it('passes bundle validate, OLM v1 readiness included (webhooks with AllNamespaces only)', () => {
    const findings = validateBundle(join(project, 'bundle'));
    assert.deepEqual(
      findings.filter((f) => f.severity === 'error'),
      [],
    );
    assert.deepEqual(
      validateBundle(join(project, 'bundle'), { olmV1: true }).filter((f) => f.rule.startsWith('olmv1-')),
      [],
    );
  });

  it('op-gen catalog of this bundle (webhooks, two CRD versions): one olm.gvk per served version; a valid catalog', () => {
    must(
      opGen(
        project,
        'catalog',
        'bundle',
        '--bundle-image',
        'example.com/memcached-operator-bundle:v{version}',
      ),
    );
    const docs = parseAllDocuments(
      readFileSync(join(project, 'catalog/memcached-operator/catalog.yaml'), 'utf8'),
    ).map((d) => d.toJS() as Doc);
    const bundle = docs.find((d) => d.schema === 'olm.bundle');
    assert.ok(bundle, 'the catalog has an olm.bundle');
    assert.deepEqual(
      (bundle.properties as Doc[]).filter((p) => p.type === 'olm.gvk').map((p) => p.value.version),
      ['v1alpha1', 'v1beta1'],
    );
    const metadata = (bundle.properties as Doc[]).find((p) => p.type === 'olm.csv.metadata')?.value as Doc;
    assert.deepEqual(
      (metadata.installModes as Doc[]).filter((m) => m.supported).map((m) => m.type),
      ['AllNamespaces'],
    );
    assert.deepEqual(
      docs.map((d) => d.schema),
      ['olm.package', 'olm.channel', 'olm.bundle'],
    );
    must(opGen(project, 'catalog', 'validate', 'catalog/memcached-operator/catalog.yaml'));
  });

  const broken: [string, string, (csv: Doc) => void][] = [
    ['csv-webhook-fields', 'type "Admission"', (c) => void (c.spec.webhookdefinitions[1].type = 'Admission')],
    [
      'csv-webhook-fields',
      'sideEffects is required',
      (c) => void delete c.spec.webhookdefinitions[1].sideEffects,
    ],
    [
      'csv-webhook-fields',
      'admissionReviewVersions is required',
      (c) => void (c.spec.webhookdefinitions[2].admissionReviewVersions = []),
    ],
    [
      'csv-webhook-fields',
      'containerPort 70000',
      (c) => void (c.spec.webhookdefinitions[2].containerPort = 70000),
    ],
    [
      'csv-webhook-fields',
      'timeoutSeconds 45',
      (c) => void (c.spec.webhookdefinitions[2].timeoutSeconds = 45),
    ],
    [
      'csv-webhook-unique-name',
      'used twice',
      (c) => void (c.spec.webhookdefinitions[2].generateName = 'mmemcached-v1alpha1.kb.io'),
    ],
    [
      'csv-webhook-rules',
      'all groups',
      (c) => void (c.spec.webhookdefinitions[1].rules[0].apiGroups = ['*']),
    ],
    [
      'csv-webhook-rules',
      'OLM group',
      (c) => void c.spec.webhookdefinitions[1].rules[0].apiGroups.push('operators.coreos.com'),
    ],
    [
      'csv-webhook-deployment',
      'not a deployment of spec.install',
      (c) => void (c.spec.webhookdefinitions[0].deploymentName = 'elsewhere'),
    ],
    [
      'csv-conversion-crds',
      'needs conversionCRDs',
      (c) => void delete c.spec.webhookdefinitions[0].conversionCRDs,
    ],
    [
      'csv-conversion-crds',
      'not owned',
      (c) => void c.spec.webhookdefinitions[0].conversionCRDs.push('others.example.com'),
    ],
    [
      'csv-conversion-install-modes',
      'only the AllNamespaces install mode',
      (c) => void (c.spec.installModes.find((m: Doc) => m.type === 'OwnNamespace').supported = true),
    ],
  ];
  for (const [rule, message, breakIt] of broken) {
    it(`bundle validate: ${rule} (${message})`, () => {
      // a copy of the webhook project's bundle, with the CSV broken one way
      const bundleDir = mkdtempSync(join(tmpdir(), 'op-gen-bundle-broken-'));
      for (const sub of ['manifests', 'metadata']) {
        mkdirSync(join(bundleDir, sub));
        for (const f of readdirSync(join(project, 'bundle', sub)))
          writeFileSync(join(bundleDir, sub, f), readFileSync(join(project, 'bundle', sub, f)));
      }
      const csvPath = join(bundleDir, 'manifests', 'memcached-operator.clusterserviceversion.yaml');
      const csv = parse(readFileSync(csvPath, 'utf8')) as Doc;
      breakIt(csv);
      writeFileSync(csvPath, stringify(csv));
      const errors = validateBundle(bundleDir).filter((f) => f.severity === 'error');
      assert.ok(
        errors.some((f) => f.rule === rule && f.message.includes(message)),
        `expected ${rule} "${message}", got ${JSON.stringify(errors)}`,
      );
    });
  }
});
