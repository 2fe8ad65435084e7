import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { main } from '../../../src/cli/main.ts';
import { createApi } from '../../../src/scaffold/create-api.ts';
import { initProject } from '../../../src/scaffold/init.ts';
import { programsCreated } from '../../../src/source/source-set.ts';
import { sink } from '../../helpers/io.ts';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
// Inside op-gen's tree (so `op-gen` resolves for the generators) in a folder op-gen's tsconfig excludes.
const TMP = join(ROOT, 'test/unit/cli/tmp');
const quiet = (): Writable => new Writable({ write: (_c, _e, done) => done() });

async function run(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  const out = sink();
  const err = sink();
  const code = await main(argv, { stdout: out.stream, stderr: err.stream });
  return { code, out: out.text(), err: err.text() };
}

describe('op-gen generate (no subcommand): crd, rbac and client in one run', () => {
  let project = '';
  before(async () => {
    mkdirSync(TMP, { recursive: true });
    project = join(mkdtempSync(join(TMP, 'gen-')), 'p');
    const io = { stdout: quiet(), stderr: quiet() };
    await initProject({ dir: project, domain: 'example.com', skipInstall: true }, io);
    await createApi(
      { dir: project, group: 'cache', version: 'v1alpha1', kind: 'Memcached', skipGenerate: true },
      io,
    );
  });
  after(() => rmSync(TMP, { recursive: true, force: true }));

  it('writes the three outputs, loading the sources once', async () => {
    const programs = programsCreated();
    const r = await run('--cwd', project, 'generate');
    assert.equal(r.code, 0, r.err);
    assert.equal(programsCreated() - programs, 1);
    for (const file of [
      'config/crd/bases/cache.example.com_memcacheds.yaml',
      'config/rbac/role.yaml',
      'src/clients/cache/v1alpha1/memcached.ts',
    ])
      assert.match(r.out, new RegExp(`^wrote +${file}$`, 'm'));
  });

  it('--check lists the files out of date of every generator at once (exit 1)', async () => {
    const ok = await run('--cwd', project, 'generate', '--check');
    assert.equal(ok.code, 0, ok.err);
    assert.match(ok.out, /^1 CRD file\(s\) up to date$/m);
    assert.match(ok.out, /^1 client file\(s\) up to date$/m);
    const crd = join(project, 'config/crd/bases/cache.example.com_memcacheds.yaml');
    const client = join(project, 'src/clients/cache/v1alpha1/memcached.ts');
    writeFileSync(crd, `${readFileSync(crd, 'utf8')}# edited\n`);
    writeFileSync(client, `${readFileSync(client, 'utf8')}// edited\n`);
    const stale = await run('--cwd', project, 'generate', '--check');
    assert.equal(stale.code, 1);
    assert.match(
      stale.err,
      /1 CRD file\(s\) out of date:\n {2}config\/crd\/bases\/cache\.example\.com_memcacheds\.yaml/,
    );
    assert.match(
      stale.err,
      /1 client file\(s\) out of date:\n {2}src\/clients\/cache\/v1alpha1\/memcached\.ts/,
    );
    assert.match(stale.out, /^9 RBAC file\(s\) up to date$/m);
  });

  it('runs generate webhook too once op-gen.yaml records webhooks, still loading the sources once', async () => {
    const file = join(project, 'op-gen.yaml');
    const original = readFileSync(file, 'utf8');
    try {
      // What `create webhook` records; the project has no @webhook markers, so the generator plans
      // its (empty) outputs: this checks that `op-gen generate` runs it, not what it writes.
      writeFileSync(
        file,
        original.replace(/controller: true\n/, 'controller: true\n    webhooks:\n      defaulting: true\n'),
      );
      assert.notEqual(readFileSync(file, 'utf8'), original);
      const programs = programsCreated();
      const r = await run('--cwd', project, 'generate', '--check');
      assert.equal(programsCreated() - programs, 1);
      assert.match(r.out, /^0 webhook file\(s\) up to date$/m);
    } finally {
      writeFileSync(file, original);
    }
    const without = await run('--cwd', project, 'generate', '--check');
    assert.doesNotMatch(`${without.out}${without.err}`, /webhook/);
  });

  it('rejects a word that names no generator as an unknown command, with the closest one', async () => {
    const r = await run('--cwd', project, 'generate', 'crdd');
    assert.equal(r.code, 2);
    assert.match(r.err, /unknown command 'crdd'/);
    assert.match(r.err, /Did you mean crd\?/);
  });
});
