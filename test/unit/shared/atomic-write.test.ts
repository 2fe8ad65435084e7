import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { writeFilesAtomically } from '../../../src/shared/atomic-write.ts';

const ATOMIC_WRITE = new URL('../../../src/shared/atomic-write.ts', import.meta.url).href;

/** Runs `script` (an ES module body, `ATOMIC_WRITE` and `ARGS` in scope) in a child process; resolves with its stdout. */
function runChild(
  script: string,
  args: readonly string[],
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const source = `import * as atomic from ${JSON.stringify(ATOMIC_WRITE)};\nconst ARGS = ${JSON.stringify(args)};\n${script}`;
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', source], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', fail);
    child.on('close', (code) => done({ code, stdout, stderr }));
  });
}

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

/**
 * The temp file's name is `<target>.op-gen-<pid>-<count>-<time>.tmp`, created with the exclusive
 * flag: a name another writer holds (the same pid in another container, a file a crashed run left)
 * is skipped, never written or renamed. A child process has a known pid and count (0 at start), and
 * its clock is pinned, so the names it will try are known.
 */
describe('writeFilesAtomically: temp names', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'op-gen-atomic-names-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const takeNames = `
    import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
    Date.now = () => 0;
    const [target, taken] = ARGS;
    const names = Array.from({ length: Number(taken) }, (_, n) => \`\${target}.op-gen-\${process.pid}-\${n.toString(36)}-0.tmp\`);
    for (const name of names) writeFileSync(name, 'another writer\\n');
    let error;
    try {
      atomic.writeFilesAtomically([{ path: target, content: 'mine\\n', mode: 0o750 }]);
    } catch (err) {
      error = err.code;
    }
    process.stdout.write(JSON.stringify({
      error,
      untouched: names.every((name) => readFileSync(name, 'utf8') === 'another writer\\n'),
      files: readdirSync(ARGS[2]).length,
    }));
  `;

  it('skips temp names other writers hold and leaves their files as they were', async () => {
    const target = join(dir, 'a.yaml');
    const run = await runChild(takeNames, [target, '2', dir]);
    assert.equal(run.code, 0, run.stderr);
    assert.deepEqual(JSON.parse(run.stdout), { untouched: true, files: 3 });
    assert.equal(readFileSync(target, 'utf8'), 'mine\n');
    assert.equal(statSync(target).mode & 0o777, 0o750 & ~process.umask(), 'the mode asked for');
  });

  it('gives up with EEXIST after 100 taken names and writes no target', async () => {
    const target = join(dir, 'a.yaml');
    const run = await runChild(takeNames, [target, '100', dir]);
    assert.equal(run.code, 0, run.stderr);
    assert.deepEqual(JSON.parse(run.stdout), { error: 'EEXIST', untouched: true, files: 100 });
    assert.equal(existsSync(target), false);
  });
});

/**
 * Writers in several processes at once, each replacing the same files over and over: every file
 * ends as one writer's whole content (never two writers' bytes mixed, never a half-written file),
 * every write succeeds, and no temp file is left.
 */
describe('writeFilesAtomically: concurrent writers', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'op-gen-atomic-race-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('four processes writing the same 8 files 40 times each: whole files, no failure, no temp file left', async () => {
    const writer = `
      import { join } from 'node:path';
      const [dir, id] = ARGS;
      for (let round = 0; round < 40; round++) {
        const line = \`writer \${id} round \${round}\\n\`;
        atomic.writeFilesAtomically(
          Array.from({ length: 8 }, (_, i) => ({ path: join(dir, 'out', \`f\${i}.yaml\`), content: line.repeat(2000) })),
        );
      }
    `;
    const runs = await Promise.all(['0', '1', '2', '3'].map((id) => runChild(writer, [dir, id])));
    for (const run of runs) assert.equal(run.code, 0, run.stderr);
    const files = readdirSync(join(dir, 'out')).sort();
    assert.deepEqual(
      files,
      Array.from({ length: 8 }, (_, i) => `f${i}.yaml`),
      'no temp file left',
    );
    for (const file of files) {
      const content = readFileSync(join(dir, 'out', file), 'utf8');
      const line = content.slice(0, content.indexOf('\n') + 1);
      assert.match(line, /^writer [0-3] round \d+\n$/);
      assert.equal(content, line.repeat(2000), `${file} is one writer's whole content`);
    }
  });
});
