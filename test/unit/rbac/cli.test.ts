import assert from 'node:assert/strict';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Writable } from 'node:stream';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { main } from '../../../src/cli/main.ts';

const here = dirname(fileURLToPath(import.meta.url));
const dirs: string[] = [];
after(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function copyFixture(name: string): string {
  const root = mkdtempSync(join(tmpdir(), 'op-gen-rbac-cli-'));
  dirs.push(root);
  cpSync(join(here, '../../fixtures/rbac', name), root, { recursive: true });
  return root;
}

async function run(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  const chunks = { out: '', err: '' };
  const sink = (key: 'out' | 'err') =>
    new Writable({
      write(chunk: Buffer, _enc, done) {
        chunks[key] += chunk.toString();
        done();
      },
    });
  const code = await main(argv, { stdout: sink('out'), stderr: sink('err') });
  return { code, ...chunks };
}

describe('op-gen generate rbac (CLI)', () => {
  it('writes config/rbac matching the goldens, then --check passes', async () => {
    const root = copyFixture('memcached');
    const r = await run('generate', 'rbac', '--cwd', root);
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /^wrote {5}config\/rbac\/role\.yaml$/m);
    for (const f of ['role.yaml', 'role_binding.yaml', 'kustomization.yaml', 'leader_election_role.yaml']) {
      assert.equal(
        readFileSync(join(root, 'config/rbac', f), 'utf8'),
        readFileSync(join(here, '../../golden/rbac/memcached', f), 'utf8'),
        f,
      );
    }
    const again = await run('generate', 'rbac', '--cwd', root);
    assert.doesNotMatch(again.out, /wrote/);
    assert.match(again.out, /^unchanged config\/rbac\/role\.yaml$/m);
    const check = await run('generate', 'rbac', '--check', '--cwd', root);
    assert.equal(check.code, 0, check.err);
  });

  it('--check fails naming the stale file and writes nothing', async () => {
    const root = copyFixture('memcached');
    assert.equal((await run('generate', 'rbac', '--cwd', root)).code, 0);
    const role = join(root, 'config/rbac/role.yaml');
    writeFileSync(role, 'stale\n');
    const check = await run('generate', 'rbac', '--check', '--cwd', root);
    assert.equal(check.code, 1);
    assert.match(check.err, /1 RBAC file\(s\) out of date:\n {2}config\/rbac\/role\.yaml\n/);
    assert.equal(readFileSync(role, 'utf8'), 'stale\n');
    // --no-infer changes role.yaml: --check sees that too
    assert.equal((await run('generate', 'rbac', '--cwd', root)).code, 0);
    assert.equal((await run('generate', 'rbac', '--check', '--no-infer', '--cwd', root)).code, 1);
  });

  it('keeps other YAML files of config/rbac in kustomization.yaml', async () => {
    const root = copyFixture('memcached');
    assert.equal((await run('generate', 'rbac', '--cwd', root)).code, 0);
    writeFileSync(join(root, 'config/rbac/memcached_editor_role.yaml'), 'kind: ClusterRole\n');
    assert.equal((await run('generate', 'rbac', '--cwd', root)).code, 0);
    const kustomization = readFileSync(join(root, 'config/rbac/kustomization.yaml'), 'utf8');
    assert.match(kustomization, /- metrics_reader_role\.yaml\n {2}- memcached_editor_role\.yaml\n$/);
  });

  it('exits non-zero with file:line on a bad marker and writes nothing', async () => {
    const root = copyFixture('memcached');
    const controller = join(root, 'src/controllers/memcached-controller.ts');
    writeFileSync(
      controller,
      readFileSync(controller, 'utf8').replace('verbs=create;update;patch;delete', 'verbs=create;*'),
    );
    const r = await run('generate', 'rbac', '--cwd', root);
    assert.equal(r.code, 1);
    assert.match(
      r.err,
      /^op-gen: src\/controllers\/memcached-controller\.ts:9: @rbac: wildcard `\*` in verbs .*--allow-wildcards/,
    );
    assert.equal(existsSync(join(root, 'config')), false);
    const allowed = await run('generate', 'rbac', '--allow-wildcards', '--cwd', root);
    assert.equal(allowed.code, 0, allowed.err);
    assert.match(
      readFileSync(join(root, 'config/rbac/role.yaml'), 'utf8'),
      /deployments\n {4}verbs:\n {6}- "\*"/,
    );
  });

  it('takes the role name from the project file and --role-name over it', async () => {
    const root = copyFixture('multi');
    assert.equal((await run('generate', 'rbac', '--cwd', root)).code, 0);
    assert.match(readFileSync(join(root, 'config/rbac/role.yaml'), 'utf8'), /name: multi-manager\n/);
    assert.equal((await run('generate', 'rbac', '--role-name', 'other-role', '--cwd', root)).code, 0);
    const binding = readFileSync(join(root, 'config/rbac/role_binding.yaml'), 'utf8');
    assert.match(binding, /name: other-rolebinding\n/);
  });
});
