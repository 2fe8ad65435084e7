import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { readYamlDocuments, type YamlProblem } from '../../../src/shared/yaml-documents.ts';

class Caught extends Error {
  readonly problem: YamlProblem;
  constructor(problem: YamlProblem) {
    super(problem.message);
    this.problem = problem;
  }
}

function problemOf(text: string): YamlProblem {
  try {
    readYamlDocuments(text, (p) => new Caught(p));
  } catch (err) {
    if (err instanceof Caught) return err.problem;
    throw err;
  }
  assert.fail('no problem reported');
}

describe('readYamlDocuments', () => {
  it('gives every document with its index and the line its content starts on', () => {
    const docs = readYamlDocuments('# head\na: 1\n---\n\n- x\n---\n', () => new Error('unexpected'));
    assert.deepEqual(
      docs.map(({ value, index, line }) => ({ value, index, line })),
      [
        { value: { a: 1 }, index: 0, line: 2 },
        { value: ['x'], index: 1, line: 5 },
        { value: null, index: 2, line: 6 },
      ],
    );
    assert.deepEqual(
      readYamlDocuments('', () => new Error('unexpected')),
      [],
    );
  });

  it('reports a syntax error with its line and column', () => {
    const p = problemOf('a: 1\nb: [\n');
    assert.equal(p.kind, 'syntax');
    assert.equal(p.line, 3);
    assert.equal(p.index, 0);
    assert.doesNotMatch(p.message, /\n/);
  });

  it('reports an alias without its anchor at the alias, not as a crash (found by the CRD fuzz)', () => {
    const p = problemOf('a: 1\n---\nb:\n  c: *nowhere\n');
    assert.deepEqual({ kind: p.kind, index: p.index, line: p.line }, { kind: 'alias', index: 1, line: 4 });
    assert.match(p.message, /Unresolved alias .*nowhere/);
  });
});
