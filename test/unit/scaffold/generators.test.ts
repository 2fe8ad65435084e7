import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { generatorsFor } from '../../../src/cli/create-api.ts';
import { AFTER_CREATE_API, AFTER_CREATE_WEBHOOK, GENERATOR_NAMES } from '../../../src/generate/registry.ts';
import { createApi } from '../../../src/scaffold/create-api.ts';
import { initProject } from '../../../src/scaffold/init.ts';
import { quietIo, tempDir } from './helpers.ts';

describe('create api runs the generators op-gen has', () => {
  const tmp = tempDir();
  after(tmp.cleanup);
  const root = join(tmp.dir, 'proj');
  before(async () => {
    await initProject({ dir: root, domain: 'example.com', skipInstall: true }, quietIo());
  });

  it('takes the generators from the registry: crd, rbac, client after create api; webhook after create webhook', () => {
    const ctx = { ...quietIo(), cwd: tmp.dir };
    assert.deepEqual(
      generatorsFor(ctx, AFTER_CREATE_API).map((g) => g.name),
      ['crd', 'rbac', 'client'],
    );
    assert.deepEqual(
      generatorsFor(ctx, AFTER_CREATE_WEBHOOK).map((g) => g.name),
      ['webhook'],
    );
    for (const name of [...AFTER_CREATE_API, ...AFTER_CREATE_WEBHOOK])
      assert.ok(GENERATOR_NAMES.includes(name));
  });

  it('runs them in order on the project root after writing', async () => {
    const ran: string[] = [];
    const generators = ['crd', 'rbac'].map((name) => ({
      name,
      run: async (dir: string) => {
        assert.ok(
          existsSync(join(dir, 'src/api/cache/v1alpha1/memcached.ts')),
          'files are written before generating',
        );
        ran.push(`${name}@${dir}`);
      },
    }));
    const result = await createApi(
      { dir: root, group: 'cache', version: 'v1alpha1', kind: 'Memcached' },
      { ...quietIo(), generators },
    );
    assert.deepEqual(ran, [`crd@${root}`, `rbac@${root}`]);
    assert.deepEqual(result.generated, ['crd', 'rbac']);
  });

  it('reports a failing generator with what to do, keeping the written API', async () => {
    await assert.rejects(
      createApi(
        { dir: root, group: 'cache', version: 'v1alpha1', kind: 'Redis' },
        { ...quietIo(), generators: [{ name: 'crd', run: () => Promise.reject(new Error('boom')) }] },
      ),
      /the Redis API is written, but `op-gen generate crd` failed: boom\nFix the cause, then run `npm run generate`/,
    );
    assert.ok(existsSync(join(root, 'src/api/cache/v1alpha1/redis.ts')));
  });

  it('--skip-generate runs none', async () => {
    const result = await createApi(
      { dir: root, group: 'cache', version: 'v1alpha1', kind: 'Valkey', skipGenerate: true },
      { ...quietIo(), generators: [{ name: 'crd', run: () => Promise.reject(new Error('must not run')) }] },
    );
    assert.deepEqual(result.generated, []);
  });
});
