import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Writable } from 'node:stream';
import { after, describe, it } from 'node:test';
import { main } from '../../../src/cli/main.ts';
import { sink } from '../../helpers/io.ts';

const fixture = join(
  import.meta.dirname,
  '..',
  '..',
  'fixtures',
  'types',
  'cert-manager.io_certificates.yaml',
);

/** A failure op-gen did not foresee (a bug, not bad input) is exit 70 (EX_SOFTWARE) with the stack. */
describe('op-gen internal errors', () => {
  const dir = mkdtempSync(join(tmpdir(), 'op-gen-internal-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('an unexpected exception exits 70, says "internal error" and prints the stack', async () => {
    const err = sink();
    // A stdout that throws: no command expects that, so it surfaces as an internal error.
    const stdout = {
      write(): boolean {
        throw new TypeError('stdout exploded');
      },
    } as unknown as Writable;
    const code = await main(['generate', 'types', '--from', fixture], {
      cwd: dir,
      stdout,
      stderr: err.stream,
    });
    assert.equal(code, 70);
    assert.match(err.text(), /^op-gen: internal error: TypeError: stdout exploded\n\s+at /);
  });
});
