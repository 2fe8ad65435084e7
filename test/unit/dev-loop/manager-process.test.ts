import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  ManagerProcess,
  spawnScript,
  type ChildHandle,
  type ExitStatus,
} from '../../../src/dev-loop/manager-process.ts';
import { FakeClock } from './fake-clock.ts';

/** A child that records the signals sent to its group and exits when the test says (or on SIGTERM). */
function fakeChild(pid: number, options: { exitOnTerm: boolean }) {
  let exit: (s: ExitStatus) => void = () => undefined;
  const signals: (NodeJS.Signals | 0)[] = [];
  let alive = true;
  const handle: ChildHandle = {
    pid,
    exited: new Promise((r) => (exit = r)),
    signalGroup(signal) {
      signals.push(signal);
      if (!alive) return false;
      if (signal === 'SIGKILL' || (signal === 'SIGTERM' && options.exitOnTerm)) {
        alive = false;
        exit({ code: null, signal });
      }
      return true;
    },
  };
  return { handle, signals, crash: (code: number) => ((alive = false), exit({ code, signal: null })) };
}

describe('ManagerProcess', () => {
  it('stops with SIGTERM to the process group and restarts a new child', async () => {
    const children = [fakeChild(10, { exitOnTerm: true }), fakeChild(11, { exitOnTerm: true })];
    let n = 0;
    const mp = new ManagerProcess({ start: () => children[n++]!.handle, clock: new FakeClock() });
    mp.start();
    assert.equal(mp.pid, 10);
    await mp.restart();
    assert.equal(mp.pid, 11);
    assert.deepEqual(children[0]!.signals, ['SIGTERM', 'SIGKILL']);
    await mp.stop();
    assert.equal(mp.running, false);
  });

  it('sends SIGKILL when the manager ignores SIGTERM past the grace period', async () => {
    const clock = new FakeClock();
    const child = fakeChild(20, { exitOnTerm: false });
    const mp = new ManagerProcess({ start: () => child.handle, clock, stopTimeoutMs: 5_000 });
    mp.start();
    const stopped = mp.stop();
    await sleep(1);
    assert.deepEqual(child.signals, ['SIGTERM']);
    clock.advance(4_999);
    await sleep(1);
    assert.deepEqual(child.signals, ['SIGTERM'], 'no SIGKILL inside the grace period');
    clock.advance(1);
    assert.deepEqual(await stopped, { code: null, signal: 'SIGKILL' });
    assert.equal(child.signals[1], 'SIGKILL');
  });

  it('reports a manager that exits by itself, and cleans its group', async () => {
    const child = fakeChild(30, { exitOnTerm: true });
    const exits: ExitStatus[] = [];
    const mp = new ManagerProcess({ start: () => child.handle, onExit: (s) => exits.push(s) });
    mp.start();
    child.crash(1);
    await sleep(1);
    assert.deepEqual(exits, [{ code: 1, signal: null }]);
    assert.equal(mp.running, false);
    assert.deepEqual(child.signals, ['SIGKILL']);
  });
});

/** Whether any process of the group is alive (signal 0); a zombie still counts, so reap first. */
function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('spawnScript (real processes)', { timeout: 30_000 }, () => {
  it('runs the script in a process group of its own; stop leaves no process behind, the grandchild included', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'op-gen-mp-'));
    try {
      // A manager that starts a grandchild and ignores nothing: SIGTERM ends it.
      writeFileSync(
        join(dir, 'main.js'),
        [
          "import { spawn } from 'node:child_process';",
          "import { writeFileSync } from 'node:fs';",
          "const g = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });",
          "writeFileSync('pids', `${process.pid} ${g.pid} ${process.argv.slice(2).join(' ')}`);",
          "process.on('SIGTERM', () => process.exit(0));",
          'setInterval(() => {}, 1000);',
        ].join('\n'),
      );
      writeFileSync(join(dir, 'package.json'), '{"type":"module"}');
      const mp = new ManagerProcess({
        stopTimeoutMs: 3_000,
        start: () => spawnScript({ script: 'node main.js', args: ['--a=1'], cwd: dir, env: process.env }),
      });
      mp.start();
      const pgid = mp.pid!;
      let pids = '';
      for (let i = 0; i < 100 && pids.split(' ').length < 3; i++) {
        await sleep(50);
        try {
          pids = readFileSync(join(dir, 'pids'), 'utf8');
        } catch {
          // not yet
        }
      }
      const [managerPid, grandchildPid, args] = pids.split(' ');
      assert.equal(Number(managerPid), pgid, "the script was exec'd: the manager leads the group");
      assert.equal(args, '--a=1');
      const pgidOf = (pid: string): number =>
        Number(execFileSync('ps', ['-o', 'pgid=', '-p', pid], { encoding: 'utf8' }).trim());
      assert.equal(pgidOf(grandchildPid!), pgid, 'the grandchild is in the group');
      assert.notEqual(pgid, process.pid);
      await mp.stop();
      for (let i = 0; i < 40 && groupAlive(pgid); i++) await sleep(50);
      assert.equal(groupAlive(pgid), false, `processes of group ${pgid} outlived stop()`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
