import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { createApi } from '../../../src/scaffold/create-api.ts';
import { initProject } from '../../../src/scaffold/init.ts';
import { readProjectFile } from '../../../src/project/project-file.ts';
import { quietIo, typecheckAgainstSources } from './helpers.ts';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
// Inside op-gen's tree so dependencies resolve, in a folder op-gen's tsconfig excludes (test/**/tmp).
const TMP = join(ROOT, 'test/unit/scaffold/sharding-check/tmp');

describe('op-gen init --sharding', () => {
  mkdirSync(TMP, { recursive: true });
  const dir = mkdtempSync(join(TMP, 'proj-'));
  const root = join(dir, 'shard-operator');
  after(() => rmSync(join(TMP, '..'), { recursive: true, force: true }));
  const read = (path: string): string => readFileSync(join(root, path), 'utf8');

  it('scaffolds a manager with --sharding, 3 replicas and sharded controllers', async () => {
    await initProject({ dir: root, domain: 'example.com', skipInstall: true, sharding: true }, quietIo());
    await createApi({ dir: root, group: 'cache', version: 'v1alpha1', kind: 'Memcached' }, quietIo());
    assert.equal(readProjectFile(root)?.sharding, true);
    assert.match(
      read('src/main.ts'),
      /sharding: \{ ring: 'shard-operator', namespace: options\.leaderElectionNamespace \}/,
    );
    assert.match(read('src/config.ts'), /sharding: values\.sharding \?\? env\.SHARDING === 'true'/);
    const manager = read('config/manager/manager.yaml');
    assert.match(manager, /replicas: 3/);
    assert.match(manager, /- --sharding/);
    assert.doesNotMatch(manager, /--leader-elect/);
    assert.match(
      read('config/rbac/leader_election_role.yaml'),
      /- leases[\s\S]*- create[\s\S]*- update[\s\S]*- delete/,
    );
    assert.match(read('src/controllers/memcached.controller.ts'), /\.withOptions\(\{ sharded: true \}\)/);
  });

  it('the sharded project type-checks against op-gen sources', () => {
    typecheckAgainstSources(root);
  });

  it('parses --sharding and SHARDING=true', async () => {
    const { parseManagerOptions } = (await import(join(root, 'src/config.ts'))) as {
      parseManagerOptions: (
        argv: string[],
        env: Record<string, string>,
      ) => { sharding: boolean; leaderElect: boolean };
    };
    assert.equal(parseManagerOptions(['--sharding'], {}).sharding, true);
    assert.equal(parseManagerOptions([], { SHARDING: 'true' }).sharding, true);
    assert.equal(parseManagerOptions([], {}).sharding, false);
  });
});
