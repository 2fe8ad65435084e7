import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Command } from 'commander';
import { availableGenerators } from '../../../src/cli/create-api.ts';
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

  it('finds the registered generate subcommands, in crd, rbac, client order, skipping absent ones', () => {
    const program = new Command('op-gen');
    const generate = program.command('generate');
    generate.command('client');
    generate.command('types');
    generate.command('crd');
    const api = program.command('create').command('api');
    const found = availableGenerators(api, { ...quietIo(), cwd: tmp.dir }).map((g) => g.name);
    assert.deepEqual(found, ['crd', 'client']);
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
