import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { createApi } from '../../../src/scaffold/create-api.ts';
import { initProject } from '../../../src/scaffold/init.ts';
import { assertGolden } from '../../helpers/golden.ts';
import { listFiles, quietIo, snapshot, tempDir } from './helpers.ts';

const GOLDEN_DIR = new URL('../../golden/scaffold/', import.meta.url);

/** Compares with test/golden/scaffold/<name> (test/helpers/golden.ts: UPDATE_GOLDEN=1 rewrites it). */
const assertScaffoldGolden = (name: string, actual: string): void =>
  assertGolden(fileURLToPath(new URL(name, GOLDEN_DIR)), actual);

function concatenated(files: Map<string, string>): string {
  return [...files].map(([path, content]) => `=== ${path}\n${content}`).join('');
}

describe('scaffold golden output: init + create api (Memcached v1alpha1, then v1)', () => {
  const tmp = tempDir();
  const root = join(tmp.dir, 'memcached-operator');
  after(tmp.cleanup);

  before(async () => {
    await initProject(
      {
        dir: root,
        domain: 'example.com',
        repo: 'https://github.com/example/memcached-operator',
        skipInstall: true,
        year: 2026,
      },
      quietIo(),
    );
  });

  it('init writes the kubebuilder-style tree', () => {
    assertScaffoldGolden('init-tree.txt', `${listFiles(root).join('\n')}\n`);
  });

  it('create api adds types, controller, sample, tests and registrations', async () => {
    const result = await createApi(
      { dir: root, group: 'cache', version: 'v1alpha1', kind: 'Memcached' },
      quietIo(),
    );
    assert.deepEqual(result.generated, []);
    assert.deepEqual(result.resource, {
      group: 'cache',
      version: 'v1alpha1',
      kind: 'Memcached',
      plural: 'memcacheds',
      namespaced: true,
      controller: true,
    });
    const second = await createApi(
      { dir: root, group: 'cache', version: 'v1', kind: 'Memcached' },
      quietIo(),
    );
    assert.equal(second.resource.controller, false, 'a later version of a kind gets no second controller');
    assertScaffoldGolden('project-tree.txt', `${listFiles(root).join('\n')}\n`);
    assertScaffoldGolden('project-files.txt', concatenated(snapshot(root)));
  });

  it('is deterministic: the same inputs give the same bytes', async () => {
    const again = join(tmp.dir, 'again', 'memcached-operator');
    await initProject(
      {
        dir: again,
        domain: 'example.com',
        repo: 'https://github.com/example/memcached-operator',
        skipInstall: true,
        year: 2026,
      },
      quietIo(),
    );
    await createApi({ dir: again, group: 'cache', version: 'v1alpha1', kind: 'Memcached' }, quietIo());
    await createApi({ dir: again, group: 'cache', version: 'v1', kind: 'Memcached' }, quietIo());
    assert.deepEqual(snapshot(again), snapshot(root));
  });
});
