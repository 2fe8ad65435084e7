import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { spawnSync } from 'node:child_process';
import { parse } from 'yaml';
import { opGen, sampleProject } from './project.ts';

const CSV = 'bundle/manifests/memcached-operator.clusterserviceversion.yaml';
const ARGS = ['bundle', '--version', '0.1.0', '--created-at', '2026-01-01T00:00:00Z'];

interface Csv {
  spec: {
    install: {
      spec: {
        deployments: {
          name: string;
          spec: { replicas: number; template: { spec: { containers: { image: string }[] } } };
        }[];
      };
    };
  };
}

function append(project: string, file: string, text: string): void {
  const path = join(project, file);
  writeFileSync(path, `${readFileSync(path, 'utf8')}${text}`);
}

function deploymentOf(project: string): Csv['spec']['install']['spec']['deployments'][number] {
  const csv = parse(readFileSync(join(project, CSV), 'utf8')) as Csv;
  const d = csv.spec.install.spec.deployments[0];
  assert.ok(d);
  return d;
}

describe('op-gen bundle reads config/ through the kustomize renderer', () => {
  it("applies config/manager's images, patches and replicas (once skipped)", () => {
    const project = sampleProject();
    append(
      project,
      'config/manager/kustomization.yaml',
      'replicas:\n  - name: controller-manager\n    count: 2\npatches:\n  - target: {kind: Deployment}\n    patch: |-\n      - op: add\n        path: /spec/template/spec/containers/0/args/-\n        value: --zap-devel\n',
    );
    const r = opGen(project, ...ARGS);
    assert.equal(r.status, 0, r.stderr);
    const d = deploymentOf(project);
    // config/manager's images entry: controller -> memcached-operator:latest
    assert.equal(d.spec.template.spec.containers[0]?.image, 'memcached-operator:latest');
    assert.equal(d.spec.replicas, 2);
    assert.match(readFileSync(join(project, CSV), 'utf8'), /- --zap-devel/);
  });

  it("applies config/default's images and replicas to the manager Deployment", () => {
    const project = sampleProject();
    append(
      project,
      'config/default/kustomization.yaml',
      'images:\n  - name: memcached-operator\n    newName: example.com/mc\n    newTag: v2\nreplicas:\n  - name: controller-manager\n    count: 3\n',
    );
    const r = opGen(project, ...ARGS);
    assert.equal(r.status, 0, r.stderr);
    const d = deploymentOf(project);
    assert.equal(d.spec.template.spec.containers[0]?.image, 'example.com/mc:v2');
    assert.equal(d.spec.replicas, 3);
  });

  it('fails, naming the file and field, on what it does not apply; writes nothing', () => {
    const cases: [string, string, RegExp][] = [
      [
        'config/manager/kustomization.yaml',
        'configMapGenerator:\n  - name: x\n    literals: [a=b]\n',
        /config\/manager\/kustomization.yaml: configMapGenerator: op-gen's kustomize renderer does not render this field/,
      ],
      [
        'config/default/kustomization.yaml',
        'commonAnnotations:\n  a: b\n',
        /config\/default\/kustomization.yaml: commonAnnotations: `op-gen bundle` does not apply this field of config\/default/,
      ],
      [
        'config/default/kustomization.yaml',
        'patches:\n  - path: my_patch.yaml\n',
        /config\/default\/kustomization.yaml: patches\[0\]: `op-gen bundle` does not apply config\/default's patches/,
      ],
    ];
    for (const [file, text, pattern] of cases) {
      const project = sampleProject();
      append(project, file, text);
      const r = opGen(project, ...ARGS);
      assert.equal(r.status, 1, `${file}: ${r.stdout}`);
      assert.match(r.stderr, pattern);
      assert.throws(() => readFileSync(join(project, CSV)), /ENOENT/);
    }
  });

  const kubectl = spawnSync('kubectl', ['version', '--client'], { encoding: 'utf8' }).status === 0;
  it(
    '--renderer kubectl renders config/ with kubectl kustomize (the choice of kustomize/render-config.ts)',
    {
      skip: kubectl ? false : 'kubectl is not on PATH',
    },
    () => {
      // configMapGenerator: op-gen's renderer refuses it (above); kubectl kustomize renders it.
      const project = sampleProject();
      append(
        project,
        'config/manager/kustomization.yaml',
        'configMapGenerator:\n  - name: x\n    literals: [a=b]\n',
      );
      assert.equal(opGen(project, ...ARGS).status, 1);
      const r = opGen(project, ...ARGS, '--renderer', 'kubectl');
      assert.equal(r.status, 0, r.stderr);
      assert.equal(
        deploymentOf(project).spec.template.spec.containers[0]?.image,
        'memcached-operator:latest',
      );
      const bad = opGen(project, ...ARGS, '--renderer', 'kustomize');
      assert.equal(bad.status, 2, bad.stderr);
      assert.match(bad.stderr, /--renderer kustomize: one of auto, kubectl, op-gen/);
    },
  );
});
