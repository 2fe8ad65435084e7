import assert from 'node:assert/strict';
import { cpSync, existsSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { parse, parseAllDocuments, parseDocument, stringify } from 'yaml';
import { validateBundle } from '../../../src/bundle/index.ts';
import { assertGoldenDir } from '../../helpers/golden.ts';
import { opGen, sampleProject } from './project.ts';

const GOLDEN = new URL('../../golden/bundle/', import.meta.url).pathname;
const DOCKERFILE = 'bundle.Dockerfile';
const CSV = 'bundle/manifests/memcached-operator.clusterserviceversion.yaml';
const ANNOTATIONS = 'bundle/metadata/annotations.yaml';

/** Every file under `dir`, relative to it, sorted. */
function filesUnder(dir: string, prefix = ''): string[] {
  return readdirSync(join(dir, prefix), { withFileTypes: true })
    .flatMap((e) => (e.isDirectory() ? filesUnder(dir, join(prefix, e.name)) : [join(prefix, e.name)]))
    .sort();
}
const ARGS = [
  'bundle',
  '--version',
  '0.1.0',
  '--channels',
  'alpha,stable',
  '--default-channel',
  'stable',
  '--image',
  'example.com/memcached-operator:0.1.0',
  '--created-at',
  '2026-01-01T00:00:00Z',
];

function bundled(): string {
  const project = sampleProject();
  const r = opGen(project, ...ARGS);
  assert.equal(r.status, 0, r.stderr);
  return project;
}

type Edit = (dir: string) => void;
/**
 * A YAML document as the tests edit it: any path may be read or assigned. Typing every manifest shape
 * here would only restate the CSV schema; the assertions check the results.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Doc = Record<string, any>;
function editYaml(file: string, fn: (doc: Doc) => void): void {
  const doc = parse(readFileSync(file, 'utf8')) as Doc;
  fn(doc);
  writeFileSync(file, stringify(doc));
}
function editText(file: string, fn: (text: string) => string): void {
  const text = readFileSync(file, 'utf8');
  const edited = fn(text);
  assert.notEqual(edited, text, `the edit changes ${file}`);
  writeFileSync(file, edited);
}
/** Writes a config/ file and lists it in its folder's kustomization.yaml, as a user adds a resource. */
function addResource(project: string, file: string, content: string): void {
  writeFileSync(join(project, file), content);
  const kustomization = join(project, file, '..', 'kustomization.yaml');
  const doc = parseDocument(readFileSync(kustomization, 'utf8'));
  doc.addIn(['resources'], file.split('/').pop());
  writeFileSync(kustomization, doc.toString());
}
/** A ClusterRoleBinding of the scaffold's metrics-reader ClusterRole, as YAML. */
function metricsReaderBinding(name: string, subjects: object[]): string {
  return stringify({
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRoleBinding',
    metadata: { name },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'metrics-reader' },
    subjects,
  });
}
const csvOf = (dir: string): string =>
  join(dir, 'manifests', 'memcached-operator.clusterserviceversion.yaml');
const crdOf = (dir: string): string => join(dir, 'manifests', 'cache.example.com_memcacheds.yaml');

describe('op-gen bundle', () => {
  it("writes the sample project's bundle, equal to the goldens, and validates it with zero errors", () => {
    const project = bundled();
    const written = [DOCKERFILE, ...filesUnder(join(project, 'bundle')).map((f) => join('bundle', f))];
    assertGoldenDir(GOLDEN, new Map(written.map((f) => [f, readFileSync(join(project, f), 'utf8')])));
    const errors = validateBundle(join(project, 'bundle')).filter((f) => f.severity === 'error');
    assert.deepEqual(errors, []);
    const r = opGen(project, 'bundle', 'validate');
    assert.equal(r.status, 0);
    assert.match(r.stdout, /bundle valid: 0 errors/);
    assert.equal(opGen(project, ...ARGS, '--check').status, 0, '--check on an up-to-date bundle');
    // Ready for OLM v1 as scaffolded: AllNamespaces, no dependencies, the manager's own ServiceAccount.
    const v1 = opGen(project, 'bundle', 'validate', '--olm-v1');
    assert.equal(v1.status, 0, v1.stdout + v1.stderr);
    assert.doesNotMatch(v1.stdout, /olmv1-/);
  });

  it('bundle validate --olm-v1 fails a bundle OLM v1 refuses, naming the rule and what to do', () => {
    const project = bundled();
    const csvFile = join(project, CSV);
    const csv = parse(readFileSync(csvFile, 'utf8')) as Doc;
    for (const m of csv.spec.installModes as Doc[]) m.supported = m.type === 'OwnNamespace';
    writeFileSync(csvFile, stringify(csv));
    const warned = opGen(project, 'bundle', 'validate');
    assert.equal(warned.status, 0, 'without --olm-v1 it is a warning');
    assert.match(warned.stdout, /WARNING \[olmv1-all-namespaces\]/);
    const failed = opGen(project, 'bundle', 'validate', '--olm-v1');
    assert.equal(failed.status, 1);
    assert.match(
      failed.stdout,
      /ERROR +\[olmv1-all-namespaces\] .*clusterserviceversion\.yaml: .*set AllNamespaces supported: true/,
    );
  });

  it('builds the install strategy, permissions and owned CRDs from config/', () => {
    const project = bundled();
    const csv = parse(readFileSync(join(project, CSV), 'utf8')) as Doc;
    assert.equal(csv.metadata.name, 'memcached-operator.v0.1.0');
    assert.equal(csv.spec.version, '0.1.0');
    const dep = csv.spec.install.spec.deployments[0];
    assert.equal(dep.name, 'memcached-operator-controller-manager');
    assert.equal(dep.spec.template.spec.containers[0].image, 'example.com/memcached-operator:0.1.0');
    const sa = dep.spec.template.spec.serviceAccountName;
    assert.equal(csv.spec.install.spec.clusterPermissions[0].serviceAccountName, sa);
    assert.ok(
      csv.spec.install.spec.clusterPermissions[0].rules.some((r: Doc) => r.resources?.includes('memcacheds')),
    );
    assert.ok(
      csv.spec.install.spec.permissions[0].rules.some((r: Doc) => r.resources?.includes('leases')),
      'leader election Role',
    );
    assert.deepEqual(
      csv.spec.customresourcedefinitions.owned.map((o: Doc) => [o.name, o.version, o.kind]),
      [['memcacheds.cache.example.com', 'v1alpha1', 'Memcached']],
    );
    assert.equal(JSON.parse(csv.metadata.annotations['alm-examples'])[0].kind, 'Memcached');
    const annotations = parse(readFileSync(join(project, ANNOTATIONS), 'utf8')).annotations;
    const dockerfile = readFileSync(join(project, DOCKERFILE), 'utf8');
    for (const [k, v] of Object.entries(annotations))
      assert.ok(dockerfile.includes(`LABEL ${k}=${String(v)}`));
  });

  describe('bad input: a clear error and nothing written', () => {
    const cases: [string, Edit, string[], RegExp][] = [
      [
        'a version that is not semver',
        () => {},
        ['--version', '1.0'],
        /--version 1\.0: not a semantic version/,
      ],
      [
        'a missing base CSV field',
        (p) =>
          editYaml(
            join(p, 'config/manifests/bases/memcached-operator.clusterserviceversion.yaml'),
            (d) => delete d.spec.maintainers,
          ),
        [],
        /spec\.maintainers missing or empty/,
      ],
      [
        'a sample of a kind the bundle does not own',
        (p) =>
          addResource(
            p,
            'config/samples/other.yaml',
            'apiVersion: other.example.com/v1\nkind: Other\nmetadata:\n  name: o\n',
          ),
        [],
        /config\/samples\/other\.yaml: a sample of Other .*does not own/,
      ],
      [
        'a missing CRD',
        (p) => rmSync(join(p, 'config/crd/bases'), { recursive: true }),
        [],
        /no CRDs\. Run `op-gen generate crd`/,
      ],
      [
        'no manager Deployment',
        (p) =>
          writeFileSync(
            join(p, 'config/manager/manager.yaml'),
            'apiVersion: v1\nkind: Namespace\nmetadata:\n  name: system\n',
          ),
        [],
        /config\/manager: no Deployment/,
      ],
      [
        // Found by the project-files fuzz: `tem#plate:` (a # inside a key) was an internal error.
        'a manager Deployment without its pod template',
        (p) =>
          editText(join(p, 'config/manager/manager.yaml'), (t) =>
            t.replace('\n  template:\n', '\n  tem#plate:\n'),
          ),
        [],
        /config\/manager\/manager\.yaml: Deployment spec\.template: must be a mapping, found nothing\. The bundle's install strategy is built from this Deployment\./,
      ],
      [
        // Found by the project-files fuzz (an indented line moved `kind:` under another key).
        'a CRD the CSV cannot be built from',
        (p) =>
          editText(join(p, 'config/crd/bases/cache.example.com_memcacheds.yaml'), (t) =>
            t.replace('\n  names:\n', '\n  nam:\n'),
          ),
        [],
        /config\/crd\/bases\/cache\.example\.com_memcacheds\.yaml: spec\.names: must be a mapping, found nothing\. Run `op-gen generate crd`\./,
      ],
      [
        'a container list that is a mapping',
        (p) =>
          editText(join(p, 'config/manager/manager.yaml'), (t) =>
            t.replace('\n      containers:\n', '\n      containers: {}\n      x:\n'),
          ),
        [],
        /config\/manager\/manager\.yaml: Deployment spec\.template\.spec\.containers: must be a list of containers, found a mapping/,
      ],
    ];
    for (const [name, edit, extra, message] of cases) {
      it(name, () => {
        const project = sampleProject();
        edit(project);
        const base = ARGS.filter(
          (a, i) => !(extra.includes('--version') && (a === '--version' || ARGS[i - 1] === '--version')),
        );
        const r = opGen(project, ...base, ...extra);
        assert.equal(r.status, 1, r.stdout);
        assert.match(r.stderr, message);
        assert.equal(existsSync(join(project, 'bundle')), false, 'nothing written');
        assert.equal(existsSync(join(project, 'bundle.Dockerfile')), false);
      });
    }
  });

  describe('bundle validate fails each broken bundle with its rule', () => {
    const good = bundled();
    const cases: [string, Edit][] = [
      ['bundle-one-csv', (d) => cpSync(csvOf(d), join(d, 'manifests', 'second.clusterserviceversion.yaml'))],
      ['csv-name', (d) => editYaml(csvOf(d), (c) => (c.metadata.name = 'Bad_Name'))],
      ['csv-version-semver', (d) => editYaml(csvOf(d), (c) => (c.spec.version = '1.0'))],
      ['csv-replaces', (d) => editYaml(csvOf(d), (c) => (c.spec.replaces = 'Not A Name'))],
      ['csv-skips', (d) => editYaml(csvOf(d), (c) => (c.spec.skips = ['bad skip']))],
      [
        'csv-skip-range',
        (d) => editYaml(csvOf(d), (c) => (c.metadata.annotations['olm.skipRange'] = 'sometime')),
      ],
      [
        'csv-install-modes',
        (d) => editYaml(csvOf(d), (c) => c.spec.installModes.forEach((m: Doc) => (m.supported = false))),
      ],
      [
        'csv-owned-crd-fields',
        (d) => editYaml(csvOf(d), (c) => delete c.spec.customresourcedefinitions.owned[0].version),
      ],
      [
        'csv-alm-examples',
        (d) => editYaml(csvOf(d), (c) => (c.metadata.annotations['alm-examples'] = '[{not json')),
      ],
      ['bundle-owned-crd-present', (d) => rmSync(crdOf(d))],
      [
        'bundle-owned-crd-match',
        (d) => editYaml(csvOf(d), (c) => (c.spec.customresourcedefinitions.owned[0].kind = 'Memcache')),
      ],
      ['bundle-crd-owned', (d) => editYaml(csvOf(d), (c) => (c.spec.customresourcedefinitions.owned = []))],
      [
        'crd-valid',
        (d) => editYaml(crdOf(d), (c) => c.spec.versions.push({ ...c.spec.versions[0], name: 'v1' })),
      ],
      [
        'bundle-annotations',
        (d) =>
          editYaml(
            join(d, 'metadata', 'annotations.yaml'),
            (a) => delete a.annotations['operators.operatorframework.io.bundle.package.v1'],
          ),
      ],
      [
        'bundle-supported-kinds',
        (d) =>
          writeFileSync(
            join(d, 'manifests', 'deploy.yaml'),
            'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: x\n',
          ),
      ],
      [
        'bundle-dockerfile-labels',
        (d) =>
          writeFileSync(
            join(d, '..', 'bundle.Dockerfile'),
            readFileSync(join(d, '..', 'bundle.Dockerfile'), 'utf8').replace(
              'channels.v1=alpha,stable',
              'channels.v1=alpha',
            ),
          ),
      ],
    ];
    for (const [rule, edit] of cases) {
      it(rule, () => {
        const root = join(sampleProject(), '..');
        cpSync(join(good, 'bundle'), join(root, 'bundle'), { recursive: true });
        cpSync(join(good, 'bundle.Dockerfile'), join(root, 'bundle.Dockerfile'));
        edit(join(root, 'bundle'));
        const errors = validateBundle(join(root, 'bundle')).filter((f) => f.severity === 'error');
        assert.ok(errors.length > 0, 'expected an error');
        assert.ok(
          errors.some((e) => e.rule === rule),
          `expected rule ${rule}, got ${errors.map((e) => e.rule).join(', ')}`,
        );
        const r = opGen(root, 'bundle', 'validate', 'bundle');
        assert.equal(r.status, 1);
        assert.match(r.stdout, new RegExp(`ERROR +\\[${rule}\\]`));
      });
    }
  });

  it("defaults --version to the project's package.json version (npm run bundle works as scaffolded)", () => {
    const project = sampleProject();
    const r = opGen(project, 'bundle', '--created-at', '2026-01-01T00:00:00Z');
    assert.equal(r.status, 0, r.stderr);
    const csv = parse(readFileSync(join(project, CSV), 'utf8')) as Doc;
    assert.equal(csv.metadata.name, 'memcached-operator.v0.0.1');
  });

  it('reads spec/status descriptors, display name and resources from @csv: markers on the API types', () => {
    const project = sampleProject();
    const types = join(project, 'src/api/cache/v1alpha1/memcached.ts');
    let src = readFileSync(types, 'utf8');
    src = src.replace(
      ' * @kind\n',
      ' * @kind\n * @csv:displayName Memcached Cluster\n * @csv:resource kind=Deployment version=v1\n',
    );
    src = src.replace(
      /(\n {2}\/\*\*\n {3}\* Number of replicas[^\n]*\n)/,
      '$1   * @csv:descriptor displayName=Size xDescriptors=urn:alm:descriptor:com.tectonic.ui:podCount\n',
    );
    src = src.replace(
      /(\n {3}\* @listType map\n)/,
      '\n   * @csv:descriptor xDescriptors=urn:alm:descriptor:io.kubernetes.conditions$1',
    );
    writeFileSync(types, src);
    assert.equal(opGen(project, 'generate', 'crd').status, 0, 'generate crd ignores @csv: tags');
    const r = opGen(project, ...ARGS);
    assert.equal(r.status, 0, r.stderr);
    const owned = (parse(readFileSync(join(project, CSV), 'utf8')) as Doc).spec.customresourcedefinitions
      .owned[0];
    assert.equal(owned.displayName, 'Memcached Cluster');
    assert.deepEqual(owned.resources, [{ kind: 'Deployment', version: 'v1' }]);
    assert.deepEqual(
      owned.specDescriptors.map((d: Doc) => [d.path, d.displayName, d['x-descriptors']]),
      [['size', 'Size', ['urn:alm:descriptor:com.tectonic.ui:podCount']]],
    );
    assert.equal(owned.statusDescriptors[0].path, 'conditions');
    assert.deepEqual(owned.statusDescriptors[0]['x-descriptors'], [
      'urn:alm:descriptor:io.kubernetes.conditions',
    ]);
  });

  it('--optional-suite operatorhub adds the OperatorHub checks', () => {
    const project = bundled();
    const r = opGen(project, 'bundle', 'validate', '--optional-suite', 'operatorhub');
    assert.equal(r.status, 1);
    assert.match(r.stdout, /ERROR +\[operatorhub-icon\]/);
    assert.match(r.stdout, /WARNING \[csv-icon\]/);
  });

  it('warns about APIs Kubernetes removed; with the OperatorHub suite, an error when minKubeVersion lacks them', () => {
    const project = bundled();
    const bundle = join(project, 'bundle');
    writeFileSync(
      join(bundle, 'manifests', 'pdb_policy_v1beta1_poddisruptionbudget.yaml'),
      'apiVersion: policy/v1beta1\nkind: PodDisruptionBudget\nmetadata:\n  name: pdb\nspec:\n  minAvailable: 1\n',
    );
    const findings = validateBundle(bundle);
    assert.deepEqual(
      findings.filter((f) => f.rule.includes('removed-apis')).map((f) => [f.severity, f.message]),
      [
        [
          'warning',
          'manifests/pdb_policy_v1beta1_poddisruptionbudget.yaml: PodDisruptionBudget policy/v1beta1 was removed in Kubernetes 1.25; use policy/v1',
        ],
      ],
    );
    editYaml(csvOf(bundle), (c) => (c.spec.minKubeVersion = '1.24.0'));
    const old = validateBundle(bundle, { optionalSuites: ['operatorhub'] });
    assert.ok(
      old.some((f) => f.rule === 'bundle-removed-apis' && f.severity === 'warning'),
      '1.24 still has it',
    );
    editYaml(csvOf(bundle), (c) => (c.spec.minKubeVersion = '1.25.0'));
    const hub = validateBundle(bundle, { optionalSuites: ['operatorhub'] });
    assert.ok(hub.some((f) => f.rule === 'operatorhub-removed-apis' && f.severity === 'error'));
    assert.ok(!hub.some((f) => f.rule === 'bundle-removed-apis'));
  });

  it('keeps the manifests it writes to kinds OLM accepts', () => {
    const project = bundled();
    const kinds = readdirSync(join(project, 'bundle', 'manifests')).flatMap((f) =>
      parseAllDocuments(readFileSync(join(project, 'bundle', 'manifests', f), 'utf8')).map((d) =>
        String(d.get('kind')),
      ),
    );
    assert.ok(kinds.includes('ClusterServiceVersion') && kinds.includes('CustomResourceDefinition'));
    // OLM's list (operator-registry's supported bundle kinds), written out here rather than read from
    // src/bundle/supported-kinds.ts, the code under test.
    const olmAccepts = new Set([
      'ClusterServiceVersion',
      'CustomResourceDefinition',
      'Service',
      'ConfigMap',
      'Secret',
      'ServiceAccount',
      'Role',
      'RoleBinding',
      'ClusterRole',
      'ClusterRoleBinding',
      'PrometheusRule',
      'ServiceMonitor',
      'PodDisruptionBudget',
      'PriorityClass',
      'VerticalPodAutoscaler',
      'ConsoleYAMLSample',
      'ConsoleQuickStart',
      'ConsoleCLIDownload',
      'ConsoleLink',
    ]);
    for (const kind of kinds) assert.ok(olmAccepts.has(kind), `${kind} is a kind OLM installs`);
  });

  it('ships the supporting manifests of config/ (Services, ConfigMaps, unbound roles), prefixed and without namespace', () => {
    const project = sampleProject();
    writeFileSync(
      join(project, 'config/default/metrics_service.yaml'),
      stringify({
        apiVersion: 'v1',
        kind: 'Service',
        metadata: { name: 'controller-manager-metrics-service', namespace: 'system' },
        spec: { selector: { 'control-plane': 'controller-manager' }, ports: [{ name: 'https', port: 8443 }] },
      }),
    );
    addResource(
      project,
      'config/manager/settings.yaml',
      'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n  namespace: system\ndata:\n  a: b\n',
    );
    addResource(
      project,
      'config/rbac/prometheus_binding.yaml',
      metricsReaderBinding('prometheus-metrics-reader', [
        { kind: 'ServiceAccount', name: 'prometheus-k8s', namespace: 'monitoring' },
      ]),
    );
    addResource(
      project,
      'config/default/network_policy.yaml',
      'apiVersion: networking.k8s.io/v1\nkind: NetworkPolicy\nmetadata:\n  name: allow-metrics\nspec: {}\n',
    );
    const r = opGen(project, ...ARGS);
    assert.equal(r.status, 0, r.stderr);
    assert.match(
      r.stderr,
      /warning: config\/default\/network_policy\.yaml: NetworkPolicy allow-metrics: OLM does not install this kind/,
    );
    const dir = join(project, 'bundle', 'manifests');
    const read = (f: string): Doc => parse(readFileSync(join(dir, f), 'utf8')) as Doc;
    const service = read('memcached-operator-controller-manager-metrics-service_v1_service.yaml');
    assert.equal(service.metadata.name, 'memcached-operator-controller-manager-metrics-service');
    assert.equal(service.metadata.namespace, undefined, 'OLM picks the namespace');
    assert.equal(read('memcached-operator-settings_v1_configmap.yaml').data.a, 'b');
    const binding = read(
      'memcached-operator-prometheus-metrics-reader_rbac.authorization.k8s.io_v1_clusterrolebinding.yaml',
    );
    assert.equal(binding.roleRef.name, 'memcached-operator-metrics-reader', "our role's name is prefixed");
    assert.deepEqual(
      binding.subjects,
      [{ kind: 'ServiceAccount', name: 'prometheus-k8s', namespace: 'monitoring' }],
      'a ServiceAccount that is not ours keeps its name and namespace',
    );
    const files = readdirSync(dir);
    assert.ok(
      files.includes('memcached-operator-metrics-reader_rbac.authorization.k8s.io_v1_clusterrole.yaml'),
    );
    assert.ok(!files.some((f) => f.includes('networkpolicy')));
    assert.ok(
      !files.some(
        (f) => f.includes('manager-role') || f.includes('leader-election') || f.includes('serviceaccount'),
      ),
      "the manager's roles, bindings and ServiceAccount are in the CSV's permissions, not copied",
    );
    const errors = validateBundle(join(project, 'bundle')).filter((f) => f.severity === 'error');
    assert.deepEqual(errors, []);
  });

  it("a binding that includes the manager's ServiceAccount makes its role the manager's: in the CSV, not copied", () => {
    const project = sampleProject();
    addResource(
      project,
      'config/rbac/shared_binding.yaml',
      metricsReaderBinding('shared-metrics-reader', [
        { kind: 'ServiceAccount', name: 'controller-manager', namespace: 'system' },
        { kind: 'ServiceAccount', name: 'prometheus-k8s', namespace: 'monitoring' },
      ]),
    );
    const r = opGen(project, ...ARGS);
    assert.equal(r.status, 0, r.stderr);
    const csv = parse(readFileSync(join(project, CSV), 'utf8')) as Doc;
    assert.ok(
      csv.spec.install.spec.clusterPermissions[0].rules.some((rule: Doc) =>
        rule.nonResourceURLs?.includes('/metrics'),
      ),
      "metrics-reader's rules are the manager's",
    );
    const files = readdirSync(join(project, 'bundle/manifests'));
    assert.ok(!files.some((f) => f.includes('metrics-reader')), files.join(', '));
  });

  it("ships config/prometheus's ServiceMonitor only when config/default deploys ../prometheus", () => {
    const project = sampleProject();
    const monitor =
      'memcached-operator-controller-manager-metrics-monitor_monitoring.coreos.com_v1_servicemonitor.yaml';
    assert.equal(opGen(project, ...ARGS).status, 0);
    assert.ok(!readdirSync(join(project, 'bundle/manifests')).includes(monitor), 'off as scaffolded');
    editYaml(join(project, 'config/default/kustomization.yaml'), (k) => k.resources.push('../prometheus'));
    const r = opGen(project, ...ARGS);
    assert.equal(r.status, 0, r.stderr);
    const sm = parse(readFileSync(join(project, 'bundle/manifests', monitor), 'utf8')) as Doc;
    assert.equal(sm.spec.endpoints[0].port, 'https');
    assert.equal(sm.metadata.namespace, undefined);
  });

  it("reads the files each config/ folder's kustomization.yaml lists, as kubectl apply -k deploys them", () => {
    const project = sampleProject();
    writeFileSync(
      join(project, 'config/default/draft_service.yaml'),
      'apiVersion: v1\nkind: Service\nmetadata:\n  name: draft\n',
    );
    const r = opGen(project, ...ARGS);
    assert.equal(r.status, 0, r.stderr);
    assert.ok(
      !readdirSync(join(project, 'bundle/manifests')).some((f) => f.includes('draft')),
      'a file the kustomization does not list is not deployed, so not bundled',
    );
    editYaml(join(project, 'config/default/kustomization.yaml'), (k) => k.resources.push('gone.yaml'));
    const missing = opGen(project, ...ARGS);
    assert.equal(missing.status, 1);
    assert.match(
      missing.stderr,
      /config\/default\/kustomization\.yaml: resources lists gone\.yaml, which does not exist/,
    );
  });

  it('removes stale files from bundle/manifests, and --check counts them', () => {
    const project = bundled();
    const stale = join(project, 'bundle/manifests/old-service_v1_service.yaml');
    writeFileSync(stale, 'apiVersion: v1\nkind: Service\nmetadata:\n  name: old-service\n');
    const check = opGen(project, ...ARGS, '--check');
    assert.equal(check.status, 1);
    assert.match(check.stderr, /bundle\/manifests\/old-service_v1_service\.yaml/);
    assert.ok(existsSync(stale), '--check writes nothing');
    const r = opGen(project, ...ARGS);
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /removed +bundle\/manifests\/old-service_v1_service\.yaml \(stale\)/);
    assert.equal(existsSync(stale), false);
    assert.equal(opGen(project, ...ARGS, '--check').status, 0);
  });

  it('refuses two config/ objects that would be the same bundle file', () => {
    const project = sampleProject();
    const cm = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n';
    addResource(project, 'config/manager/a.yaml', cm);
    addResource(project, 'config/default/b.yaml', cm);
    const r = opGen(project, ...ARGS);
    assert.equal(r.status, 1);
    assert.match(
      r.stderr,
      /config\/manager\/a\.yaml and config\/default\/b\.yaml: two ConfigMap objects named settings/,
    );
    assert.equal(existsSync(join(project, 'bundle')), false);
  });
});
