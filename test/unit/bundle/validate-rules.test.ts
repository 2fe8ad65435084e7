import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { parse, stringify } from 'yaml';
import { validateBundle, type Finding } from '../../../src/bundle/index.ts';
import { RULE_IDS } from '../../../src/bundle/validate.ts';

/**
 * Every rule of `op-gen bundle validate` (src/bundle/validate.ts), each made to fire on its own: a
 * bundle written here by hand passes every rule, OperatorHub's included, with zero findings; each case
 * breaks one thing and names exactly the rules that must then fire. The last test reads the rule ids
 * from the validator's source, so a new rule without a case here fails.
 */

// A CSV, CRD and annotations as the tests edit them (any path may be read or assigned).
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Doc = Record<string, any>;

const ANNOTATIONS: Record<string, string> = {
  'operators.operatorframework.io.bundle.mediatype.v1': 'registry+v1',
  'operators.operatorframework.io.bundle.manifests.v1': 'manifests/',
  'operators.operatorframework.io.bundle.metadata.v1': 'metadata/',
  'operators.operatorframework.io.bundle.package.v1': 'widget-operator',
  'operators.operatorframework.io.bundle.channels.v1': 'alpha',
};

function crd(): Doc {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'widgets.example.com' },
    spec: {
      group: 'example.com',
      names: { kind: 'Widget', listKind: 'WidgetList', plural: 'widgets', singular: 'widget' },
      scope: 'Namespaced',
      versions: [
        { name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object' } } },
      ],
    },
  };
}

function csv(): Doc {
  return {
    apiVersion: 'operators.coreos.com/v1alpha1',
    kind: 'ClusterServiceVersion',
    metadata: {
      name: 'widget-operator.v0.1.0',
      annotations: {
        'alm-examples': JSON.stringify([
          { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w' } },
        ]),
        capabilities: 'Basic Install',
        categories: 'Database, Storage',
      },
    },
    spec: {
      version: '0.1.0',
      displayName: 'Widget Operator',
      description: 'Runs widgets.',
      icon: [{ base64data: 'iVBORw0KGgo=', mediatype: 'image/png' }],
      provider: { name: 'Example' },
      maintainers: [{ name: 'Maintainer', email: 'maintainer@example.com' }],
      links: [{ name: 'Docs', url: 'https://example.com/docs' }],
      minKubeVersion: '1.30.0',
      installModes: [
        { type: 'OwnNamespace', supported: true },
        { type: 'SingleNamespace', supported: true },
        { type: 'MultiNamespace', supported: false },
        { type: 'AllNamespaces', supported: true },
      ],
      customresourcedefinitions: { owned: [{ name: 'widgets.example.com', version: 'v1', kind: 'Widget' }] },
      install: {
        strategy: 'deployment',
        spec: {
          deployments: [
            {
              name: 'widget-operator-controller-manager',
              spec: {
                template: {
                  spec: { containers: [{ name: 'manager', resources: { requests: { cpu: '10m' } } }] },
                },
              },
            },
          ],
        },
      },
    },
  };
}

interface Bundle {
  readonly dir: string;
  csv(edit: (c: Doc) => void): void;
  crd(edit: (c: Doc) => void): void;
  annotations(edit: (a: Record<string, string>) => void): void;
  write(file: string, object: Doc | string): void;
}

const root = mkdtempSync(join(tmpdir(), 'op-gen-validate-rules-'));
let made = 0;

/** A fresh, valid bundle in its own folder, with a bundle.Dockerfile beside it. */
function bundle(): Bundle {
  const project = join(root, String(made++));
  const dir = join(project, 'bundle');
  mkdirSync(join(dir, 'manifests'), { recursive: true });
  mkdirSync(join(dir, 'metadata'), { recursive: true });
  const csvFile = join(dir, 'manifests', 'widget-operator.clusterserviceversion.yaml');
  const crdFile = join(dir, 'manifests', 'example.com_widgets.yaml');
  const annotationsFile = join(dir, 'metadata', 'annotations.yaml');
  writeFileSync(csvFile, stringify(csv()));
  writeFileSync(crdFile, stringify(crd()));
  const writeAnnotations = (a: Record<string, string>): void => {
    writeFileSync(annotationsFile, stringify({ annotations: a }));
    writeFileSync(
      join(project, 'bundle.Dockerfile'),
      ['FROM scratch', ...Object.entries(a).map(([k, v]) => `LABEL ${k}=${v}`), ''].join('\n'),
    );
  };
  writeAnnotations(ANNOTATIONS);
  const edit = (file: string, fn: (d: Doc) => void): void => {
    const doc = parse(readFileSync(file, 'utf8')) as Doc;
    fn(doc);
    writeFileSync(file, stringify(doc));
  };
  return {
    dir,
    csv: (fn) => edit(csvFile, fn),
    crd: (fn) => edit(crdFile, fn),
    // Annotations and Dockerfile labels change together unless a case edits one alone.
    annotations: (fn) => {
      const a = { ...ANNOTATIONS };
      fn(a);
      writeAnnotations(a);
    },
    write: (file, object) =>
      writeFileSync(join(dir, file), typeof object === 'string' ? object : stringify(object)),
  };
}

const HUB = { optionalSuites: ['operatorhub'] };
const fired = (findings: readonly Finding[]): string[] =>
  [...new Set(findings.map((f) => `${f.severity} ${f.rule}`))].sort();

const PDB_V1BETA1 = {
  apiVersion: 'policy/v1beta1',
  kind: 'PodDisruptionBudget',
  metadata: { name: 'pdb' },
  spec: { minAvailable: 1 },
};

interface Case {
  /** What is broken. */
  readonly what: string;
  readonly edit: (b: Bundle) => void;
  /** With the OperatorHub suite. */
  readonly hub?: boolean;
  /** With --olm-v1 (the OLM v1 readiness rules as errors). */
  readonly olmV1?: boolean;
  /** Exactly the `severity rule` pairs that fire. */
  readonly fires: readonly string[];
}

const CASES: readonly Case[] = [
  {
    what: 'no manifests/ folder',
    edit: (b) => rmSync(join(b.dir, 'manifests'), { recursive: true }),
    fires: ['error bundle-manifests'],
  },
  {
    what: 'a Deployment in manifests/',
    edit: (b) =>
      b.write('manifests/deploy.yaml', {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: 'x' },
      }),
    fires: ['error bundle-supported-kinds'],
  },
  {
    what: 'two CSVs',
    edit: (b) => b.write('manifests/second.clusterserviceversion.yaml', csv()),
    fires: ['error bundle-one-csv'],
  },
  {
    what: 'a CSV name that is not DNS-1123',
    edit: (b) => b.csv((c) => (c.metadata.name = 'Bad_Name')),
    fires: ['error csv-name'],
  },
  {
    what: 'a version that is not semver',
    edit: (b) => b.csv((c) => (c.spec.version = '1.0')),
    fires: ['error csv-version-semver'],
  },
  {
    what: 'a bad replaces',
    edit: (b) => b.csv((c) => (c.spec.replaces = 'Not A Name')),
    fires: ['error csv-replaces'],
  },
  {
    what: 'a bad skips entry',
    edit: (b) => b.csv((c) => (c.spec.skips = ['bad skip'])),
    fires: ['error csv-skips'],
  },
  {
    what: 'a skipRange that is not a range',
    edit: (b) => b.csv((c) => (c.metadata.annotations['olm.skipRange'] = 'sometime')),
    fires: ['error csv-skip-range'],
  },
  {
    what: 'no install mode supported',
    edit: (b) => b.csv((c) => c.spec.installModes.forEach((m: Doc) => (m.supported = false))),
    fires: ['error csv-install-modes', 'warning olmv1-all-namespaces'],
  },
  {
    what: 'an unknown install mode',
    edit: (b) => b.csv((c) => (c.spec.installModes[2].type = 'EveryNamespace')),
    fires: ['error csv-install-modes'],
  },
  {
    what: 'an owned CRD entry without version',
    edit: (b) => b.csv((c) => delete c.spec.customresourcedefinitions.owned[0].version),
    fires: ['error bundle-owned-crd-present', 'error csv-owned-crd-fields'],
  },
  {
    what: 'alm-examples that is not JSON',
    edit: (b) => b.csv((c) => (c.metadata.annotations['alm-examples'] = '[{not json')),
    fires: ['error csv-alm-examples', 'warning csv-example-per-crd'],
  },
  {
    what: 'a CRD with two storage versions',
    edit: (b) => b.crd((c) => c.spec.versions.push({ ...c.spec.versions[0], name: 'v2' })),
    fires: ['error crd-valid'],
  },
  {
    what: 'the owned CRD missing from manifests/',
    edit: (b) => rmSync(join(b.dir, 'manifests', 'example.com_widgets.yaml')),
    fires: ['error bundle-owned-crd-present'],
  },
  {
    what: 'an owned CRD of another kind',
    edit: (b) => b.csv((c) => (c.spec.customresourcedefinitions.owned[0].kind = 'Gadget')),
    fires: ['error bundle-owned-crd-match', 'warning csv-example-owned', 'warning csv-example-per-crd'],
  },
  {
    what: 'a CRD the CSV neither owns nor requires',
    edit: (b) => b.csv((c) => (c.spec.customresourcedefinitions.owned = [])),
    fires: ['error bundle-crd-owned', 'warning csv-example-owned'],
  },
  {
    what: 'a mandatory annotation missing',
    edit: (b) => b.annotations((a) => delete a['operators.operatorframework.io.bundle.package.v1']),
    fires: ['error bundle-annotations'],
  },
  {
    what: 'no metadata/annotations.yaml',
    edit: (b) => rmSync(join(b.dir, 'metadata', 'annotations.yaml')),
    fires: ['error bundle-annotations'],
  },
  {
    what: 'a Dockerfile label that disagrees with the annotations',
    edit: (b) => writeFileSync(join(b.dir, '..', 'bundle.Dockerfile'), 'FROM scratch\n'),
    fires: ['error bundle-dockerfile-labels'],
  },
  {
    what: 'a channel name off the recommended list',
    edit: (b) =>
      b.annotations((a) => (a['operators.operatorframework.io.bundle.channels.v1'] = 'alpha,nightly')),
    fires: ['warning good-practice-channel'],
  },
  {
    what: 'no example for the owned CRD',
    edit: (b) => b.csv((c) => (c.metadata.annotations['alm-examples'] = '[]')),
    fires: ['warning csv-example-per-crd'],
  },
  {
    what: 'an example of a kind the CSV does not own',
    edit: (b) =>
      b.csv(
        (c) =>
          (c.metadata.annotations['alm-examples'] = JSON.stringify([
            { apiVersion: 'example.com/v1', kind: 'Widget' },
            { apiVersion: 'other.io/v1', kind: 'Gizmo' },
          ])),
      ),
    fires: ['warning csv-example-owned'],
  },
  {
    what: 'no description',
    edit: (b) => b.csv((c) => delete c.spec.description),
    fires: ['warning csv-description'],
  },
  { what: 'no icon', edit: (b) => b.csv((c) => delete c.spec.icon), fires: ['warning csv-icon'] },
  {
    what: 'an icon of an unsupported media type',
    edit: (b) => b.csv((c) => (c.spec.icon[0].mediatype = 'image/bmp')),
    fires: ['warning csv-icon-mediatype'],
  },
  { what: 'no provider', edit: (b) => b.csv((c) => delete c.spec.provider), fires: ['warning csv-provider'] },
  {
    what: 'no maintainers',
    edit: (b) => b.csv((c) => delete c.spec.maintainers),
    fires: ['warning csv-maintainers'],
  },
  {
    what: 'no minKubeVersion',
    edit: (b) => b.csv((c) => delete c.spec.minKubeVersion),
    fires: ['warning csv-min-kube-version'],
  },
  {
    what: 'a container without resource requests',
    edit: (b) =>
      b.csv((c) => delete c.spec.install.spec.deployments[0].spec.template.spec.containers[0].resources),
    fires: ['warning good-practice-requests'],
  },
  {
    what: 'an API Kubernetes removed',
    edit: (b) => b.write('manifests/pdb.yaml', PDB_V1BETA1),
    fires: ['warning bundle-removed-apis'],
  },
  {
    what: 'a bundle over 1 MiB',
    edit: (b) =>
      b.write('manifests/big.yaml', {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'big' },
        data: { blob: 'x'.repeat(1024 * 1024) },
      }),
    fires: ['warning bundle-size'],
  },
  {
    what: 'OperatorHub: an API removed before minKubeVersion',
    hub: true,
    edit: (b) => b.write('manifests/pdb.yaml', PDB_V1BETA1),
    fires: ['error operatorhub-removed-apis'],
  },
  {
    what: 'OperatorHub: unknown capabilities',
    hub: true,
    edit: (b) => b.csv((c) => (c.metadata.annotations.capabilities = 'Magic')),
    fires: ['error operatorhub-capabilities'],
  },
  {
    what: 'OperatorHub: unknown category',
    hub: true,
    edit: (b) => b.csv((c) => (c.metadata.annotations.categories = 'Database, Widgets')),
    fires: ['error operatorhub-categories'],
  },
  {
    what: 'OperatorHub: a maintainer without a valid email',
    hub: true,
    edit: (b) => b.csv((c) => (c.spec.maintainers[0].email = 'nobody')),
    fires: ['error operatorhub-maintainers'],
  },
  {
    what: 'OperatorHub: a link without a valid URL',
    hub: true,
    edit: (b) => b.csv((c) => (c.spec.links[0].url = 'not a url')),
    fires: ['error operatorhub-links'],
  },
  {
    what: 'OperatorHub: no provider',
    hub: true,
    edit: (b) => b.csv((c) => delete c.spec.provider),
    fires: ['error operatorhub-provider', 'warning csv-provider'],
  },
  {
    what: 'OperatorHub: no description',
    hub: true,
    edit: (b) => b.csv((c) => delete c.spec.description),
    fires: ['error operatorhub-description', 'warning csv-description'],
  },
  {
    what: 'OperatorHub: no icon',
    hub: true,
    edit: (b) => b.csv((c) => delete c.spec.icon),
    fires: ['error operatorhub-icon', 'warning csv-icon'],
  },
  {
    what: 'OperatorHub: no minKubeVersion',
    hub: true,
    edit: (b) => b.csv((c) => delete c.spec.minKubeVersion),
    fires: ['error operatorhub-min-kube-version', 'warning csv-min-kube-version'],
  },
  // OLM v1 readiness (src/bundle/olm-v1.ts): warnings by default, errors with --olm-v1.
  {
    what: 'OLM v1: AllNamespaces not supported (OwnNamespace only)',
    edit: (b) =>
      b.csv((c) => c.spec.installModes.forEach((m: Doc) => (m.supported = m.type === 'OwnNamespace'))),
    fires: ['warning olmv1-all-namespaces'],
  },
  {
    what: 'OLM v1 (--olm-v1): AllNamespaces not supported is an error',
    olmV1: true,
    edit: (b) =>
      b.csv((c) => c.spec.installModes.forEach((m: Doc) => (m.supported = m.type === 'SingleNamespace'))),
    fires: ['error olmv1-all-namespaces'],
  },
  {
    what: 'OLM v1 (--olm-v1): an olm.gvk dependency in metadata/dependencies.yaml',
    olmV1: true,
    edit: (b) =>
      b.write('metadata/dependencies.yaml', {
        dependencies: [
          {
            type: 'olm.gvk',
            value: { group: 'etcd.database.coreos.com', kind: 'EtcdCluster', version: 'v1beta2' },
          },
        ],
      }),
    fires: ['error olmv1-dependencies'],
  },
  {
    what: 'OLM v1: an olm.package.required property in metadata/properties.yaml',
    edit: (b) =>
      b.write('metadata/properties.yaml', {
        properties: [
          { type: 'olm.package.required', value: { packageName: 'etcd', versionRange: '>=0.9.0' } },
        ],
      }),
    fires: ['warning olmv1-dependencies'],
  },
  {
    what: "OLM v1: an olm.constraint in the CSV's operatorframework.io/properties annotation",
    edit: (b) =>
      b.csv(
        (c) =>
          (c.metadata.annotations['operatorframework.io/properties'] = JSON.stringify({
            properties: [{ type: 'olm.constraint', value: { failureMessage: 'x', cel: { rule: 'true' } } }],
          })),
      ),
    fires: ['warning olmv1-dependencies'],
  },
  {
    what: 'OLM v1: a required CRD in the CSV',
    edit: (b) =>
      b.csv(
        (c) =>
          (c.spec.customresourcedefinitions.required = [
            { name: 'etcdclusters.etcd.database.coreos.com', version: 'v1beta2', kind: 'EtcdCluster' },
          ]),
      ),
    fires: ['warning olmv1-dependencies'],
  },
  {
    what: 'OLM v1: permissions for a ServiceAccount no deployment runs as',
    edit: (b) =>
      b.csv((c) => {
        c.spec.install.spec.clusterPermissions = [
          {
            serviceAccountName: 'widget-operator',
            rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get'] }],
          },
        ];
        c.spec.install.spec.deployments[0].spec.template.spec.serviceAccountName = 'widget-operator';
        c.spec.install.spec.permissions = [
          {
            serviceAccountName: 'installer',
            rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get'] }],
          },
        ];
      }),
    fires: ['warning olmv1-service-account'],
  },
  {
    what: 'OLM v1: a deployment on the default ServiceAccount while the CSV grants permissions',
    edit: (b) =>
      b.csv((c) => {
        c.spec.install.spec.deployments[0].spec.template.spec.serviceAccountName = 'default';
        c.spec.install.spec.clusterPermissions = [
          {
            serviceAccountName: 'default',
            rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get'] }],
          },
        ];
      }),
    fires: ['warning olmv1-service-account'],
  },
  {
    what: "OLM v1: a ServiceAccount in manifests/ named like the CSV's permissions' account",
    edit: (b) => {
      b.csv((c) => {
        c.spec.install.spec.clusterPermissions = [
          {
            serviceAccountName: 'widget-operator',
            rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get'] }],
          },
        ];
        c.spec.install.spec.deployments[0].spec.template.spec.serviceAccountName = 'widget-operator';
      });
      b.write('manifests/sa.yaml', {
        apiVersion: 'v1',
        kind: 'ServiceAccount',
        metadata: { name: 'widget-operator' },
      });
    },
    fires: ['warning olmv1-service-account'],
  },
  {
    what: 'OLM v1: the operator is granted OperatorConditions',
    edit: (b) =>
      b.csv((c) => {
        c.spec.install.spec.deployments[0].spec.template.spec.serviceAccountName = 'widget-operator';
        c.spec.install.spec.permissions = [
          {
            serviceAccountName: 'widget-operator',
            rules: [
              {
                apiGroups: ['operators.coreos.com'],
                resources: ['operatorconditions'],
                verbs: ['get', 'update'],
              },
            ],
          },
        ];
      }),
    fires: ['warning olmv1-operator-conditions'],
  },
  {
    what: 'OLM v1: a container reads OPERATOR_CONDITION_NAME',
    edit: (b) =>
      b.csv(
        (c) =>
          (c.spec.install.spec.deployments[0].spec.template.spec.containers[0].env = [
            { name: 'OPERATOR_CONDITION_NAME', value: 'widget-operator.v0.1.0' },
          ]),
      ),
    fires: ['warning olmv1-operator-conditions'],
  },
  {
    what: 'OLM v1: admission webhooks with OwnNamespace and SingleNamespace supported too',
    edit: (b) =>
      b.csv(
        (c) =>
          (c.spec.webhookdefinitions = [
            {
              type: 'ValidatingAdmissionWebhook',
              generateName: 'vwidget.example.com',
              deploymentName: 'widget-operator-controller-manager',
              containerPort: 9443,
              sideEffects: 'None',
              admissionReviewVersions: ['v1'],
              failurePolicy: 'Fail',
              webhookPath: '/validate-example-com-v1-widget',
              rules: [
                {
                  apiGroups: ['example.com'],
                  apiVersions: ['v1'],
                  operations: ['CREATE'],
                  resources: ['widgets'],
                },
              ],
            },
          ]),
      ),
    fires: ['warning olmv1-webhooks-all-namespaces'],
  },
];

describe('bundle validate: every rule fires on the one problem it checks', () => {
  after(() => rmSync(root, { recursive: true, force: true }));

  it('the hand-written bundle is clean, with and without the OperatorHub suite', () => {
    const b = bundle();
    assert.deepEqual(validateBundle(b.dir), []);
    assert.deepEqual(validateBundle(b.dir, HUB), []);
    assert.deepEqual(validateBundle(b.dir, { olmV1: true }), []);
  });

  for (const c of CASES) {
    it(`${c.what}: ${c.fires.join(', ')}`, () => {
      const b = bundle();
      c.edit(b);
      const options = { ...(c.hub ? HUB : {}), ...(c.olmV1 ? { olmV1: true } : {}) };
      assert.deepEqual(fired(validateBundle(b.dir, options)), [...c.fires].sort());
    });
  }

  it('has a case for every rule in src/bundle/validate.ts', () => {
    const rules = RULE_IDS;
    const inSource = [...new Set(rules)].sort();
    const covered = [...new Set(CASES.flatMap((c) => c.fires.map((f) => f.split(' ')[1]!)))].sort();
    assert.ok(inSource.length >= 38, `read ${inSource.length} rules from validate.ts`);
    assert.deepEqual(
      inSource.filter((r) => !covered.includes(r)),
      [],
      'rules with no case here',
    );
  });
});
