import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { OpGenError } from '../../../src/errors.ts';
import { ProblemCollector, ProblemsError } from '../../../src/shared/problems.ts';

describe('ProblemCollector', () => {
  it('prints every problem sorted by file, line and column (numerically), then the count', () => {
    const c = new ProblemCollector();
    c.add('b.ts:2: second file');
    c.add('a.ts:10: line ten');
    c.add('a.ts:9:5: line nine, column five');
    c.add('a.ts:9:12: line nine, column twelve');
    c.add('no place at all');
    c.add('a.ts:10: line ten'); // the same problem twice counts once
    assert.throws(
      () => c.throwIfAny(),
      (err: Error) => {
        assert.ok(err instanceof ProblemsError && err instanceof OpGenError);
        assert.equal((err as OpGenError).exitCode, 1);
        assert.equal(
          err.message,
          'a.ts:9:5: line nine, column five\na.ts:9:12: line nine, column twelve\na.ts:10: line ten\nb.ts:2: second file\nno place at all\n5 problems',
        );
        return true;
      },
    );
  });

  it('one problem is its message alone; none throws nothing', () => {
    const c = new ProblemCollector();
    c.throwIfAny();
    c.attempt(() => {
      throw new OpGenError('x.ts:1: broken');
    }, undefined);
    assert.throws(() => c.throwIfAny(), { message: 'x.ts:1: broken' });
  });

  it('absorbs the problems of a ProblemsError; rethrows bugs and usage errors', () => {
    const c = new ProblemCollector();
    c.addError(new ProblemsError([{ text: 'a.ts:1: one' }, { text: 'a.ts:2: two' }]));
    assert.equal(c.size, 2);
    assert.throws(() => c.addError(new TypeError('bug')), TypeError);
    assert.throws(() => c.addError(new OpGenError('bad flag', { exitCode: 2 })), /bad flag/);
  });
});
