import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { run } from '../scaffold/helpers.ts';

describe('op-gen run: environment problems are one line', () => {
  const dir = mkdtempSync(join(tmpdir(), 'op-gen-run-cmd-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const saved = process.env.KUBECONFIG;
  after(() => {
    if (saved === undefined) delete process.env.KUBECONFIG;
    else process.env.KUBECONFIG = saved;
  });

  it('no kubeconfig: exit 1, one line, nothing started, no signal handler left', async () => {
    const project = join(dir, 'p');
    mkdirSync(join(project, 'src'), { recursive: true });
    writeFileSync(join(project, 'package.json'), '{"scripts":{"build":"false","start":"false"}}');
    process.env.KUBECONFIG = join(dir, 'missing.kubeconfig');
    const before = process.listenerCount('SIGINT');
    const r = await run(project, 'run');
    assert.equal(r.code, 1);
    assert.equal(
      r.err,
      `op-gen: no kubeconfig found: KUBECONFIG=${join(dir, 'missing.kubeconfig')} names no file that exists; point KUBECONFIG at a kubeconfig file or unset it to use ~/.kube/config\n`,
    );
    assert.equal(r.out, '');
    assert.equal(process.listenerCount('SIGINT'), before);
  });

  it('outside a project: exit 1, one line', async () => {
    const r = await run(dir, 'run');
    assert.equal(r.code, 1);
    assert.match(r.err, /^op-gen: no src\/ folder in .*: run op-gen run in a project made by op-gen init\n$/);
  });

  it('--debounce must be a whole number', async () => {
    const r = await run(dir, 'run', '--debounce', 'soon');
    assert.equal(r.code, 2);
  });
});
