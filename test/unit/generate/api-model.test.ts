import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { loadApiKinds, loadApiModel } from '../../../src/generate/api-model.ts';

const FIXTURE = new URL('../../fixtures/crd/', import.meta.url).pathname;

describe('generate/api-model', () => {
  it('loadApiKinds is loadApiModel without the fields', async () => {
    const model = await loadApiModel({ cwd: FIXTURE, apiDir: 'api' });
    const kinds = await loadApiKinds({ cwd: FIXTURE, apiDir: 'api' });
    assert.equal(kinds.length, 4);
    assert.deepEqual(
      kinds,
      model.map(({ fields, ...kind }) => {
        assert.ok(fields.length > 0, `${kind.kind} ${kind.version} has field docs`);
        return kind;
      }),
    );
    for (const kind of kinds) assert.equal('fields' in kind, false);
  });

  it('gives every field its path below the kind, tags, doc and location, and no schema', async () => {
    const model = await loadApiModel({ cwd: FIXTURE, apiDir: 'api' });
    const store = model.find((k) => k.version === 'v1' && k.kind === 'Store');
    assert.ok(store);
    assert.deepEqual(Object.keys(store).sort(), [
      'description',
      'fields',
      'group',
      'kind',
      'location',
      'namespaced',
      'plural',
      'served',
      'singular',
      'storage',
      'tags',
      'version',
    ]);
    const replicas = store.fields.find((f) => f.path === 'spec.replicas');
    assert.ok(replicas);
    assert.deepEqual(Object.keys(replicas).sort(), ['description', 'location', 'path', 'tags']);
    assert.match(`${replicas.location.file}:${replicas.location.line}`, /store_types\.ts:\d+$/);
  });
});
