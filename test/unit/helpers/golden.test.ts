import assert from 'node:assert/strict';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { assertGolden, assertGoldenDir, goldenUpdate } from '../../helpers/golden.ts';

describe('test/helpers/golden.ts', () => {
  const dir = mkdtempSync(join(tmpdir(), 'op-gen-golden-helper-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const check = { env: {} };
  const update = { env: { UPDATE_GOLDEN: '1' } };

  it('rewrites only on UPDATE_GOLDEN=1: 0, true, yes and empty compare', () => {
    assert.equal(goldenUpdate({ UPDATE_GOLDEN: '1' }), true);
    for (const value of ['0', 'true', 'yes', '', undefined]) {
      assert.equal(goldenUpdate({ UPDATE_GOLDEN: value }), false, `UPDATE_GOLDEN=${String(value)}`);
    }
  });

  it('refuses to rewrite under CI', () => {
    assert.throws(
      () => goldenUpdate({ UPDATE_GOLDEN: '1', CI: 'true' }),
      /UPDATE_GOLDEN=1 and CI are both set/,
    );
    const path = join(dir, 'ci.txt');
    writeFileSync(path, 'old\n');
    assert.throws(() => assertGolden(path, 'new\n', { env: { UPDATE_GOLDEN: '1', CI: '1' } }), /both set/);
    assert.equal(readFileSync(path, 'utf8'), 'old\n', 'the golden is untouched');
    assert.equal(goldenUpdate({ UPDATE_GOLDEN: '0', CI: 'true' }), false);
  });

  it('compare mode fails on a difference or a missing golden and writes nothing', () => {
    const path = join(dir, 'a.txt');
    writeFileSync(path, 'golden\n');
    assertGolden(path, 'golden\n', check);
    assert.throws(() => assertGolden(path, 'changed\n', check), /a\.txt differs from the generated text/);
    assert.equal(readFileSync(path, 'utf8'), 'golden\n');
    const missing = join(dir, 'missing.txt');
    assert.throws(() => assertGolden(missing, 'x\n', check), /missing\.txt is missing/);
    assert.equal(existsSync(missing), false);
  });

  it('update mode writes the golden, and still fails on empty output', () => {
    const path = join(dir, 'sub', 'b.txt');
    assertGolden(path, 'fresh\n', update);
    assert.equal(readFileSync(path, 'utf8'), 'fresh\n');
    assert.throws(() => assertGolden(path, '  \n', update), /the generated text is empty/);
    assert.equal(readFileSync(path, 'utf8'), 'fresh\n');
  });

  it('a golden directory holds exactly the generated files', () => {
    const goldens = join(dir, 'tree');
    mkdirSync(join(goldens, 'x'), { recursive: true });
    writeFileSync(join(goldens, 'x', 'one.yaml'), 'one\n');
    writeFileSync(join(goldens, 'stale.yaml'), 'stale\n');
    const files = new Map([['x/one.yaml', 'one\n']]);
    assert.throws(() => assertGoldenDir(goldens, files, check), /holds other files than generated/);
    assertGoldenDir(goldens, files, update);
    assert.equal(existsSync(join(goldens, 'stale.yaml')), false, 'update mode removes a stale golden');
    assertGoldenDir(goldens, files, check);
    assert.throws(() => assertGoldenDir(goldens, new Map(), update), /nothing was generated/);
  });

  it('is the only code under test/ that reads UPDATE_GOLDEN', () => {
    const test = join(import.meta.dirname, '..', '..');
    const readers = readdirSync(test, { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile() && e.name.endsWith('.ts'))
      .map((e) => join(e.parentPath, e.name))
      .filter((f) => f !== join(test, 'helpers', 'golden.ts'))
      .filter((f) => /env(\.UPDATE_GOLDEN|\[['"]UPDATE_GOLDEN)/.test(readFileSync(f, 'utf8')));
    assert.deepEqual(readers, [], 'golden tests compare through test/helpers/golden.ts');
  });
});
