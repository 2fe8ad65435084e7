import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createProgress, isInteractive, type ProgressClock } from '../../../src/shared/progress.ts';

class Clock implements ProgressClock {
  time = 0;
  private timers = new Map<number, { fn: () => void; every: number; next: number }>();
  private id = 0;
  now(): number {
    return this.time;
  }
  setInterval(fn: () => void, ms: number): unknown {
    this.timers.set(++this.id, { fn, every: ms, next: this.time + ms });
    return this.id;
  }
  clearInterval(handle: unknown): void {
    this.timers.delete(handle as number);
  }
  advance(ms: number): void {
    const end = this.time + ms;
    for (;;) {
      const due = [...this.timers.values()].filter((t) => t.next <= end).sort((a, b) => a.next - b.next)[0];
      if (!due) break;
      this.time = due.next;
      due.next += due.every;
      due.fn();
    }
    this.time = end;
  }
}

function stream(isTTY: boolean) {
  const out: string[] = [];
  return { out, write: (t: string) => out.push(t), isTTY, columns: 60 };
}

describe('progress', () => {
  it('is interactive only on a terminal outside CI', () => {
    assert.equal(isInteractive({ write: () => 0, isTTY: true }, {}), true);
    assert.equal(isInteractive({ write: () => 0, isTTY: true }, { CI: 'true' }), false);
    assert.equal(isInteractive({ write: () => 0, isTTY: true }, { CI: 'false' }), true);
    assert.equal(isInteractive({ write: () => 0, isTTY: false }, {}), false);
    assert.equal(isInteractive({ write: () => 0 }, {}), false);
  });

  it('on a terminal: one line redrawn in place, then a final line', () => {
    const s = stream(true);
    const clock = new Clock();
    const p = createProgress({ stream: s, env: {}, prefix: 'setup:envtest', clock, tickMs: 100 });
    p.start('building etcd v3.7.0', '~1-2 min cold');
    clock.advance(250);
    p.succeed('built etcd v3.7.0 in 0.3 s');
    const text = s.out.join('');
    assert.ok(!text.slice(0, text.lastIndexOf('\r')).includes('\n'), 'no newline before the final line');
    assert.equal(
      s.out.filter((o) => o.startsWith('\r\x1b[2K')).length,
      4,
      'drawn at 0, 100, 200 ms and the end',
    );
    assert.ok(s.out[2]!.startsWith('\r\x1b[2K'));
    assert.match(s.out[2]!.slice(5), /^. setup:envtest: building etcd v3\.7\.0 \(~1-2 min cold\) 0\.2 s$/);
    assert.equal(s.out.at(-1), '\r\x1b[2Ksetup:envtest: ✓ built etcd v3.7.0 in 0.3 s\n');
    clock.advance(1000);
    assert.equal(s.out.length, 4, 'no redraw after the end');
  });

  it('cuts the line to the terminal width', () => {
    const s = stream(true);
    const p = createProgress({ stream: s, env: {}, clock: new Clock() });
    p.start('x'.repeat(200));
    assert.ok(s.out[0]!.replace('\r\x1b[2K', '').length <= 60);
    p.fail('failed');
    const zero = { ...stream(true), columns: 0 };
    createProgress({ stream: zero, env: {}, clock: new Clock() }).start('building');
    assert.match(zero.out[0]!, /building 0\.0 s$/, 'a pty that reports 0 columns is taken as 80 wide');
    assert.equal(s.out.at(-1), '\r\x1b[2K✗ failed\n');
  });

  it('not on a terminal (or CI=true): plain lines, a "still" line every period', () => {
    for (const [isTTY, env] of [
      [false, {}],
      [true, { CI: 'true' }],
    ] as const) {
      const s = stream(isTTY);
      const clock = new Clock();
      const p = createProgress({ stream: s, env, prefix: 'setup:envtest', clock, plainEveryMs: 30_000 });
      p.start('building kube-apiserver v1.37.2', '~10 min cold');
      clock.advance(65_000);
      p.succeed('built kube-apiserver in 65 s');
      assert.deepEqual(s.out, [
        'setup:envtest: building kube-apiserver v1.37.2 (~10 min cold) ...\n',
        'setup:envtest: still building kube-apiserver v1.37.2 (30 s so far, ~10 min cold)\n',
        'setup:envtest: still building kube-apiserver v1.37.2 (60 s so far, ~10 min cold)\n',
        'setup:envtest: built kube-apiserver in 65 s\n',
      ]);
      assert.ok(!s.out.join('').includes('\r'));
    }
  });
});
