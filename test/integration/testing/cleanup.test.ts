import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import { controlPlaneSkip } from '../../../src/testing/index.ts';

const SCRIPT = new URL('../../fixtures/testing/start-and-wait.ts', import.meta.url).pathname;

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // ESRCH: no such process. Anything else (EPERM: it exists, not ours) is not "gone".
    if ((err as NodeJS.ErrnoException).code === 'ESRCH') return false;
    throw err;
  }
}

/** Runs the fixture in a TMPDIR of its own; resolves with what it printed once its control plane ran. */
async function startFixture(
  t: TestContext,
  env: Record<string, string> = {},
): Promise<{ child: ChildProcess; tmp: string; pids: number[]; dirs: string[] }> {
  // A TMPDIR of its own: control planes of other test files come and go in the shared one.
  const tmp = mkdtempSync(join(tmpdir(), 'op-gen-cleanup-test-'));
  const child = spawn(process.execPath, [SCRIPT], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, ...env, TMPDIR: tmp },
  });
  t.after(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGINT');
    rmSync(tmp, { recursive: true, force: true });
  });
  const line = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('\n')) resolve(out.split('\n')[0]!);
    });
    child.on('exit', (code) => reject(new Error(`exited early with ${code}`)));
  });
  return { child, tmp, ...(JSON.parse(line) as { pids: number[]; dirs: string[] }) };
}

describe('control plane cleanup', { timeout: 60_000, skip: controlPlaneSkip() }, () => {
  it('a test process that never calls stop() still ends, and takes its etcd and kube-apiserver with it', async (t) => {
    const { child, tmp, pids, dirs } = await startFixture(t, { LEAVE: '1' });
    assert.equal(pids.length, 2, 'etcd and kube-apiserver');
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    // Without the control plane's processes unreferenced, the process and they waited on each other
    // for ever (a test whose after hook threw before cp.stop() held CI until its time limit).
    const outcome = await Promise.race([
      exited,
      new Promise((r) => setTimeout(() => r('still running'), 15_000)),
    ]);
    assert.equal(outcome, 0, 'the process ended by itself');
    for (let i = 0; i < 50 && pids.some(alive); i++) await new Promise((r) => setTimeout(r, 100));
    assert.deepEqual(pids.filter(alive), [], 'no control plane process left');
    assert.equal(existsSync(join(tmp, dirs[0]!)), false, 'temp data removed');
  });

  it('SIGINT to the test process stops its etcd and kube-apiserver and removes their data', async (t) => {
    const { child, tmp, pids, dirs } = await startFixture(t);
    assert.equal(pids.length, 2, 'etcd and kube-apiserver');
    assert.equal(dirs.length, 1);
    assert.ok(pids.every(alive));
    const exited = new Promise<NodeJS.Signals | null>((resolve) =>
      child.once('exit', (_c, signal) => resolve(signal)),
    );
    child.kill('SIGINT');
    assert.equal(await exited, 'SIGINT', 'the process still dies of the signal');
    for (let i = 0; i < 50 && pids.some(alive); i++) await new Promise((r) => setTimeout(r, 100));
    assert.deepEqual(pids.filter(alive), [], 'no control plane process left');
    assert.equal(existsSync(join(tmp, dirs[0]!)), false, 'temp data removed');
  });
});
