import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { generateCrds } from '../../../src/generate/crd/index.ts';

const BIN = new URL('../../../bin/op-gen.js', import.meta.url).pathname;

/** An API with the kinds `kinds` in group `group`/v1 under `apiDir`. */
function api(cwd: string, apiDir: string, group: string, kinds: readonly string[]): void {
  const folder = join(cwd, apiDir, group.split('.')[0]!, 'v1');
  rmSync(folder, { recursive: true, force: true });
  mkdirSync(folder, { recursive: true });
  writeFileSync(
    join(folder, 'groupversion.ts'),
    `export const groupVersion = { group: '${group}', version: 'v1' } as const;\n`,
  );
  for (const kind of kinds) {
    writeFileSync(
      join(folder, `${kind.toLowerCase()}.ts`),
      `import type { ObjectMeta } from 'op-gen';\n/**\n * ${kind}.\n * @kind\n */\nexport interface ${kind} {\n  metadata?: ObjectMeta;\n  spec: { size?: number };\n}\n`,
    );
  }
}

describe('generate crd: stale CRD files', () => {
  const root = mkdtempSync(join(tmpdir(), 'op-gen-crd-stale-'));
  after(() => rmSync(root, { recursive: true, force: true }));
  const out = (cwd: string): string[] => readdirSync(join(cwd, 'config/crd/bases')).sort();

  it('removes the CRD of a removed kind, and --check counts it first', async () => {
    const cwd = join(root, 'removed');
    api(cwd, 'src/api', 'things.example.com', ['Thing', 'Gadget']);
    await generateCrds({ cwd });
    assert.deepEqual(out(cwd), ['things.example.com_gadgets.yaml', 'things.example.com_things.yaml']);
    api(cwd, 'src/api', 'things.example.com', ['Thing']);
    const check = await generateCrds({ cwd, check: true });
    assert.deepEqual(check.stale, ['config/crd/bases/things.example.com_gadgets.yaml']);
    assert.deepEqual(check.removed, []);
    assert.equal(out(cwd).length, 2, '--check removes nothing');
    const r = await generateCrds({ cwd });
    assert.deepEqual(r.removed, ['config/crd/bases/things.example.com_gadgets.yaml']);
    assert.deepEqual(out(cwd), ['things.example.com_things.yaml']);
  });

  it("leaves files op-gen did not write and other groups' CRDs alone", async () => {
    const cwd = join(root, 'others');
    api(cwd, 'src/api', 'things.example.com', ['Thing', 'Gadget']);
    api(cwd, 'other-api', 'other.example.com', ['Other']);
    await generateCrds({ cwd });
    await generateCrds({ cwd, apiDir: 'other-api' });
    const bases = join(cwd, 'config/crd/bases');
    // A hand-written CRD of the same group, without op-gen's annotation.
    writeFileSync(
      join(bases, 'things.example.com_handmades.yaml'),
      'apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: handmades.things.example.com\nspec:\n  group: things.example.com\n',
    );
    writeFileSync(join(bases, 'things.example.com_notes.yaml'), 'not: a crd\n');
    // Not YAML op-gen can read (an alias without its anchor): not op-gen's, and no crash.
    writeFileSync(join(bases, 'things.example.com_broken.yaml'), 'kind: *a\n');
    api(cwd, 'src/api', 'things.example.com', ['Thing']);
    const r = await generateCrds({ cwd });
    assert.deepEqual(r.removed, ['config/crd/bases/things.example.com_gadgets.yaml']);
    assert.deepEqual(out(cwd), [
      'other.example.com_others.yaml',
      'things.example.com_broken.yaml',
      'things.example.com_handmades.yaml',
      'things.example.com_notes.yaml',
      'things.example.com_things.yaml',
    ]);
  });

  it('the CLI says what it removed', () => {
    const cwd = join(root, 'cli');
    api(cwd, 'src/api', 'things.example.com', ['Thing', 'Gadget']);
    const run = (...args: string[]) =>
      spawnSync(process.execPath, [BIN, 'generate', 'crd', '--cwd', cwd, ...args], { encoding: 'utf8' });
    assert.equal(run().status, 0);
    api(cwd, 'src/api', 'things.example.com', ['Thing']);
    const check = run('--check');
    assert.equal(check.status, 1);
    assert.match(check.stderr, /things\.example\.com_gadgets\.yaml/);
    const r = run();
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /removed +config\/crd\/bases\/things\.example\.com_gadgets\.yaml \(stale\)/);
    assert.equal(existsSync(join(cwd, 'config/crd/bases/things.example.com_gadgets.yaml')), false);
    assert.equal(run('--check').status, 0);
  });
});
