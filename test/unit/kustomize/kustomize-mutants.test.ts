import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { applyJsonPatch, JsonPatchError, type JsonPatchOperation } from '../../../src/json/json-patch.ts';
import type { Json, JsonObject } from '../../../src/json/json.ts';
import type { Resource } from '../../../src/kustomize/resource.ts';
import {
  applyStrategicMerge,
  mergeKeyOf,
  StrategicMergeError,
} from '../../../src/kustomize/strategic-merge.ts';
import {
  applyImages,
  applyNamespace,
  applyPrefixSuffix,
  applyReplicas,
  splitImage,
  updatedImage,
  type ImageEntry,
} from '../../../src/kustomize/transformers.ts';

/**
 * Cases that kill the mutants render.test.ts lets survive in the image transformer and the JSON
 * patch (`npm run test:mutation -- kustomize`; reports/mutation/kustomize.json): image references
 * with registry ports, tags and digests, and every RFC 6902 operation and refusal.
 */
describe('kustomize images', () => {
  const splits: readonly (readonly [string, string, string, string])[] = [
    ['nginx', 'nginx', '', ''],
    ['nginx:1.2', 'nginx', '1.2', ''],
    ['nginx@sha256:abc', 'nginx', '', 'sha256:abc'],
    ['nginx:1.2@sha256:abc', 'nginx', '1.2', 'sha256:abc'],
    ['host:5000/nginx', 'host:5000/nginx', '', ''],
    ['host:5000/nginx:1.2', 'host:5000/nginx', '1.2', ''],
    ['host:5000/nginx@sha256:abc', 'host:5000/nginx', '', 'sha256:abc'],
    ['host:5000/a/b:t@sha256:d', 'host:5000/a/b', 't', 'sha256:d'],
    ['a@b:c', 'a', '', 'b:c'],
    // digest only, and references that start with ':' or '@' (kustomize's image.Split cuts them the same)
    ['nginx@abc', 'nginx', '', 'abc'],
    [':1', '', '1', ''],
    ['@abc', '', '', 'abc'],
    [':1@d', '', '1', 'd'],
  ];
  for (const [image, name, tag, digest] of splits) {
    it(`splits ${image}`, () => assert.deepEqual(splitImage(image), { name, tag, digest }));
  }

  const updates: readonly (readonly [string, ImageEntry, string | undefined])[] = [
    ['nginx:1.2', { name: 'nginx', newTag: '2' }, 'nginx:2'],
    ['nginx:1.2', { name: 'nginx', newName: 'r/nginx' }, 'r/nginx:1.2'],
    ['nginx:1.2', { name: 'nginx', digest: 'sha256:d' }, 'nginx@sha256:d'],
    ['nginx:1.2@sha256:x', { name: 'nginx', newTag: '3', digest: 'sha256:y' }, 'nginx:3@sha256:y'],
    ['nginx:1.2@sha256:x', { name: 'nginx', newTag: '3' }, 'nginx:3'],
    ['nginx:1.2', { name: 'nginx', tagSuffix: '-alpine' }, 'nginx:1.2-alpine'],
    ['nginx:1.2', { name: 'nginx' }, 'nginx:1.2'],
    ['nginx:1.2', { name: 'ngin' }, undefined],
    ['nginxx', { name: 'nginx', newTag: '2' }, undefined],
    ['a.b/c', { name: 'a.b/c', newTag: '1' }, 'a.b/c:1'],
    ['aXb/c', { name: 'a.b/c', newTag: '1' }, undefined],
    ['host:5000/nginx:1.2', { name: 'host:5000/nginx', newTag: '2' }, 'host:5000/nginx:2'],
  ];
  for (const [image, entry, result] of updates) {
    it(`${image} with ${JSON.stringify(entry)} is ${String(result)}`, () =>
      assert.equal(updatedImage(image, entry), result));
  }
});

describe('kustomize images in containers anywhere', () => {
  it('updates containers and initContainers at any depth, in lists too, and leaves the rest', () => {
    const object: JsonObject = {
      apiVersion: 'example.com/v1',
      kind: 'Thing',
      metadata: { name: 't' },
      spec: {
        deep: {
          containers: [{ image: 'nginx:1' }, { image: 'redis:1' }],
          initContainers: [{ image: 'nginx:1' }, { name: 'no-image' }, 'text'],
          sidecars: [{ image: 'nginx:1' }],
        },
        list: [{ containers: [{ image: 'nginx:1' }] }],
        image: 'nginx:1',
      },
    };
    const r: Resource = { object, file: 'thing.yaml', previousNames: [], previousNamespaces: [] };
    applyImages([r], [{ name: 'nginx', newTag: '2' }]);
    assert.deepEqual(object.spec, {
      deep: {
        containers: [{ image: 'nginx:2' }, { image: 'redis:1' }],
        initContainers: [{ image: 'nginx:2' }, { name: 'no-image' }, 'text'],
        sidecars: [{ image: 'nginx:1' }],
      },
      list: [{ containers: [{ image: 'nginx:2' }] }],
      image: 'nginx:1',
    });
  });
});

const resource = (object: JsonObject, previousNames: string[] = []): Resource => ({
  object,
  file: 'r.yaml',
  previousNames,
  previousNamespaces: [],
});

describe('kustomize images: fields other than containers, values that are not references', () => {
  it('updates image volumes (spec.volumes[].image.reference) of a Pod and of a template', () => {
    const pod: JsonObject = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'p' },
      spec: { volumes: [{ name: 'v', image: { reference: 'nginx:1' } }] },
    };
    const deployment: JsonObject = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'd' },
      spec: { template: { spec: { volumes: [{ name: 'v', image: { reference: 'nginx:1' } }] } } },
    };
    applyImages([resource(pod), resource(deployment)], [{ name: 'nginx', newTag: '2' }]);
    assert.deepEqual(pod.spec, { volumes: [{ name: 'v', image: { reference: 'nginx:2' } }] });
    assert.deepEqual(deployment.spec, {
      template: { spec: { volumes: [{ name: 'v', image: { reference: 'nginx:2' } }] } },
    });
  });

  it('leaves a number where a reference belongs and a null container alone, even for an entry named like it', () => {
    const spec = {
      containers: [null, { name: 'a', image: 5 }],
      volumes: [{ name: 'v', image: { reference: 5 } }],
    };
    const pod: JsonObject = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'p' },
      spec: structuredClone(spec),
    };
    applyImages([resource(pod)], [{ name: '5', newTag: '2' }]);
    assert.deepEqual(pod.spec, spec);
  });
});

describe('kustomize namespace', () => {
  const webhookService = (): JsonObject => ({
    conversion: { webhook: { clientConfig: { service: { name: 'w', namespace: 'old' } } } },
  });

  it("sets the conversion webhook Service's namespace of apiextensions CRDs only", () => {
    const crd: JsonObject = {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'things.example.com' },
      spec: webhookService(),
    };
    const lookalike: JsonObject = {
      apiVersion: 'example.com/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'x' },
      spec: webhookService(),
    };
    const other: JsonObject = {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'Thing',
      metadata: { name: 'y' },
      spec: webhookService(),
    };
    applyNamespace([resource(crd), resource(lookalike), resource(other)], 'ops');
    assert.deepEqual(crd.spec, {
      conversion: { webhook: { clientConfig: { service: { name: 'w', namespace: 'ops' } } } },
    });
    assert.deepEqual(lookalike.spec, webhookService());
    assert.deepEqual(other.spec, webhookService());
  });

  it("sets (or adds) an apiregistration APIService's Service namespace, nobody else's", () => {
    const api: JsonObject = {
      apiVersion: 'apiregistration.k8s.io/v1',
      kind: 'APIService',
      metadata: { name: 'v1.metrics.example.com' },
      spec: { service: { name: 'metrics', namespace: 'old' } },
    };
    const local: JsonObject = {
      apiVersion: 'apiregistration.k8s.io/v1',
      kind: 'APIService',
      metadata: { name: 'v1.apps' },
      spec: { group: 'apps' },
    };
    const lookalike: JsonObject = {
      apiVersion: 'example.com/v1',
      kind: 'APIService',
      metadata: { name: 'x' },
      spec: { service: { name: 'metrics', namespace: 'old' } },
    };
    const other: JsonObject = {
      apiVersion: 'apiregistration.k8s.io/v1',
      kind: 'Thing',
      metadata: { name: 'y' },
      spec: { service: { name: 'metrics', namespace: 'old' } },
    };
    applyNamespace([resource(api), resource(local), resource(lookalike), resource(other)], 'ops');
    assert.deepEqual(api.spec, { service: { name: 'metrics', namespace: 'ops' } });
    assert.deepEqual(local.spec, { group: 'apps', service: { namespace: 'ops' } });
    assert.deepEqual(lookalike.spec, { service: { name: 'metrics', namespace: 'old' } });
    assert.deepEqual(other.spec, { service: { name: 'metrics', namespace: 'old' } });
  });

  it('moves the `default` subject of role bindings only; a binding without subjects is fine', () => {
    const subjects = (): Json => [
      { kind: 'ServiceAccount', name: 'default', namespace: 'old' },
      { kind: 'ServiceAccount', name: 'other', namespace: 'old' },
    ];
    const binding: JsonObject = {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name: 'b' },
      subjects: subjects(),
    };
    const empty: JsonObject = {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: { name: 'e' },
    };
    const other: JsonObject = {
      apiVersion: 'example.com/v1',
      kind: 'Thing',
      metadata: { name: 't' },
      subjects: subjects(),
    };
    applyNamespace([resource(binding), resource(empty), resource(other)], 'ops');
    assert.deepEqual(binding.subjects, [
      { kind: 'ServiceAccount', name: 'default', namespace: 'ops' },
      { kind: 'ServiceAccount', name: 'other', namespace: 'old' },
    ]);
    assert.deepEqual(empty, {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: { name: 'e', namespace: 'ops' },
    });
    assert.deepEqual(other.subjects, subjects());
  });
});

describe('kustomize namespace and name prefix: Namespace objects', () => {
  it('renames a v1 Namespace to the namespace, not a Namespace kind of another group', () => {
    const ns: JsonObject = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'system' } };
    const lookalike: JsonObject = {
      apiVersion: 'example.com/v1',
      kind: 'Namespace',
      metadata: { name: 'system', namespace: 'x' },
    };
    applyNamespace([resource(ns), resource(lookalike)], 'ops');
    assert.equal((ns.metadata as JsonObject).name, 'ops');
    assert.equal((lookalike.metadata as JsonObject).name, 'system');
  });

  it('namePrefix and nameSuffix skip Namespaces, CRDs and APIServices', () => {
    const objects: JsonObject[] = [
      { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'system' } },
      {
        apiVersion: 'apiextensions.k8s.io/v1',
        kind: 'CustomResourceDefinition',
        metadata: { name: 'things.example.com' },
      },
      { apiVersion: 'apiregistration.k8s.io/v1', kind: 'APIService', metadata: { name: 'v1.x.io' } },
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm' } },
    ];
    applyPrefixSuffix(
      objects.map((o) => resource(o)),
      'p-',
      '-s',
    );
    assert.deepEqual(
      objects.map((o) => (o.metadata as JsonObject).name),
      ['system', 'things.example.com', 'v1.x.io', 'p-cm-s'],
    );
  });
});

describe('kustomize replicas', () => {
  it('sets the workload of that name, current or earlier, and no other', () => {
    const deployment = (name: string): JsonObject => ({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name },
      spec: { replicas: 1 },
    });
    const web = deployment('web');
    const renamed = deployment('prod-api');
    const other = deployment('db');
    const resources = [resource(web), resource(renamed, ['api']), resource(other)];
    applyReplicas(resources, [
      { name: 'web', count: 3 },
      { name: 'prod-api', count: 4 },
    ]);
    assert.deepEqual(
      [web, renamed, other].map((d) => (d.spec as JsonObject).replicas),
      [3, 4, 1],
    );
    applyReplicas(resources, [{ name: 'api', count: 5 }]);
    assert.equal((renamed.spec as JsonObject).replicas, 5);
  });
});

describe('kustomize strategic merge', () => {
  it('merges the lists Kubernetes merges, by their patch merge keys', () => {
    const podLists: Record<string, string> = {
      containers: 'name',
      initContainers: 'name',
      ephemeralContainers: 'name',
      volumes: 'name',
      imagePullSecrets: 'name',
      hostAliases: 'ip',
      topologySpreadConstraints: 'topologyKey',
      resourceClaims: 'name',
    };
    const containerLists: Record<string, string> = {
      env: 'name',
      ports: 'containerPort',
      volumeMounts: 'mountPath',
      volumeDevices: 'devicePath',
      resizePolicy: 'resourceName',
    };
    const podSpecs: Record<string, string[]> = {
      Pod: ['spec'],
      PodTemplate: ['template', 'spec'],
      Deployment: ['spec', 'template', 'spec'],
      ReplicaSet: ['spec', 'template', 'spec'],
      DaemonSet: ['spec', 'template', 'spec'],
      StatefulSet: ['spec', 'template', 'spec'],
      Job: ['spec', 'template', 'spec'],
      CronJob: ['spec', 'jobTemplate', 'spec', 'template', 'spec'],
      ReplicationController: ['spec', 'template', 'spec'],
    };
    let checked = 0;
    for (const [kind, spec] of Object.entries(podSpecs)) {
      for (const [list, key] of Object.entries(podLists)) {
        assert.equal(mergeKeyOf(kind, [...spec, list]), key, `${kind} ${list}`);
        checked++;
      }
      for (const parent of ['containers', 'initContainers', 'ephemeralContainers']) {
        for (const [list, key] of Object.entries(containerLists)) {
          assert.equal(mergeKeyOf(kind, [...spec, parent, list]), key, `${kind} ${parent} ${list}`);
          checked++;
        }
        // a container's other lists (args, command) are replaced
        assert.equal(mergeKeyOf(kind, [...spec, parent, 'args']), undefined);
      }
      // pod-spec list names under another parent are not the pod's lists
      assert.equal(mergeKeyOf(kind, [...spec.slice(0, -1), 'metadata', 'volumes']), undefined);
      assert.equal(mergeKeyOf(kind, [...spec, 'ports']), undefined);
    }
    assert.equal(checked, 9 * (8 + 3 * 5));
    assert.equal(mergeKeyOf('Service', ['spec', 'ports']), 'port');
    assert.equal(mergeKeyOf('Service', ['spec', 'externalIPs']), undefined);
    assert.equal(mergeKeyOf('Deployment', ['spec', 'ports']), undefined);
    // custom resources' lists are replaced, whatever their names
    assert.equal(mergeKeyOf('Thing', ['spec', 'ports']), undefined);
    assert.equal(mergeKeyOf('Thing', ['spec', 'template', 'spec', 'containers']), undefined);
    assert.equal(mergeKeyOf('', ['spec', 'containers']), undefined);
  });

  const deployment = (containers: Json): JsonObject => ({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'd' },
    spec: { template: { spec: { containers } } },
  });
  const containersOf = (d: JsonObject): Json =>
    (((d.spec as JsonObject).template as JsonObject).spec as JsonObject).containers!;
  function refuses(target: JsonObject, patch: JsonObject, message: string): void {
    assert.throws(
      () => applyStrategicMerge(target, patch),
      (err: unknown) => {
        assert.ok(err instanceof StrategicMergeError, String(err));
        assert.equal(err.message.replace(/: strategic merge patch directives .*/, ': (directive)'), message);
        return true;
      },
    );
  }

  it('says where a directive is, at the top, in a map and in list items', () => {
    refuses(deployment([]), { $patch: 'replace' }, '$patch: (directive)');
    refuses(deployment([]), { spec: { $retainKeys: ['a'] } }, 'spec.$retainKeys: (directive)');
    refuses(deployment([]), { spec: { template: { $patch: 'x' } } }, 'spec.template.$patch: (directive)');
    const add = { spec: { template: { spec: { containers: [{ name: 'a', $patch: 'delete' }] } } } };
    // into a list that is merged, and into one the target does not have yet
    refuses(deployment([{ name: 'a' }]), add, 'spec.template.spec.containers[].$patch: (directive)');
    refuses(
      { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd' } },
      add,
      'spec.template.spec.containers[].$patch: (directive)',
    );
  });

  it("copies a custom resource's list items as they are, `$` keys and nulls too", () => {
    const thing: JsonObject = { apiVersion: 'example.com/v1', kind: 'Thing', metadata: { name: 't' } };
    applyStrategicMerge(thing, { spec: { items: [{ $ref: 'x' }, null] } });
    assert.deepEqual(thing.spec, { items: [{ $ref: 'x' }, null] });
    const d: JsonObject = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd' } };
    applyStrategicMerge(d, { spec: { template: { spec: { containers: [null] } } } });
    assert.deepEqual(containersOf(d), [null]);
  });

  it('refuses list items that are not objects where a list is merged by key', () => {
    refuses(
      deployment([{ name: 'a' }]),
      { spec: { template: { spec: { containers: ['a'] } } } },
      'spec.template.spec.containers: items must be objects with name',
    );
  });

  it('null deletes a key (it is gone, not undefined)', () => {
    const d = deployment([]);
    d.metadata = { name: 'd', labels: { a: '1', b: '2' } };
    applyStrategicMerge(d, { metadata: { labels: { a: null } } });
    assert.deepEqual(Object.keys((d.metadata as JsonObject).labels as JsonObject), ['b']);
    // metadata too: only its name and namespace are kept out of the patch, not a null
    applyStrategicMerge(d, { metadata: null });
    assert.equal('metadata' in d, false);
  });

  it('a scalar where a merged list was replaces it', () => {
    const d = deployment([{ name: 'a' }]);
    applyStrategicMerge(d, { spec: { template: { spec: { containers: 'none' } } } });
    assert.equal(containersOf(d), 'none');
  });

  it('merges each base item once: a second patch item of the same name is added', () => {
    const d = deployment([{ name: 'a', image: 'x' }, { image: 'nameless' }]);
    applyStrategicMerge(d, {
      spec: {
        template: {
          spec: {
            containers: [{ name: 'a', image: 'y' }, { name: 'a', image: 'z' }, { image: 'also-nameless' }],
          },
        },
      },
    });
    assert.deepEqual(containersOf(d), [
      { name: 'a', image: 'y' },
      { name: 'a', image: 'z' },
      { image: 'also-nameless' },
      { image: 'nameless' },
    ]);
  });
});

describe('kustomize JSON patch', () => {
  const applied = (doc: Json, ops: JsonPatchOperation[]): Json => {
    applyJsonPatch(doc, ops);
    return doc;
  };
  function refuses(doc: Json, ops: JsonPatchOperation[], message: string): void {
    assert.throws(
      () => applyJsonPatch(doc, ops),
      (err: unknown) => {
        assert.ok(err instanceof JsonPatchError, String(err));
        assert.equal(err.message, message);
        return true;
      },
    );
  }

  it('applies each operation, with escaped pointers and list indexes', () => {
    assert.deepEqual(
      applied({ a: { 'b/c': 1, 'd~e': 2 } }, [
        { op: 'remove', path: '/a/b~1c' },
        { op: 'replace', path: '/a/d~0e', value: 3 },
      ]),
      { a: { 'd~e': 3 } },
    );
    assert.deepEqual(applied({ l: [1, 2] }, [{ op: 'add', path: '/l/-', value: 3 }]), { l: [1, 2, 3] });
    assert.deepEqual(applied({ l: [1, 2] }, [{ op: 'add', path: '/l/2', value: 3 }]), { l: [1, 2, 3] });
    assert.deepEqual(applied({ l: [1, 2] }, [{ op: 'add', path: '/l/0', value: 0 }]), { l: [0, 1, 2] });
    assert.deepEqual(applied({ l: [1, 2, 3] }, [{ op: 'remove', path: '/l/1' }]), { l: [1, 3] });
    assert.deepEqual(applied({ l: [[1]] }, [{ op: 'replace', path: '/l/0/0', value: 5 }]), { l: [[5]] });
    assert.deepEqual(applied({ a: 1 }, [{ op: 'move', from: '/a', path: '/b' }]), { b: 1 });
    const copied = applied({ a: { x: 1 } }, [{ op: 'copy', from: '/a', path: '/b' }]) as { a: Json; b: Json };
    assert.deepEqual(copied, { a: { x: 1 }, b: { x: 1 } });
    assert.notEqual(copied.a, copied.b, 'a copy, not the same object');
    assert.deepEqual(applied({ a: 1 }, [{ op: 'test', path: '/a', value: 1 }]), { a: 1 });
    assert.deepEqual(applied({ a: null }, [{ op: 'test', path: '/a' }]), { a: null });
    assert.deepEqual(applied({ l: [{ x: 1 }] }, [{ op: 'test', path: '/l/0/x', value: 1 }]), {
      l: [{ x: 1 }],
    });
    assert.deepEqual(applied({ a: 1 }, [{ op: 'add', path: '/b' }]), { a: 1, b: null });
  });

  it('refuses what it cannot apply, saying where', () => {
    refuses({ a: 1 }, [{ op: 'add', path: 'a', value: 1 }], 'path a must start with /');
    refuses(
      { l: [1, 2] },
      [{ op: 'add', path: '/l/3', value: 3 }],
      '/l/3: index 3 is out of range (the list has 2 items)',
    );
    refuses(
      { l: [1, 2] },
      [{ op: 'remove', path: '/l/2' }],
      '/l/2: index 2 is out of range (the list has 2 items)',
    );
    refuses({ l: [1, 2] }, [{ op: 'remove', path: '/l/01' }], '/l/01: 01 is not a list index');
    refuses({ l: [1, 2] }, [{ op: 'remove', path: '/l/x' }], '/l/x: x is not a list index');
    refuses({ l: [1, 2] }, [{ op: 'remove', path: '/l/-' }], '/l/-: - is not a list index');
    refuses({ a: 1 }, [{ op: 'remove', path: '' }], 'the whole document cannot be the target');
    refuses({ a: 1 }, [{ op: 'remove', path: '/b/c' }], '/b/c: b does not exist');
    refuses({ a: 1 }, [{ op: 'add', path: '/a/c', value: 1 }], '/a/c: the parent is not an object or list');
    refuses({ a: 1 }, [{ op: 'remove', path: '/b' }], '/b does not exist');
    refuses({ a: 1 }, [{ op: 'copy', from: '/z', path: '/b' }], '/z does not exist');
    refuses({ a: 1 }, [{ op: 'test', path: '/a', value: 2 }], 'test failed at /a');
    refuses({ a: 1 }, [{ op: 'frob', path: '/a' }], 'unknown op frob');
    refuses({ a: 1 }, [{ op: 'move', path: '/b' }], 'the whole document cannot be the target');
    refuses(
      { l: [1] },
      [{ op: 'test', path: '/l/5', value: 1 }],
      '/l/5: index 5 is out of range (the list has 1 items)',
    );
    refuses(
      { l: [[1]] },
      [{ op: 'replace', path: '/l/3/0', value: 1 }],
      '/l/3/0: index 3 is out of range (the list has 1 items)',
    );
  });
});
