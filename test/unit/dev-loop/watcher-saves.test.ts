import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { after, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { SourceSnapshot } from '../../../src/dev-loop/source-snapshot.ts';
import { watchDebounced } from '../../../src/dev-loop/watcher.ts';

/**
 * The watcher as `op-gen run` uses it (watchDebounced over the real file system, then SourceSnapshot:
 * only content changes count), driven by the save patterns of real editors and tools on a real folder.
 * Absence is never checked by sleeping: after each save the test writes a marker file and waits for
 * the marker's change to come out of the watcher; the kernel reports a process's file events in order,
 * so by then every event of the save before it has been through the watcher.
 */

const run = promisify(execFile);

/** A watcher that lost the folder never reports the marker: fail with that instead of the suite's timeout. */
function bounded<T>(what: string, promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const lost = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(
      () => reject(new Error(`${what}: not reported within 10 s (the watcher lost it)`)),
      10_000,
    );
  });
  return Promise.race([promise, lost]).finally(() => clearTimeout(timer));
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name));
}

interface Session {
  /** Writes a marker file, waits until the watcher reports it, and returns the content changes reported before it. */
  settle(): Promise<string[]>;
  /** Waits until the content changes reported satisfy `done` (no marker: when src/ itself is gone). */
  until(done: (changed: readonly string[]) => boolean): Promise<string[]>;
  close(): void;
}

/** Watches `root` like op-gen run does (paths relative to `root`, sorted). */
function watchSources(root: string): Session {
  const snapshot = new SourceSnapshot();
  snapshot.refresh(filesUnder(root));
  const marker = join(root, 'zz-marker.ts');
  let seen: string[] = [];
  let markerCount = 0;
  let waiting: { count: number; resolve: () => void } | undefined;
  let condition: { done: (changed: readonly string[]) => boolean; resolve: () => void } | undefined;
  const watcher = watchDebounced({
    dir: root,
    debounceMs: 30,
    onChange: (paths) => {
      for (const p of snapshot.changed(paths)) {
        if (p !== marker) seen.push(relative(root, p));
        else if (waiting) {
          let n = 0;
          try {
            n = Number(readFileSync(marker, 'utf8'));
          } catch {
            // deleted with its folder
          }
          if (n >= waiting.count) waiting.resolve();
        }
      }
      if (condition?.done(seen)) condition.resolve();
    },
  });
  const take = (): string[] => {
    // sed -i writes a temporary sedXXXXXX next to the file, then renames it over: a sed descheduled
    // for longer than the quiet time between the two (a loaded machine) shows it, as a real file, for
    // a moment. That is no lost or invented save of the file under test.
    // A file changed twice between two markers (a checkout descheduled between its unlink and its
    // write) is one file that changed.
    const out = [...new Set(seen.filter((p) => !/(^|\/)sed[A-Za-z0-9]{6}$/.test(p)))].sort();
    seen = [];
    return out;
  };
  return {
    async until(done) {
      await bounded(
        'the expected changes',
        new Promise<void>((resolve) => {
          condition = { done, resolve };
          if (done(seen)) resolve();
        }),
      );
      condition = undefined;
      return take();
    },
    async settle() {
      markerCount += 1;
      const count = markerCount;
      const reached = new Promise<void>((resolve) => (waiting = { count, resolve }));
      writeFileSync(marker, String(count));
      await bounded('the marker file', reached);
      waiting = undefined;
      return take();
    },
    close: () => watcher.close(),
  };
}

const work = mkdtempSync(join(tmpdir(), 'op-gen-saves-'));
after(() => rmSync(work, { recursive: true, force: true }));
let serial = 0;
function project(): { root: string; file: string } {
  const root = join(work, `p${++serial}`, 'src');
  mkdirSync(join(root, 'api', 'v1'), { recursive: true });
  const file = join(root, 'api', 'v1', 'kind.ts');
  writeFileSync(file, 'export const v = 0;\n');
  writeFileSync(join(root, 'main.ts'), 'export {};\n');
  return { root, file };
}

type Save = (file: string, content: string) => Promise<void>;

/** Save patterns of editors and tools; each writes `content` to `file` its own way. */
const contentSaves: Record<string, Save> = {
  'write in place': async (file, content) => writeFileSync(file, content),
  'write a temporary file and rename it over': async (file, content) => {
    const tmp = `${file}.tmp-${process.pid}`;
    writeFileSync(tmp, content);
    renameSync(tmp, file);
  },
  "JetBrains' safe write (___jb_tmp___, ___jb_old___)": async (file, content) => {
    writeFileSync(`${file}___jb_tmp___`, content);
    renameSync(file, `${file}___jb_old___`);
    renameSync(`${file}___jb_tmp___`, file);
    unlinkSync(`${file}___jb_old___`);
  },
  "vim's write (4913 test, swap file, ~ backup renamed away)": async (file, content) => {
    const dir = join(file, '..');
    const swap = join(dir, '.kind.ts.swp');
    writeFileSync(swap, 'swap');
    writeFileSync(join(dir, '4913'), '');
    unlinkSync(join(dir, '4913'));
    renameSync(file, `${file}~`);
    writeFileSync(file, content);
    unlinkSync(`${file}~`);
    unlinkSync(swap);
  },
  'delete and create': async (file, content) => {
    unlinkSync(file);
    writeFileSync(file, content);
  },
  'sed -i (the real sed)': async (file, content) => {
    await run('sed', ['-i', `s/^.*$/${content.trim()}/`, file]);
  },
};

const unchangedSaves: Record<string, Save> = {
  'touch (the real touch)': async (file) => void (await run('touch', [file])),
  'write the same content in place': async (file) => writeFileSync(file, readFileSync(file)),
  'sed -i that changes nothing': async (file) => void (await run('sed', ['-i', 's/no-such-text/x/', file])),
  'the same content renamed over': async (file) => {
    writeFileSync(`${file}.tmp`, readFileSync(file));
    renameSync(`${file}.tmp`, file);
  },
};

describe('the watcher sees every save of a file, whatever way it is saved', { timeout: 60_000 }, () => {
  for (const [name, save] of Object.entries(contentSaves)) {
    it(`${name}, 5 times on the same file: each change reported, each unchanged save not`, async () => {
      const { root, file } = project();
      const session = watchSources(root);
      try {
        for (let i = 1; i <= 5; i++) {
          await save(file, `export const v = ${i};\n`);
          const changed = await session.settle();
          assert.ok(
            changed.includes('api/v1/kind.ts'),
            `save ${i}: not reported (got ${changed.join(', ')})`,
          );
          assert.deepEqual(
            changed.filter((p) => p !== 'api/v1/kind.ts'),
            [],
            `save ${i}: only the saved file counts (editors' temporary files do not)`,
          );
          // The same save again with the same content: nothing to reload.
          if (name !== 'delete and create') {
            await save(file, `export const v = ${i};\n`);
            assert.deepEqual(await session.settle(), [], `save ${i} repeated without a change`);
          }
        }
      } finally {
        session.close();
      }
    });
  }

  it('saves that change nothing, 5 times each between content changes, are never reported', async () => {
    const { root, file } = project();
    const session = watchSources(root);
    try {
      for (let i = 1; i <= 5; i++) {
        for (const [name, save] of Object.entries(unchangedSaves)) {
          await save(file, '');
          assert.deepEqual(await session.settle(), [], `${name}, round ${i}`);
        }
        // A rename-save between rounds: the unchanged saves above must still be on the watched file.
        await contentSaves['sed -i (the real sed)']!(file, `export const v = ${i};\n`);
        assert.deepEqual(await session.settle(), ['api/v1/kind.ts'], `content change ${i}`);
      }
    } finally {
      session.close();
    }
  });

  it('a folder deleted and created again, 5 times: its files are reported and still watched', async () => {
    const { root, file } = project();
    const session = watchSources(root);
    try {
      for (let i = 1; i <= 5; i++) {
        rmSync(join(root, 'api'), { recursive: true });
        assert.deepEqual(await session.settle(), ['api/v1/kind.ts'], `round ${i}: the deleted file`);
        mkdirSync(join(root, 'api', 'v1'), { recursive: true });
        writeFileSync(file, `export const v = ${i};\n`);
        assert.deepEqual(await session.settle(), ['api/v1/kind.ts'], `round ${i}: the new folder's file`);
        await contentSaves['sed -i (the real sed)']!(file, `export const v = ${i * 10};\n`);
        assert.deepEqual(await session.settle(), ['api/v1/kind.ts'], `round ${i}: a save in the new folder`);
      }
    } finally {
      session.close();
    }
  });

  it('a folder replaced by another renamed over it, and one moved away, are followed', async () => {
    const { root, file } = project();
    const session = watchSources(root);
    try {
      for (let i = 1; i <= 5; i++) {
        const next = join(root, 'api.next');
        mkdirSync(join(next, 'v1'), { recursive: true });
        writeFileSync(join(next, 'v1', 'kind.ts'), `export const v = ${i};\n`);
        writeFileSync(join(next, 'v1', 'other.ts'), `export const o = ${i};\n`);
        rmSync(join(root, 'api'), { recursive: true });
        renameSync(next, join(root, 'api'));
        const changed = await session.settle();
        assert.ok(changed.includes('api/v1/kind.ts'), `round ${i}: got ${changed.join(', ')}`);
        assert.ok(changed.includes('api/v1/other.ts'), `round ${i}: got ${changed.join(', ')}`);
        writeFileSync(file, `export const v = ${i * 10};\n`);
        assert.deepEqual(await session.settle(), ['api/v1/kind.ts'], `round ${i}: a save after the swap`);
      }
      renameSync(join(root, 'api'), join(root, '..', 'api-away'));
      assert.deepEqual(
        await session.settle(),
        ['api/v1/kind.ts', 'api/v1/other.ts'],
        'a folder moved out of src/: its files are gone',
      );
    } finally {
      session.close();
    }
  });

  it('new nested folders (mkdir -p, then a write at once) and a recreated src/ itself are watched', async () => {
    const { root } = project();
    const session = watchSources(root);
    try {
      const deep = join(root, 'a', 'b', 'c');
      mkdirSync(deep, { recursive: true });
      writeFileSync(join(deep, 'x.ts'), 'export const x = 1;\n');
      assert.deepEqual(await session.settle(), ['a/b/c/x.ts']);
      await contentSaves['sed -i (the real sed)']!(join(deep, 'x.ts'), 'export const x = 2;\n');
      assert.deepEqual(await session.settle(), ['a/b/c/x.ts']);

      rmSync(root, { recursive: true });
      assert.deepEqual(
        await session.until((changed) => changed.length >= 3),
        ['a/b/c/x.ts', 'api/v1/kind.ts', 'main.ts'],
        'src/ deleted',
      );
      mkdirSync(join(root, 'api'), { recursive: true });
      writeFileSync(join(root, 'api', 'k.ts'), 'export const k = 1;\n');
      assert.deepEqual(await session.settle(), ['api/k.ts'], 'src/ created again');
      for (let i = 2; i <= 6; i++) {
        await contentSaves['sed -i (the real sed)']!(join(root, 'api', 'k.ts'), `export const k = ${i};\n`);
        assert.deepEqual(await session.settle(), ['api/k.ts'], `save ${i} in the new src/`);
      }
    } finally {
      session.close();
    }
  });

  it('git checkout of many files between branches: exactly the files that differ, both ways', async () => {
    const repo = join(work, 'repo');
    const root = join(repo, 'src');
    const git = (...args: string[]): Promise<unknown> =>
      run('git', ['-c', 'user.email=t@example.com', '-c', 'user.name=t', ...args], { cwd: repo });
    const write = (rel: string, content: string): void => {
      mkdirSync(join(root, rel, '..'), { recursive: true });
      writeFileSync(join(root, rel), content);
    };
    // main: 10 folders of 30 files; next: a third of them edited, one folder deleted, a new one added.
    for (let d = 0; d < 10; d++)
      for (let f = 0; f < 30; f++) write(`api/g${d}/f${f}.ts`, `export const f = ${f};\n`);
    await git('init', '-q', '-b', 'main');
    await git('add', '-A');
    await git('commit', '-qm', 'main');
    await git('checkout', '-qb', 'next');
    const differ = new Set<string>();
    for (let d = 0; d < 10; d++)
      for (let f = 0; f < 30; f += 3) {
        write(`api/g${d}/f${f}.ts`, `export const f = ${f + 1000};\n`);
        differ.add(`api/g${d}/f${f}.ts`);
      }
    rmSync(join(root, 'api', 'g9'), { recursive: true });
    for (let f = 0; f < 30; f++) differ.add(`api/g9/f${f}.ts`);
    for (let f = 0; f < 40; f++) {
      write(`api/new/deep/n${f}.ts`, `export const n = ${f};\n`);
      differ.add(`api/new/deep/n${f}.ts`);
    }
    await git('add', '-A');
    await git('commit', '-qm', 'next');
    await git('checkout', '-q', 'main');

    const session = watchSources(root); // its marker is untracked: checkouts leave it alone
    try {
      const expected = [...differ].sort();
      for (let round = 1; round <= 3; round++) {
        await git('checkout', '-q', 'next');
        assert.deepEqual(await session.settle(), expected, `round ${round}: main -> next`);
        await contentSaves['sed -i (the real sed)']!(
          join(root, 'api', 'new', 'deep', 'n0.ts'),
          'export const n = -1;\n',
        );
        assert.deepEqual(
          await session.settle(),
          ['api/new/deep/n0.ts'],
          `round ${round}: a save after checkout`,
        );
        await git('checkout', '-q', '-f', 'main');
        assert.deepEqual(await session.settle(), expected, `round ${round}: next -> main`);
      }
    } finally {
      session.close();
    }
  });
});
