import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { generateCrds } from '../../../src/generate/crd/index.ts';

/** Writes an API with the kind Thing in each of `versions`; `markers[v]` are its kind markers there. */
function project(root: string, name: string, versions: Record<string, string>): string {
  const dir = join(root, name);
  for (const [version, markers] of Object.entries(versions)) {
    const folder = join(dir, 'src/api/things', version);
    mkdirSync(folder, { recursive: true });
    writeFileSync(
      join(folder, 'groupversion.ts'),
      `export const groupVersion = { group: 'things.example.com', version: '${version}' } as const;\n`,
    );
    writeFileSync(
      join(folder, 'thing.ts'),
      `import type { ObjectMeta } from 'op-gen';\n/**\n * Thing.\n * @kind\n${markers
        .split('\n')
        .filter(Boolean)
        .map((m) => ` * ${m}\n`)
        .join('')} */\nexport interface Thing {\n  metadata?: ObjectMeta;\n  spec: { size?: number };\n}\n`,
    );
  }
  return dir;
}

describe('kinds with several versions', () => {
  const root = mkdtempSync(join(tmpdir(), 'op-gen-crd-versions-'));
  after(() => rmSync(root, { recursive: true, force: true }));

  it('one CRD holds every version; the marked one is the storage version', async () => {
    const cwd = project(root, 'ok', {
      v1: '@storageversion',
      v1beta1: '@deprecatedversion',
      v2alpha1: '@unservedversion',
    });
    const { crds, files } = await generateCrds({ cwd });
    assert.deepEqual(files, ['config/crd/bases/things.example.com_things.yaml']);
    const versions = crds[0]?.spec.versions.map(
      (v) =>
        `${v.name}:${v.served ? 'served' : 'unserved'}:${v.storage ? 'storage' : '-'}${v.deprecated ? ':deprecated' : ''}`,
    );
    assert.deepEqual(versions, ['v1:served:storage', 'v1beta1:served:-:deprecated', 'v2alpha1:unserved:-']);
  });

  it('no storage version among several is an error listing them', async () => {
    const cwd = project(root, 'none', { v1: '', v2: '' });
    await assert.rejects(
      generateCrds({ cwd }),
      /: src\/api\/things\/v1\/thing\.ts:6: Thing\.things\.example\.com: no version is marked @storageversion among v1 \(src\/api\/things\/v1\/thing\.ts:6\), v2 .*Mark exactly one/,
    );
    assert.equal(existsSync(join(cwd, 'config')), false);
  });

  it('the problems of several kinds are reported together', async () => {
    const cwd = project(root, 'several', { v1: '', v2: '' });
    for (const [version, markers] of [
      ['v1', '@storageversion'],
      ['v2', '@scope Cluster'],
    ] as const) {
      writeFileSync(
        join(cwd, 'src/api/things', version, 'gadget.ts'),
        `import type { ObjectMeta } from 'op-gen';\n/**\n * Gadget.\n * @kind\n * ${markers}\n */\nexport interface Gadget {\n  metadata?: ObjectMeta;\n  spec: { size?: number };\n}\n`,
      );
    }
    await assert.rejects(generateCrds({ cwd }), (err: Error) => {
      assert.match(
        err.message,
        /gadget\.ts:7: Gadget \(v2\): scope "Cluster" differs from v1's "Namespaced"/,
      );
      assert.match(
        err.message,
        /thing\.ts:6: Thing\.things\.example\.com: no version is marked @storageversion/,
      );
      assert.match(err.message, /\n2 problems$/);
      return true;
    });
    assert.equal(existsSync(join(cwd, 'config')), false);
  });

  it('two storage versions is an error', async () => {
    const cwd = project(root, 'two', { v1: '@storageversion', v2: '@storageversion' });
    await assert.rejects(
      generateCrds({ cwd }),
      /: src\/api\/things\/v2\/thing\.ts:7: Thing\.things\.example\.com: 2 versions are marked @storageversion/,
    );
  });

  it('versions must agree on names and scope', async () => {
    const cwd = project(root, 'scope', { v1: '@storageversion\n@scope Cluster', v2: '' });
    await assert.rejects(
      generateCrds({ cwd }),
      /v2\/thing\.ts:6: Thing \(v2\): scope "Namespaced" differs from v1's "Cluster"/,
    );
  });

  it('@skipversion leaves a version out', async () => {
    const cwd = project(root, 'skip', { v1: '', v2: '@skipversion' });
    const { crds } = await generateCrds({ cwd });
    assert.deepEqual(
      crds[0]?.spec.versions.map((v) => v.name),
      ['v1'],
    );
  });
});
