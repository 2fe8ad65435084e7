import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { describe, it } from 'node:test';
import { main } from '../../../src/cli/main.ts';
import { PACKAGE_VERSION } from '../../helpers/package-version.ts';

function capture(): { stream: Writable; text: () => string } {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      chunks.push(chunk.toString());
      done();
    },
  });
  return { stream, text: () => chunks.join('') };
}

async function run(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  const out = capture();
  const err = capture();
  const code = await main(argv, { stdout: out.stream, stderr: err.stream });
  return { code, out: out.text(), err: err.text() };
}

describe('op-gen CLI skeleton', () => {
  it('prints its version from package.json', async () => {
    const r = await run('--version');
    assert.equal(r.code, 0);
    assert.equal(r.out, `${PACKAGE_VERSION}\n`);
  });

  it('prints help listing the global --cwd option and the generate group', async () => {
    const r = await run('--help');
    assert.equal(r.code, 0);
    assert.match(r.out, /Usage: op-gen/);
    assert.match(r.out, /--cwd <dir>/);
    assert.match(r.out, /generate/);
  });

  it('rejects an unknown command with exit 2 and a hint', async () => {
    const r = await run('frobnicate');
    assert.equal(r.code, 2);
    assert.match(r.err, /unknown command 'frobnicate'/);
    assert.match(r.err, /op-gen --help/);
  });

  it('suggests the closest command for a typo', async () => {
    const r = await run('generat');
    assert.equal(r.code, 2);
    assert.match(r.err, /Did you mean generate\?/);
  });

  it('rejects an unknown option with exit 2', async () => {
    const r = await run('--bogus');
    assert.equal(r.code, 2);
    assert.match(r.err, /unknown option '--bogus'/);
  });
});
