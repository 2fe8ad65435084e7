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
import { afterEach, beforeEach, describe, it } from 'node:test';
import { writeFilesAtomically } from '../../../src/shared/atomic-write.ts';

/** Every file and folder under `dir`, relative, sorted: the whole state a failed write must restore. */
function tree(dir: string): string[] {
  return readdirSync(dir, { recursive: true }).map(String).sort();
}

/** All or nothing: a write that fails part-way leaves every target, and the tree, as it was. */
describe('writeFilesAtomically', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'op-gen-atomic-'));
    mkdirSync(join(dir, 'config'));
    writeFileSync(join(dir, 'config', 'a.yaml'), 'old a\n');
    // A file where a later output needs a folder: writing under it fails (ENOTDIR).
    writeFileSync(join(dir, 'blocker'), 'not a folder\n');
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('writes every changed file and reports only those', () => {
    const changed = writeFilesAtomically([
      { path: join(dir, 'config', 'a.yaml'), content: 'old a\n' },
      { path: join(dir, 'config', 'b.yaml'), content: 'b\n' },
      { path: join(dir, 'new', 'deep', 'c.yaml'), content: 'c\n' },
    ]);
    assert.deepEqual(changed, [join(dir, 'config', 'b.yaml'), join(dir, 'new', 'deep', 'c.yaml')]);
    assert.equal(readFileSync(join(dir, 'new', 'deep', 'c.yaml'), 'utf8'), 'c\n');
  });

  it('a write that fails after others were staged touches no target and leaves no temp file or new folder', () => {
    const before = tree(dir);
    assert.throws(
      () =>
        writeFilesAtomically([
          { path: join(dir, 'config', 'a.yaml'), content: 'new a\n' },
          { path: join(dir, 'fresh', 'nested', 'b.yaml'), content: 'b\n' },
          { path: join(dir, 'blocker', 'c.yaml'), content: 'c\n' },
        ]),
      /ENOTDIR|EEXIST/,
    );
    assert.equal(
      readFileSync(join(dir, 'config', 'a.yaml'), 'utf8'),
      'old a\n',
      'the existing file is untouched',
    );
    assert.equal(existsSync(join(dir, 'fresh')), false, 'the folders it created are removed');
    assert.deepEqual(tree(dir), before, 'nothing added, nothing removed');
  });
});
