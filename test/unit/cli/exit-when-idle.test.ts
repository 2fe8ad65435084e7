import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
// @ts-expect-error: plain JavaScript loaded by bin/op-gen.js, without types.
import { idleAfterCommand, resourcesBeforeCommand } from '../../../bin/exit-when-idle.js';
import { sampleProject } from '../bundle/project.ts';

const BIN = new URL('../../../bin/op-gen.js', import.meta.url).pathname;

interface FakeProcess {
  stdout: { writableLength: number };
  stderr: { writableLength: number };
  getActiveResourcesInfo(): string[];
  listenerCount(event: string): number;
}

const before = resourcesBeforeCommand as (proc: FakeProcess) => string[];
const idle = idleAfterCommand as (proc: FakeProcess, before: readonly string[]) => boolean;

/** A process whose active resources are `resources`, with `pending` bytes waiting on stdout. */
function fake(resources: string[], pending = 0, beforeExit = 0): FakeProcess {
  return {
    stdout: { writableLength: pending },
    stderr: { writableLength: 0 },
    getActiveResourcesInfo: () => resources,
    listenerCount: (event) => (event === 'beforeExit' ? beforeExit : 0),
  };
}

describe('bin/op-gen.js exits at once only when the command left nothing to do', () => {
  const stdio = ['TTYWrap', 'PipeWrap'];

  it('is idle with the resources it had before the command, or fewer', () => {
    assert.deepEqual(before(fake(['TTYWrap', 'PipeWrap'])), ['PipeWrap', 'TTYWrap']);
    assert.equal(idle(fake(['PipeWrap', 'TTYWrap']), before(fake(stdio))), true);
    assert.equal(idle(fake(['PipeWrap']), before(fake(stdio))), true);
    assert.equal(idle(fake([]), []), true);
  });

  it('is not idle with a resource the command opened (a child, a socket, a timer)', () => {
    for (const extra of ['ProcessWrap', 'TCPSocketWrap', 'Timeout', 'PipeWrap']) {
      assert.equal(idle(fake([...stdio, extra]), before(fake(stdio))), false, extra);
    }
  });

  it('is not idle while output waits to be written, or with a beforeExit listener', () => {
    assert.equal(idle(fake(stdio, 13_735), before(fake(stdio))), false);
    assert.equal(idle(fake(stdio, 0, 1), before(fake(stdio))), false);
  });

  it('ends a generate run at once, with its exit code and all its output on a pipe', () => {
    const project = sampleProject();
    const out = join(project, 'crds');
    // Says on stderr when process.exit ends the process (not the event loop emptying).
    const preload = join(mkdtempSync(join(tmpdir(), 'op-gen-exit-')), 'say-exit.mjs');
    writeFileSync(
      preload,
      "import { writeSync } from 'node:fs';\nconst exit = process.exit;\nprocess.exit = (code) => { writeSync(2, `process.exit(${code})\\n`); return exit(code); };\n",
    );
    const piped = spawnSync(
      process.execPath,
      ['--import', preload, BIN, 'generate', 'crd', '--out', out, '--json'],
      {
        cwd: project,
        encoding: 'utf8',
      },
    );
    assert.equal(piped.status, 0, piped.stderr);
    assert.equal(piped.stderr, 'process.exit(0)\n');
    const result = JSON.parse(piped.stdout) as { files: string[] };
    assert.deepEqual(result.files.map((f) => f.split('/').pop()).sort(), readdirSync(out).sort());
    const failed = spawnSync(process.execPath, [BIN, 'generate', 'crd', '--max-description-length', '-1'], {
      cwd: project,
      encoding: 'utf8',
    });
    assert.equal(failed.status, 2, failed.stderr);
    assert.match(failed.stderr, /argument '-1' is invalid/);
  });
});
