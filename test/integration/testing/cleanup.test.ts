import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
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

describe('control plane cleanup', { timeout: 60_000, skip: controlPlaneSkip() }, () => {
  it('SIGINT to the test process stops its etcd and kube-apiserver and removes their data', async (t) => {
    // A TMPDIR of its own: control planes of other test files come and go in the shared one.
    const tmp = mkdtempSync(join(tmpdir(), 'op-gen-cleanup-test-'));
    const child = spawn(process.execPath, [SCRIPT], {
      stdio: ['ignore', 'pipe', 'inherit'],
      env: { ...process.env, TMPDIR: tmp },
    });
    t.after(() => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGINT');
      rmSync(tmp, { recursive: true, force: true });
    });
    const line = await new Promise<string>((resolve, reject) => {
      let out = '';
      child.stdout.on('data', (d: Buffer) => {
        out += d.toString();
        if (out.includes('\n')) resolve(out.split('\n')[0]!);
      });
      child.on('exit', (code) => reject(new Error(`exited early with ${code}`)));
    });
    const { pids, dirs } = JSON.parse(line) as { pids: number[]; dirs: string[] };
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
