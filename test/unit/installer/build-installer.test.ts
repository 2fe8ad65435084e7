import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { parseAllDocuments } from 'yaml';
import { OpGenError } from '../../../src/errors.ts';
import { buildInstaller } from '../../../src/installer/index.ts';
import { withManagerImage } from '../../../src/kustomize/set-image.ts';
import { toolSkip, withKubectlShim } from '../../helpers/tools.ts';
import { opGen, sampleProject } from '../bundle/project.ts';

const IMAGE = 'registry.example.com/memcached-operator:0.1.0';

interface Obj {
  kind: string;
  metadata: { name: string; namespace?: string };
  spec?: { template?: { spec?: { containers?: { name: string; image: string }[] } } };
}
const objectsOf = (text: string): Obj[] => parseAllDocuments(text).map((d) => d.toJS() as Obj);

describe('op-gen build-installer', () => {
  it("writes dist/install.yaml: config/default's objects with the manager image set, config/ untouched", () => {
    const project = sampleProject();
    const managerKustomization = readFileSync(join(project, 'config/manager/kustomization.yaml'), 'utf8');
    const result = buildInstaller({ cwd: project, image: IMAGE, renderer: 'op-gen' });
    assert.deepEqual(result.written, ['dist/install.yaml']);
    const objects = objectsOf(readFileSync(join(project, 'dist/install.yaml'), 'utf8'));
    assert.deepEqual(
      objects.map((o) => o.kind),
      [
        'Namespace',
        'CustomResourceDefinition',
        'ServiceAccount',
        'Role',
        'ClusterRole',
        'ClusterRole',
        'ClusterRole',
        'RoleBinding',
        'ClusterRoleBinding',
        'ClusterRoleBinding',
        'Service',
        'Deployment',
      ],
    );
    const deployment = objects.find((o) => o.kind === 'Deployment');
    assert.equal(deployment?.metadata.name, 'memcached-operator-controller-manager');
    assert.equal(deployment?.metadata.namespace, 'memcached-operator-system');
    assert.equal(deployment?.spec?.template?.spec?.containers?.[0]?.image, IMAGE);
    assert.equal(
      readFileSync(join(project, 'config/manager/kustomization.yaml'), 'utf8'),
      managerKustomization,
    );
    // --check: up to date, then out of date once the image changes; nothing written.
    assert.deepEqual(
      buildInstaller({ cwd: project, image: IMAGE, renderer: 'op-gen', check: true }).written,
      [],
    );
    const before = readFileSync(join(project, 'dist/install.yaml'), 'utf8');
    const check = buildInstaller({ cwd: project, image: `${IMAGE}-rc1`, renderer: 'op-gen', check: true });
    assert.deepEqual(check.written, ['dist/install.yaml']);
    assert.equal(readFileSync(join(project, 'dist/install.yaml'), 'utf8'), before);
  });

  it(
    "gives the same bytes with kubectl kustomize (kustomize's own build) and with op-gen's renderer",
    { skip: toolSkip('kustomize') },
    () => {
      const project = sampleProject();
      buildInstaller({ cwd: project, image: IMAGE, renderer: 'op-gen' });
      const ours = readFileSync(join(project, 'dist/install.yaml'), 'utf8');
      const r = withKubectlShim(() =>
        buildInstaller({ cwd: project, image: IMAGE, renderer: 'kubectl', check: true }),
      );
      assert.equal(r.renderer, 'kubectl');
      assert.deepEqual(r.written, []);
      assert.ok(ours.includes(`image: ${IMAGE}`));
    },
  );

  it('fails, writing nothing, on a kustomize feature op-gen does not render', () => {
    const project = sampleProject();
    const file = join(project, 'config/default/kustomization.yaml');
    writeFileSync(
      file,
      `${readFileSync(file, 'utf8')}configMapGenerator:\n  - name: settings\n    literals: [a=b]\n`,
    );
    assert.throws(
      () => buildInstaller({ cwd: project, image: IMAGE, renderer: 'op-gen' }),
      (err: unknown) =>
        err instanceof OpGenError &&
        /^config\/default\/kustomization.yaml: configMapGenerator: op-gen's kustomize renderer does not render/.test(
          err.message,
        ),
    );
    assert.equal(existsSync(join(project, 'dist/install.yaml')), false);
  });

  it('fails when no Deployment runs the image (the `controller` name was changed)', () => {
    const project = sampleProject();
    const file = join(project, 'config/manager/manager.yaml');
    writeFileSync(file, readFileSync(file, 'utf8').replace('image: controller:latest', 'image: other:1'));
    assert.throws(
      () => buildInstaller({ cwd: project, image: IMAGE, renderer: 'op-gen' }),
      /no Deployment of config\/default runs registry.example.com\/memcached-operator:0.1.0/,
    );
  });

  it('sets the image entry as `kustomize edit set image controller=IMG` does', () => {
    const text =
      'resources:\n  - manager.yaml\nimages:\n  - name: controller\n    newName: x\n    newTag: latest\n';
    assert.equal(
      withManagerImage(text, 'example.com:5000/op:1.2', 'k'),
      'resources:\n  - manager.yaml\nimages:\n  - name: controller\n    newName: example.com:5000/op\n    newTag: "1.2"\n',
    );
    assert.match(
      withManagerImage('resources: []\n', 'op@sha256:abc', 'k'),
      /images:\n {2}- name: controller\n {4}newName: op\n {4}digest: sha256:abc\n/,
    );
  });

  it('an alias without its anchor in config/manager/kustomization.yaml is an error at its line, not a crash', () => {
    // Found by a fuzz of the scaffold's config files: the yaml package parses `*a` and throws only
    // when the edited document is printed (an internal error with a stack before).
    assert.throws(
      () => withManagerImage('resources:\n  - *a\n', IMAGE, 'config/manager/kustomization.yaml'),
      (err: unknown) =>
        err instanceof OpGenError &&
        err.message ===
          'config/manager/kustomization.yaml:2: not valid YAML (an alias without its anchor). Fix it, then run the command again.',
    );
  });

  it('the CLI: --image is required (exit 2); bad image references are usage errors', () => {
    const project = sampleProject();
    const none = opGen(project, 'build-installer');
    assert.equal(none.status, 2);
    assert.match(none.stderr, /build-installer needs --image/);
    const bad = opGen(project, 'build-installer', '--image', 'Not A Ref');
    assert.equal(bad.status, 2);
    assert.match(bad.stderr, /--image Not A Ref: not an image reference/);
    const ok = opGen(project, 'build-installer', '--image', IMAGE, '--renderer', 'op-gen');
    assert.equal(ok.status, 0, ok.stderr);
    assert.match(ok.stdout, /wrote {5}dist\/install.yaml/);
    const check = opGen(project, 'build-installer', '--image', IMAGE, '--check', '--renderer', 'op-gen');
    assert.equal(check.status, 0, check.stderr);
  });
});
