import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { ignoredByDefault, watchDebounced, type WatchFunction } from '../../../src/dev-loop/watcher.ts';
import { FakeClock } from './fake-clock.ts';

/** A watch function the test fires events into. */
function fakeWatch(): { watch: WatchFunction; emit(path: string): void; closed(): boolean } {
  let listener: ((p: string) => void) | undefined;
  let closed = false;
  return {
    watch: (_dir, onEvent) => {
      listener = onEvent;
      return { close: () => void (closed = true) };
    },
    emit: (p) => listener?.(p),
    closed: () => closed,
  };
}

describe('watchDebounced', () => {
  it('reports a burst of events once, after the quiet time, with each path once', () => {
    const clock = new FakeClock();
    const fs = fakeWatch();
    const calls: { paths: readonly string[]; at: number; first: number }[] = [];
    watchDebounced({
      dir: '/p/src',
      debounceMs: 100,
      clock,
      watch: fs.watch,
      onChange: (paths, first) => calls.push({ paths, at: clock.now(), first }),
    });
    clock.advance(5);
    fs.emit('api/a.ts');
    clock.advance(60);
    fs.emit('api/a.ts');
    clock.advance(60);
    fs.emit('main.ts');
    clock.advance(99);
    assert.equal(calls.length, 0, 'nothing before 100 ms of quiet');
    clock.advance(1);
    assert.deepEqual(calls, [{ paths: ['/p/src/api/a.ts', '/p/src/main.ts'], at: 225, first: 5 }]);
    fs.emit('main.ts');
    clock.advance(100);
    assert.equal(calls.length, 2);
    assert.deepEqual(calls[1], { paths: ['/p/src/main.ts'], at: 325, first: 225 });
  });

  it('drops editor swap files and node_modules, and stops on close', () => {
    const clock = new FakeClock();
    const fs = fakeWatch();
    const calls: (readonly string[])[] = [];
    const w = watchDebounced({
      dir: '/p/src',
      debounceMs: 50,
      clock,
      watch: fs.watch,
      onChange: (p) => calls.push(p),
    });
    fs.emit('.main.ts.swp');
    fs.emit('main.ts~');
    fs.emit('4913');
    clock.advance(100);
    assert.deepEqual(calls, []);
    fs.emit('main.ts');
    w.close();
    clock.advance(100);
    assert.deepEqual(calls, [], 'a pending burst is dropped on close');
    assert.ok(fs.closed());
    assert.equal(clock.pending, 0);
  });

  it('ignoredByDefault keeps sources', () => {
    assert.equal(ignoredByDefault('api/cache/v1/memcached.ts'), false);
    assert.equal(ignoredByDefault('node_modules/x/index.js'), true);
    assert.equal(ignoredByDefault('.#main.ts'), true);
  });

  it('sees a real file change through fs.watch', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'op-gen-watch-'));
    try {
      mkdirSync(join(dir, 'api'));
      const seen = new Promise<readonly string[]>((resolve) => {
        const w = watchDebounced({
          dir,
          debounceMs: 20,
          onChange: (paths) => {
            w.close();
            resolve(paths);
          },
        });
      });
      await new Promise((r) => setTimeout(r, 50));
      writeFileSync(join(dir, 'api', 'kind.ts'), 'export {};\n');
      const paths = await seen;
      assert.ok(paths.includes(join(dir, 'api', 'kind.ts')), `got ${paths.join(', ')}`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
