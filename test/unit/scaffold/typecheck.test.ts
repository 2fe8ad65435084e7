import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { createApi } from '../../../src/scaffold/create-api.ts';
import { initProject } from '../../../src/scaffold/init.ts';
import { quietIo, typecheckAgainstSources } from './helpers.ts';

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
    typecheckAgainstSources(root);
  });
});
