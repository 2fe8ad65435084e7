import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, it } from 'node:test';
import { OpGenError } from '../../../src/errors.ts';
import { renderKustomization } from '../../../src/kustomize/index.ts';
import { sortKeysDeep, toYamlDocuments } from '../../../src/shared/yaml.ts';
import { assertGolden } from '../../helpers/golden.ts';
import { OVERLAYS } from './overlays.ts';

const FIXTURES = new URL('../../fixtures/kustomize/', import.meta.url).pathname;
const GOLDEN = new URL('../../golden/kustomize/', import.meta.url).pathname;

/** A throwaway tree of files: `{ 'k/kustomization.yaml': '...' }`. */
function tree(files: Record<string, string>): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'op-gen-kustomize-'));
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), content);
  }
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

const DEPLOYMENT = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: manager
spec:
  template:
    spec:
      containers:
        - name: manager
          image: controller:latest
`;

function renderError(files: Record<string, string>, dir = 'k'): string {
  const t = tree(files);
  try {
    renderKustomization(join(t.dir, dir), { root: t.dir });
  } catch (err) {
    assert.ok(err instanceof OpGenError, `not an OpGenError: ${String(err)}`);
    return err.message;
  } finally {
    t.cleanup();
  }
  assert.fail('rendered without an error');
}

describe("op-gen's kustomize renderer", () => {
  // The goldens are checked against real kustomize by oracle.test.ts.
  for (const overlay of OVERLAYS) {
    it(`renders ${overlay} (golden)`, () => {
      const objects = renderKustomization(join(FIXTURES, 'app', overlay), { root: FIXTURES });
      assertGolden(
        join(GOLDEN, `${overlay}.yaml`),
        toYamlDocuments(objects.map((o) => sortKeysDeep(o.object))),
      );
    });
  }

  it('sets the image, the namespace and prefixed names, and points references at the new names', () => {
    const objects = renderKustomization(join(FIXTURES, 'app', 'overlay-names')).map((o) => o.object);
    const byKind = (kind: string): Record<string, unknown> =>
      objects.find((o) => o.kind === kind) as Record<string, unknown>;
    const deployment = byKind('Deployment') as {
      metadata: { name: string; namespace: string };
      spec: {
        template: { spec: { serviceAccountName: string; volumes: { secret?: { secretName: string } }[] } };
      };
    };
    assert.equal(deployment.metadata.name, 'memcached-controller-manager-v1');
    assert.equal(deployment.metadata.namespace, 'memcached-system');
    assert.equal(deployment.spec.template.spec.serviceAccountName, 'memcached-controller-manager-v1');
    assert.equal(deployment.spec.template.spec.volumes[0]?.secret?.secretName, 'memcached-certs-v1');
    const binding = byKind('ClusterRoleBinding') as {
      roleRef: { name: string };
      subjects: { name: string; namespace: string }[];
    };
    assert.equal(binding.roleRef.name, 'memcached-manager-role-v1');
    assert.deepEqual(binding.subjects[0], {
      kind: 'ServiceAccount',
      name: 'memcached-controller-manager-v1',
      namespace: 'memcached-system',
    });
    assert.equal((byKind('Namespace') as { metadata: { name: string } }).metadata.name, 'memcached-system');
    assert.equal(
      (byKind('CustomResourceDefinition') as { metadata: { name: string } }).metadata.name,
      'memcacheds.cache.example.com',
    );
  });

  it('fails naming the file and field for a feature it does not render', () => {
    for (const [field, value] of [
      ['configMapGenerator', '[{name: x, literals: [a=b]}]'],
      ['secretGenerator', '[{name: x, literals: [a=b]}]'],
      ['components', '[../c]'],
      ['replacements', '[]'],
      ['helmCharts', '[]'],
      ['vars', '[]'],
    ] as const) {
      const message = renderError({
        'k/kustomization.yaml': `resources: [d.yaml]\n${field}: ${value}\n`,
        'k/d.yaml': DEPLOYMENT,
      });
      assert.match(
        message,
        new RegExp(`^k/kustomization.yaml: ${field}: op-gen's kustomize renderer does not render this field`),
      );
    }
  });

  it('fails on a JSON6902 patch it cannot apply, naming the file, the patch and the object', () => {
    const jsonPatch = (patch: string): Record<string, string> => ({
      'k/kustomization.yaml': `resources: [d.yaml]\npatches:\n  - target: {kind: Deployment}\n    patch: "${patch}"\n`,
      'k/d.yaml': DEPLOYMENT,
    });
    const on = 'k/kustomization.yaml: patches[0]: on apps/v1, Kind=Deployment, [noNs]/manager: ';
    const cases: [Record<string, string>, string][] = [
      [jsonPatch('[{op: test, path: /metadata/name, value: other}]'), `${on}test failed at /metadata/name`],
      [
        jsonPatch('[{op: add, path: /spec/template/spec/containers/5, value: {}}]'),
        `${on}/spec/template/spec/containers/5: index 5 is out of range (the list has 1 items)`,
      ],
      [jsonPatch('[{op: frobnicate, path: /spec}]'), `${on}unknown op frobnicate`],
      [jsonPatch('[{op: remove}]'), 'k/kustomization.yaml: patches[0][0]: each operation needs op and path'],
      [
        {
          'k/kustomization.yaml': 'resources: [d.yaml]\npatches:\n  - patch: "[{op: remove, path: /spec}]"\n',
          'k/d.yaml': DEPLOYMENT,
        },
        'k/kustomization.yaml: patches[0]: a JSON6902 patch needs a target',
      ],
      [
        {
          'k/kustomization.yaml':
            'resources: [d.yaml]\npatchesJson6902:\n  - target: {group: apps, version: v1, kind: Deployment, name: manager}\n    patch: "{op: remove}"\n',
          'k/d.yaml': DEPLOYMENT,
        },
        'k/kustomization.yaml: patchesJson6902[0]: a JSON6902 patch must be a list of operations',
      ],
    ];
    for (const [files, message] of cases) assert.equal(renderError(files), message);
  });

  it('fails on a patch or a name reference that could mean several objects, and on a cycle of resources', () => {
    // One Deployment in `default`, one without a namespace: a patch without one matches both.
    assert.equal(
      renderError({
        'k/kustomization.yaml':
          'resources: [a, b]\npatches:\n  - patch: "{apiVersion: apps/v1, kind: Deployment, metadata: {name: manager}, spec: {replicas: 2}}"\n',
        'k/a/kustomization.yaml': 'namespace: default\nresources: [../d.yaml]\n',
        'k/b/kustomization.yaml': 'resources: [../d.yaml]\n',
        'k/d.yaml': DEPLOYMENT,
      }),
      "k/kustomization.yaml: patches[0]: the patch's Deployment manager matches 2 objects; give it a namespace or a target",
    );
    // Two ConfigMaps named cfg, prefixed apart: the Deployment's reference to cfg could be either.
    assert.equal(
      renderError({
        'k/kustomization.yaml': 'resources: [a, b, d.yaml]\n',
        'k/a/kustomization.yaml': 'namePrefix: a-\nresources: [../cm.yaml]\n',
        'k/b/kustomization.yaml': 'namePrefix: b-\nresources: [../cm.yaml]\n',
        'k/cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cfg}\n',
        'k/d.yaml': DEPLOYMENT.replace(
          '      containers:',
          '      volumes: [{name: v, configMap: {name: cfg}}]\n      containers:',
        ),
      }),
      'k/d.yaml: spec/template/spec/volumes/configMap/name of Deployment manager names cfg, which several objects had: k/cm.yaml (a-cfg), k/cm.yaml (b-cfg)',
    );
    assert.equal(
      renderError({
        'k/kustomization.yaml': 'resources: [../j]\n',
        'j/kustomization.yaml': 'resources: [../k]\n',
      }),
      'k/kustomization.yaml: resources: cycle through k',
    );
  });

  it('fails on what it cannot render inside a supported field', () => {
    const cases: [Record<string, string>, RegExp][] = [
      [
        { 'k/kustomization.yaml': 'resources: [https://example.com/x.yaml]\n' },
        /^k\/kustomization.yaml: resources\[0\]: https:\/\/example.com\/x.yaml: remote resources/,
      ],
      [
        {
          'k/kustomization.yaml':
            'resources: [d.yaml]\npatches:\n  - patch: |-\n      apiVersion: apps/v1\n      kind: Deployment\n      metadata: {name: manager}\n      spec: {template: {spec: {containers: [{name: manager, $patch: delete}]}}}\n',
          'k/d.yaml': DEPLOYMENT,
        },
        /^k\/kustomization.yaml: patches\[0\]: spec.template.spec.containers\[\]\.\$patch: strategic merge patch directives/,
      ],
      [
        {
          'k/kustomization.yaml':
            'resources: [d.yaml]\npatches:\n  - target: {labelSelector: a=b}\n    patch: "[]"\n',
          'k/d.yaml': DEPLOYMENT,
        },
        /^k\/kustomization.yaml: patches\[0\].target.labelSelector: /,
      ],
      [
        {
          'k/kustomization.yaml': 'resources: [d.yaml]\nlabels:\n  - pairs: {a: b}\n    fields: []\n',
          'k/d.yaml': DEPLOYMENT,
        },
        /^k\/kustomization.yaml: labels\[0\].fields: not rendered/,
      ],
      [
        {
          'k/kustomization.yaml': 'resources: [d.yaml]\nconfigurations: [c.yaml]\n',
          'k/d.yaml': DEPLOYMENT,
          'k/c.yaml': 'namePrefix: []\n',
        },
        /^k\/c.yaml: namePrefix: op-gen renders only nameReference/,
      ],
      [
        { 'k/kustomization.yaml': 'resources: [missing.yaml]\n' },
        /^k\/kustomization.yaml: resources\[0\]: missing.yaml does not exist/,
      ],
      [
        {
          'k/kustomization.yaml': 'resources: [d.yaml, e.yaml]\n',
          'k/d.yaml': DEPLOYMENT,
          'k/e.yaml': DEPLOYMENT,
        },
        /^k\/kustomization.yaml: resources\[1\]: .*already there/,
      ],
      [
        {
          'k/kustomization.yaml':
            'resources: [d.yaml]\npatches:\n  - target: {kind: Service}\n    patch: "[{op: remove, path: /spec}]"\n',
          'k/d.yaml': DEPLOYMENT,
        },
        /^k\/kustomization.yaml: patches\[0\]: no resource matches the target/,
      ],
      [
        {
          'k/kustomization.yaml':
            'resources: [d.yaml]\npatches:\n  - target: {kind: Deployment}\n    patch: "[{op: remove, path: /spec/nothing}]"\n',
          'k/d.yaml': DEPLOYMENT,
        },
        /^k\/kustomization.yaml: patches\[0\]: on apps\/v1, Kind=Deployment, \[noNs\]\/manager: \/spec\/nothing does not exist/,
      ],
      [{ 'k/other.yaml': '' }, /^k: no kustomization.yaml in this folder/],
    ];
    for (const [files, pattern] of cases) assert.match(renderError(files), pattern);
  });

  it('sets images by name (tag, digest, new name) in containers and init containers', () => {
    const objects = renderKustomization(join(FIXTURES, 'app', 'overlay-images')).map((o) => o.object);
    const spec = (
      objects.find((o) => o.kind === 'Deployment') as {
        spec: {
          template: { spec: { containers: { image: string }[]; initContainers: { image: string }[] } };
        };
      }
    ).spec.template.spec;
    assert.deepEqual(
      spec.containers.map((c) => c.image),
      ['example.com/memcached-operator:v0.1.0', 'registry.example.com:5000/tools/sidecar:2.0'],
    );
    assert.equal(
      spec.initContainers[0]?.image,
      'busybox@sha256:1111111111111111111111111111111111111111111111111111111111111111',
    );
  });
});
