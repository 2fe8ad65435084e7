import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { LineSplitter } from '../../../src/client/request-parts.ts';

/** The lines of `chunks` as a LineSplitter gives them. */
function split(chunks: readonly Buffer[]): string[] {
  const lines: string[] = [];
  const splitter = new LineSplitter((l) => lines.push(l));
  for (const c of chunks) splitter.push(c);
  splitter.end();
  return lines;
}

describe('LineSplitter (watch stream bytes to lines)', () => {
  const text = '{"a":"é"}\n\n{"b":"😀 x"}\r\n  \n{"c":"ü"}';
  const bytes = Buffer.from(text, 'utf8');
  const expected = ['{"a":"é"}', '{"b":"😀 x"}\r', '{"c":"ü"}'];

  it('gives every non-blank line, the last one without a newline too', () => {
    assert.deepEqual(split([bytes]), expected);
  });

  it('the same lines however the bytes are cut in two or three chunks (characters split too)', () => {
    let cuts = 0;
    for (let i = 0; i <= bytes.length; i++) {
      for (let j = i; j <= bytes.length; j++) {
        assert.deepEqual(
          split([bytes.subarray(0, i), bytes.subarray(i, j), bytes.subarray(j)]),
          expected,
          `cut at ${i} and ${j}`,
        );
        cuts++;
      }
    }
    assert.equal(cuts, ((bytes.length + 1) * (bytes.length + 2)) / 2);
  });

  it('a line longer than many chunks (one byte each)', () => {
    const long = `{"k":"${'é'.repeat(500)}"}\n`;
    const b = Buffer.from(long + long, 'utf8');
    const lines = split([...b].map((x) => Buffer.from([x])));
    assert.deepEqual(lines, [long.trimEnd(), long.trimEnd()]);
  });

  it('a throw from onLine propagates out of push', () => {
    const splitter = new LineSplitter(() => {
      throw new Error('stop');
    });
    assert.throws(() => splitter.push(Buffer.from('x\n')), /stop/);
  });
});
