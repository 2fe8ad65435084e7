import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { applyJsonPatch, JsonPatchError, type JsonPatchOperation } from '../../../src/json/json-patch.ts';
import type { Json, JsonObject } from '../../../src/json/json.ts';
import type { Resource } from '../../../src/kustomize/resource.ts';
import {
  applyImages,
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
