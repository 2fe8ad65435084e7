import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parseAllDocuments } from 'yaml';
import { generateHelm } from '../../../src/generate/helm/index.ts';
import { buildInstaller } from '../../../src/installer/index.ts';
import { controlPlaneSkip, startControlPlane, type ControlPlane } from '../../../src/testing/index.ts';
import { toolPath, toolSkip } from '../../helpers/tools.ts';
import { sampleProject } from '../../unit/bundle/project.ts';
import { webhookProject } from '../../unit/scaffold/webhook-project.ts';
import { getAll, type ManifestObject } from '../installer/cluster-objects.ts';

const IMAGE = 'registry.example.com/demo:0.1.0';
// helm writes its cache, config and data here, not in the home folder.
const HELM_HOME = mkdtempSync(join(tmpdir(), 'op-gen-helm-home-'));

function helm(...args: string[]): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(toolPath('helm') as string, args, {
    encoding: 'utf8',
    env: {
      ...process.env,
      HELM_CACHE_HOME: join(HELM_HOME, 'cache'),
      HELM_CONFIG_HOME: join(HELM_HOME, 'config'),
      HELM_DATA_HOME: join(HELM_HOME, 'data'),
    },
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

const docs = (text: string): ManifestObject[] =>
  parseAllDocuments(text)
    .map((d) => d.toJS() as ManifestObject | null)
    .filter((o): o is ManifestObject => o !== null);

/**
 * An object as the comparison sees it: without the labels and annotation the chart adds on purpose
 * (app.kubernetes.io/managed-by: Helm instead of kustomize, helm.sh/chart, helm.sh/resource-policy:
 * keep on CRDs); empty maps left by that removal dropped.
 */
function comparable(o: ManifestObject): ManifestObject {
  const c = structuredClone(o);
  const m = c.metadata as { labels?: Record<string, string>; annotations?: Record<string, string> };
  if (m.labels) {
    delete m.labels['app.kubernetes.io/managed-by'];
    delete m.labels['helm.sh/chart'];
    if (Object.keys(m.labels).length === 0) delete m.labels;
  }
  if (m.annotations) {
    delete m.annotations['helm.sh/resource-policy'];
    if (Object.keys(m.annotations).length === 0) delete m.annotations;
  }
  return c;
}

const id = (o: ManifestObject): string =>
  `${o.apiVersion} ${o.kind} ${o.metadata.namespace ?? ''}/${o.metadata.name}`;

function assertTemplateMatchesInstaller(project: string, namespace: string): void {
  buildInstaller({ cwd: project, image: IMAGE, renderer: 'op-gen' });
  const installer = docs(readFileSync(join(project, 'dist/install.yaml'), 'utf8')).filter(
    (o) => o.kind !== 'Namespace',
  );
  const t = helm('template', 'demo', join(project, 'dist/chart'), '--namespace', namespace);
  assert.equal(t.status, 0, t.stderr);
  const rendered = docs(t.stdout);
  const sort = (list: ManifestObject[]): ManifestObject[] =>
    [...list].sort((a, b) => id(a).localeCompare(id(b)));
  assert.deepEqual(sort(rendered).map(id), sort(installer).map(id));
  for (const [i, o] of sort(rendered).entries()) {
    assert.deepEqual(comparable(o), comparable(sort(installer)[i] as ManifestObject), id(o));
  }
}

describe('the generated Helm chart with helm', { skip: toolSkip('helm') }, () => {
  it('a project with webhooks: helm lint is clean; helm template with default values == dist/install.yaml', async () => {
    const project = await webhookProject();
    await generateHelm({ cwd: project, image: IMAGE, renderer: 'op-gen' });
    const lint = helm('lint', '--strict', join(project, 'dist/chart'));
    assert.equal(lint.status, 0, `${lint.stdout}${lint.stderr}`);
    assert.doesNotMatch(lint.stdout, /\[(WARNING|ERROR)\]/);
    assertTemplateMatchesInstaller(project, 'demo-system');
  });

  it('toggles: webhook, cert-manager, metrics and leader election off', async () => {
    const project = await webhookProject();
    await generateHelm({ cwd: project, image: IMAGE, renderer: 'op-gen' });
    const t = helm(
      'template',
      'demo',
      join(project, 'dist/chart'),
      '--namespace',
      'elsewhere',
      '--set',
      'webhook.enable=false,certManager.enable=false,metrics.enable=false,manager.leaderElection=false,manager.replicas=2',
    );
    assert.equal(t.status, 0, t.stderr);
    const objects = docs(t.stdout);
    assert.deepEqual(
      objects
        .filter((o) => /Webhook|Certificate|Issuer/.test(o.kind) || o.metadata.name.includes('webhook'))
        .map(id),
      [],
    );
    const deployment = objects.find((o) => o.kind === 'Deployment') as unknown as {
      metadata: { namespace: string };
      spec: { replicas: number; template: { spec: { containers: { args: string[]; image: string }[] } } };
    };
    assert.equal(deployment.metadata.namespace, 'elsewhere');
    assert.equal(deployment.spec.replicas, 2);
    assert.deepEqual(deployment.spec.template.spec.containers[0]?.args, [
      '--health-probe-bind-address=:8081',
      '--metrics-bind-address=0',
    ]);
    assert.equal(deployment.spec.template.spec.containers[0]?.image, IMAGE);
  });

  describe('helm install on the test control plane', { skip: controlPlaneSkip() }, () => {
    let cp: ControlPlane | undefined;
    let project = '';
    before(async () => {
      project = sampleProject();
      await generateHelm({ cwd: project, image: IMAGE, renderer: 'op-gen' });
      cp = await startControlPlane();
    });
    after(async () => {
      await cp?.stop();
    });

    it('template == install.yaml; install (server-side) creates the manager Deployment', async () => {
      assert.ok(cp);
      assertTemplateMatchesInstaller(project, 'memcached-operator-system');
      const install = helm(
        'install',
        'demo',
        join(project, 'dist/chart'),
        '--namespace',
        'memcached-operator-system',
        '--create-namespace',
        '--server-side=true',
        '--kubeconfig',
        cp.kubeconfigPath,
      );
      assert.equal(install.status, 0, `${install.stdout}${install.stderr}`);
      const [deployment] = (await getAll(cp, [
        {
          apiVersion: 'apps/v1',
          kind: 'Deployment',
          metadata: { name: 'memcached-operator-controller-manager', namespace: 'memcached-operator-system' },
        },
      ])) as unknown as { spec: { template: { spec: { containers: { image: string }[] } } } }[];
      assert.equal(deployment?.spec.template.spec.containers[0]?.image, IMAGE);
    });
  });
});
