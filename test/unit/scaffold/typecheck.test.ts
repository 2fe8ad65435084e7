import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { createApi } from '../../../src/scaffold/create-api.ts';
import { initProject } from '../../../src/scaffold/init.ts';
import { quietIo } from './helpers.ts';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
// Inside op-gen's tree (so @kubernetes/client-node and yaml resolve from op-gen's node_modules) but
// in a folder op-gen's own tsconfig excludes (test/**/tmp).
const TMP = join(ROOT, 'test/unit/scaffold/tmp');

describe('generated code type-checks with the project tsconfig (strict) against op-gen sources', () => {
  mkdirSync(TMP, { recursive: true });
  const dir = mkdtempSync(join(TMP, 'typecheck-'));
  after(() => rmSync(TMP, { recursive: true, force: true }));

  it('init + create api (namespaced with controller, cluster-scoped, second version) compile', async () => {
    const root = join(dir, 'proj');
    await initProject({ dir: root, domain: 'example.com', skipInstall: true }, quietIo());
    await createApi({ dir: root, group: 'cache', version: 'v1alpha1', kind: 'Memcached' }, quietIo());
    await createApi({ dir: root, group: 'cache', version: 'v1', kind: 'Memcached' }, quietIo());
    await createApi(
      { dir: root, group: 'infra', version: 'v1beta1', kind: 'ClusterPolicy', namespaced: false },
      quietIo(),
    );
    // The generated tsconfig, with `op-gen` mapped to this working tree's sources instead of an install.
    writeFileSync(
      join(root, 'tsconfig.check.json'),
      JSON.stringify({
        extends: './tsconfig.json',
        compilerOptions: {
          rootDir: ROOT,
          paths: {
            'op-gen': [join(ROOT, 'src/index.ts')],
            'op-gen/runtime': [join(ROOT, 'src/runtime/index.ts')],
            'op-gen/testing': [join(ROOT, 'src/testing/index.ts')],
          },
          typeRoots: [join(ROOT, 'node_modules/@types')],
        },
      }),
    );
    const tsc = spawnSync(
      process.execPath,
      [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.check.json', '--noEmit'],
      { cwd: root, encoding: 'utf8' },
    );
    assert.equal(tsc.status, 0, `tsc failed on the generated project:\n${tsc.stdout}${tsc.stderr}`);
  });
});
