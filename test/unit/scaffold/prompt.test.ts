import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { describe, it } from 'node:test';
import { terminalPrompter } from '../../../src/scaffold/prompt.ts';

function fakeStdin(isTTY: boolean): NodeJS.ReadStream {
  const stream = new PassThrough() as unknown as NodeJS.ReadStream;
  stream.isTTY = isTTY;
  return stream;
}

describe('terminalPrompter', () => {
  it('does not prompt when stdin is not a TTY', () => {
    assert.equal(terminalPrompter(fakeStdin(false), new PassThrough(), {}), undefined);
  });

  it('does not prompt when CI is set, even on a TTY', () => {
    assert.equal(terminalPrompter(fakeStdin(true), new PassThrough(), { CI: 'true' }), undefined);
  });

  it('asks on a TTY and returns the trimmed answer', async () => {
    const stdin = fakeStdin(true);
    const stderr = new PassThrough();
    let shown = '';
    stderr.on('data', (d: Buffer) => (shown += d.toString()));
    const prompt = terminalPrompter(stdin, stderr, {});
    assert.ok(prompt);
    const answer = prompt('API domain (e.g. example.com)');
    (stdin as unknown as PassThrough).write('  example.org \n');
    assert.equal(await answer, 'example.org');
    assert.match(shown, /API domain \(e.g. example.com\): /);
  });
});
