import assert from 'node:assert/strict';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join, relative } from 'node:path';
import { Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { loadApiModel } from '../../../src/generate/api-model.ts';
import { generate, generateAll, PROJECT_GENERATORS, runContext } from '../../../src/generate/registry.ts';
import { generatorContext } from '../../../src/generation/context.ts';
import { createApi } from '../../../src/scaffold/create-api.ts';
import { initProject } from '../../../src/scaffold/init.ts';
import { programsCreated } from '../../../src/source/source-set.ts';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
// Inside op-gen's tree (so `op-gen` resolves for the generators) in a folder op-gen's tsconfig excludes.
const TMP = join(ROOT, 'test/unit/generation/tmp');
const quiet = (): Writable => new Writable({ write: (_c, _e, done) => done() });

/** Every file under `dir` (config/, src/clients/), by path relative to it. */
function tree(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const sub of ['config', 'src/clients']) {
    for (const f of readdirSync(join(dir, sub), { recursive: true, encoding: 'utf8' })) {
      const path = join(dir, sub, f);
      try {
        out[relative(dir, path)] = readFileSync(path, 'utf8');
      } catch {
        // a folder
      }
    }
  }
  return out;
}

describe('one source set per run (generation/context.ts, source/source-set.ts)', () => {
  let scaffold = '';
  let n = 0;
  const project = (): string => {
    const dir = join(scaffold, '..', `p${n++}`);
    cpSync(scaffold, dir, { recursive: true });
    return dir;
  };

  before(async () => {
    mkdirSync(TMP, { recursive: true });
    scaffold = join(mkdtempSync(join(TMP, 'set-')), 'scaffold');
    const io = { stdout: quiet(), stderr: quiet() };
    await initProject({ dir: scaffold, domain: 'example.com', skipInstall: true }, io);
    await createApi(
      { dir: scaffold, group: 'cache', version: 'v1alpha1', kind: 'Memcached', skipGenerate: true },
      io,
    );
  });
  after(() => rmSync(TMP, { recursive: true, force: true }));

  it('crd, rbac and client in one run create one compiler program, and write what three runs write', async () => {
    const shared = project();
    const first = programsCreated();
    const results = await generateAll(PROJECT_GENERATORS, { cwd: shared });
    assert.equal(programsCreated() - first, 1);
    assert.deepEqual(Object.keys(results), ['crd', 'rbac', 'client']);

    const apart = project();
    for (const name of PROJECT_GENERATORS) await generate(name, { cwd: apart });
    assert.deepEqual(tree(shared), tree(apart));
    assert.ok(Object.keys(tree(shared)).includes('config/rbac/role.yaml'));
  });

  it('the API walk and generate rbac in one context share the program', async () => {
    const cwd = project();
    const first = programsCreated();
    const ctx = await runContext(['rbac'], { cwd });
    // The API model always comes from the checker's walk (with field docs): it loads the program.
    const model = await loadApiModel({ cwd, sources: ctx.sources });
    assert.deepEqual(
      model.map((k) => k.kind),
      ['Memcached'],
    );
    await generate('rbac', { cwd }, ctx);
    assert.equal(programsCreated() - first, 1);
    assert.equal(ctx.sources.projectProgram(['src']).program, ctx.sources.apiProgram().program);
  });

  it('a context that did not expect the project folders loads a second program, parsing no file twice', () => {
    const cwd = project();
    const ctx = generatorContext({ cwd });
    const first = programsCreated();
    const api = ctx.sources.apiProgram();
    assert.equal(ctx.sources.apiProgram(), api, 'asked again: the same program');
    const all = ctx.sources.projectProgram(['src']);
    assert.equal(programsCreated() - first, 2);
    const file = join(cwd, 'src/api/cache/v1alpha1/memcached.ts');
    assert.ok(api.program.getSourceFile(file));
    assert.equal(all.program.getSourceFile(file), api.program.getSourceFile(file));
    assert.deepEqual(all.apiFiles, [
      join(cwd, 'src/api/cache/v1alpha1/groupversion.ts'),
      join(cwd, 'src/api/cache/v1alpha1/memcached.ts'),
    ]);
    // The API sources of the program are the API folder's and what they import, never a controller.
    assert.ok(all.apiSources.some((f) => f.fileName === file));
    assert.ok(!all.apiSources.some((f) => f.fileName.includes('/controllers/')));
  });

  it("a folder a later generator expects that is not there is that generator's error, not the first loader's", async () => {
    const cwd = project();
    const ctx = generatorContext({ cwd });
    ctx.sources.expect(['nope']);
    assert.ok(ctx.sources.apiProgram().apiSources.length > 0);
    await assert.rejects(generate('rbac', { cwd, paths: ['nope'] }, ctx), /nope: no such directory/);
  });
});
