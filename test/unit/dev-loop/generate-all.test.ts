import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { projectGenerator } from '../../../src/dev-loop/generate-all.ts';
import { createApi } from '../../../src/scaffold/create-api.ts';
import { initProject } from '../../../src/scaffold/init.ts';
import { programsCreated } from '../../../src/source/source-set.ts';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
// Inside op-gen's tree (so `op-gen` resolves for the generators) in a folder op-gen's tsconfig excludes.
const TMP = join(ROOT, 'test/unit/dev-loop/tmp');
const quiet = (): Writable => new Writable({ write: (_c, _e, done) => done() });

describe('projectGenerator', () => {
  mkdirSync(TMP, { recursive: true });
  const dir = mkdtempSync(join(TMP, 'gen-'));
  after(() => rmSync(TMP, { recursive: true, force: true }));

  it('generates everything first; a change outside the API folder regenerates only the RBAC', async () => {
    const project = join(dir, 'p');
    const io = { stdout: quiet(), stderr: quiet() };
    await initProject({ dir: project, domain: 'example.com', skipInstall: true }, io);
    await createApi(
      {
        dir: project,
        group: 'cache',
        version: 'v1alpha1',
        kind: 'Memcached',
        example: 'deployment',
        skipGenerate: true,
      },
      io,
    );
    const generate = projectGenerator(project);
    const crdFile = 'config/crd/bases/cache.example.com_memcacheds.yaml';

    const programs = programsCreated();
    const first = await generate();
    // The round's generators share one context: the sources load once (one compiler program).
    assert.equal(programsCreated() - programs, 1);
    assert.deepEqual(
      first.crds.map((c) => c.metadata.name),
      ['memcacheds.cache.example.com'],
    );
    assert.ok(first.written.includes(crdFile), first.written.join(', '));
    assert.ok(first.written.includes('config/rbac/role.yaml'));
    assert.ok(first.written.some((f) => f.startsWith('src/clients/')));

    // A controller edit: the CRD file is not looked at (a hand edit stays), the CRDs are the last ones.
    writeFileSync(join(project, crdFile), '# hand edit\n');
    const controller = join(project, 'src/controllers/memcached.controller.ts');
    const second = await generate([controller]);
    assert.equal(readFileSync(join(project, crdFile), 'utf8'), '# hand edit\n');
    assert.deepEqual(second.crds, first.crds);
    assert.deepEqual(second.written, []);

    // An API edit: the CRD is generated again.
    const api = join(project, 'src/api/cache/v1alpha1/memcached.ts');
    writeFileSync(api, readFileSync(api, 'utf8').replace('@maximum 10\n', '@maximum 20\n'));
    const third = await generate([api]);
    assert.deepEqual(third.written, [crdFile]);
    assert.match(readFileSync(join(project, crdFile), 'utf8'), /maximum: 20/);
  });
});
