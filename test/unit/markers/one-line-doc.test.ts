import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { parseDocComment, parseDocCommentLines } from '../../../src/markers/jsdoc.ts';
import { assertFloor, assertProperty, fuzzRuns } from '../../helpers/fuzz-runs.ts';

const runs = fuzzRuns(2000, 50000);
const options = { isGoFormLine: (line: string): boolean => line.startsWith('+kubebuilder') };

describe('one-line doc comments (the shortcut of parseDocComment)', () => {
  it('reads the text as the description', () => {
    assert.deepEqual(parseDocComment('/** The port to listen on. */', 3), {
      description: 'The port to listen on.',
      tags: [],
      inline: [],
      goForm: [],
    });
    assert.equal(parseDocComment('/**   ---  */', 1).description, '');
    assert.equal(parseDocComment('/***  a  b **/', 1).description, 'a  b *');
  });

  it('gives what the line-by-line reading gives (property)', async (t) => {
    let oneLine = 0;
    const body = fc.string({ unit: fc.constantFrom(...' \t\r*-/`.aZ@+\n'), maxLength: 16 });
    await assertProperty(
      t,
      fc.property(
        fc.constantFrom('/**', '/***'),
        body,
        fc.constantFrom('*/', '**/', ' */'),
        (open, text, close) => {
          const comment = `${open}${text}${close}`;
          if (!/[\n@+]/.test(comment)) oneLine++;
          assert.deepEqual(parseDocComment(comment, 7, options), parseDocCommentLines(comment, 7, options));
        },
      ),
      runs,
    );
    assertFloor(t, 'on one line without @ or +', oneLine, runs / 10);
  });
});
