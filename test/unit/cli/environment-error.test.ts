import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { describeEnvironmentError } from '../../../src/cli/environment-error.ts';

function systemError(code: string, syscall: string, path: string): Error {
  return Object.assign(new Error(`${code}: ${syscall} '${path}'`), { code, syscall, path });
}

describe('file-system errors become one line naming the path and the cause (item 8)', () => {
  const cwd = mkdtempSync(join(tmpdir(), 'op-gen-env-error-'));
  writeFileSync(join(cwd, 'README.md'), '');

  it('ENOTDIR names the file in the way', () => {
    assert.equal(
      describeEnvironmentError(systemError('ENOTDIR', 'mkdir', join(cwd, 'README.md/x')), cwd),
      'cannot write README.md/x: README.md is not a directory',
    );
  });

  it('EACCES, ENOENT, EROFS and ENOSPC say what happened to which path', () => {
    assert.equal(
      describeEnvironmentError(
        systemError('EACCES', 'open', join(cwd, 'config/crd/a.yaml.op-gen-0a1b2c3d.tmp')),
        cwd,
      ),
      'cannot open config/crd/a.yaml: permission denied',
    );
    assert.equal(
      describeEnvironmentError(systemError('ENOENT', 'scandir', '/nowhere/api'), cwd),
      'cannot read /nowhere/api: no such file or directory',
    );
    assert.equal(
      describeEnvironmentError(systemError('EROFS', 'rename', join(cwd, 'x')), cwd),
      'cannot write x: read-only file system',
    );
    assert.equal(
      describeEnvironmentError(systemError('ENOSPC', 'write', join(cwd, 'x')), cwd),
      'cannot write x: no space left on device',
    );
  });

  it('anything else is not an environment error (an internal error keeps its stack)', () => {
    assert.equal(describeEnvironmentError(new TypeError('x is undefined'), cwd), undefined);
    assert.equal(describeEnvironmentError(systemError('ECONNRESET', 'read', join(cwd, 'x')), cwd), undefined);
  });

  it('cleanup', () => rmSync(cwd, { recursive: true, force: true }));
});
