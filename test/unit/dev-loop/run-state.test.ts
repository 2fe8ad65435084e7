import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import type { Transport } from '../../../src/client/transport.ts';
import { OpGenError } from '../../../src/errors.ts';
import {
  cleanupPreviousRun,
  readRunState,
  RUN_STATE_FILE,
  writeRunState,
  type RunState,
} from '../../../src/dev-loop/run-state.ts';
import { tempDir } from '../scaffold/helpers.ts';

/** A transport that fails the test when used: the refusals happen before any request. */
const unused = new Proxy({} as Transport, {
  get: () => assert.fail('the cluster was called'),
});

const state = (over: Partial<RunState> = {}): RunState => ({
  version: 1,
  pid: 2 ** 22 + 1, // above pid_max's default: no such process
  server: 'https://127.0.0.1:6443',
  context: 'dev',
  webhookConfigurations: [],
  crds: [],
  ...over,
});

describe('op-gen run state file', () => {
  const tmp = tempDir('op-gen-run-state-');
  after(tmp.cleanup);

  it('is read back as written; no file is no state', () => {
    const cwd = join(tmp.dir, 'roundtrip');
    mkdirSync(cwd);
    assert.equal(readRunState(cwd), undefined);
    const s = state({ managerPid: 42, crds: [{ name: 'a.example.com', previous: null }] });
    writeRunState(cwd, s);
    assert.deepEqual(readRunState(cwd), s);
  });

  it('a damaged file is one OpGenError that says what to do', () => {
    const cwd = join(tmp.dir, 'damaged');
    mkdirSync(join(cwd, '.op-gen'), { recursive: true });
    writeFileSync(join(cwd, RUN_STATE_FILE), '{"version": 1,');
    assert.throws(
      () => readRunState(cwd),
      (err: unknown) => {
        assert.ok(err instanceof OpGenError);
        assert.match(err.message, /run-state\.json: cannot read it .*delete the file/);
        return true;
      },
    );
  });

  it('refuses while the op-gen run that wrote it still runs', async () => {
    const cwd = join(tmp.dir, 'alive');
    mkdirSync(cwd);
    writeRunState(cwd, state({ pid: process.ppid }));
    await assert.rejects(
      cleanupPreviousRun(cwd, unused, { server: 'https://127.0.0.1:6443' }, () => undefined),
      new RegExp(`another op-gen run \\(pid ${process.ppid}\\) serves this project's webhooks`),
    );
  });

  it('refuses a state of another cluster', async () => {
    const cwd = join(tmp.dir, 'other');
    mkdirSync(cwd);
    writeRunState(cwd, state());
    await assert.rejects(
      cleanupPreviousRun(cwd, unused, { server: 'https://10.0.0.1:6443' }, () => undefined),
      /records changes in the cluster at https:\/\/127\.0\.0\.1:6443 \(context dev\), not https:\/\/10\.0\.0\.1:6443/,
    );
  });

  it('does nothing without a state file', async () => {
    const cwd = join(tmp.dir, 'none');
    mkdirSync(cwd);
    const lines: string[] = [];
    await cleanupPreviousRun(cwd, unused, { server: 'x' }, (l) => lines.push(l));
    assert.deepEqual(lines, []);
  });
});
