import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  convertArg,
  MarkerArgumentError,
  parseNamedArgs,
  splitList,
  splitNamedArgs,
  type ArgSpec,
  type ArgType,
} from '../../../src/markers/index.ts';

/**
 * Marker argument parsing, value by value and message by message: the cases that kill the mutants
 * parse.test.ts and go-form.test.ts let survive (`npm run test:mutation -- markers`;
 * reports/mutation/markers.json).
 */
function fails(f: () => unknown, message: string): void {
  assert.throws(f, (err: unknown) => {
    assert.ok(err instanceof MarkerArgumentError, String(err));
    assert.equal(err.name, 'MarkerArgumentError');
    assert.equal(err.message, message);
    return true;
  });
}

describe('splitNamedArgs', () => {
  it('skips spaces, tabs, newlines and carriage returns between arguments', () => {
    assert.deepEqual(splitNamedArgs('  a=1\t\tb=2\n\rc=3  '), [
      { key: 'a', raw: '1', quoted: false },
      { key: 'b', raw: '2', quoted: false },
      { key: 'c', raw: '3', quoted: false },
    ]);
    assert.deepEqual(splitNamedArgs(''), []);
    assert.deepEqual(splitNamedArgs(' \t'), []);
  });

  it('reads keys of letters, digits, _ . and -, and values quoted, bracketed or bare', () => {
    assert.deepEqual(splitNamedArgs('a.b-c_d=1'), [{ key: 'a.b-c_d', raw: '1', quoted: false }]);
    assert.deepEqual(splitNamedArgs("a='x y' b=1"), [
      { key: 'a', raw: 'x y', quoted: true },
      { key: 'b', raw: '1', quoted: false },
    ]);
    assert.deepEqual(splitNamedArgs('a="x" b=1'), [
      { key: 'a', raw: 'x', quoted: true },
      { key: 'b', raw: '1', quoted: false },
    ]);
    assert.deepEqual(splitNamedArgs('a="line\nbreak"'), [{ key: 'a', raw: 'line\nbreak', quoted: true }]);
    assert.deepEqual(splitNamedArgs("a='it\\'s'"), [{ key: 'a', raw: "it\\'s", quoted: true }]);
    assert.deepEqual(splitNamedArgs('a=[1, 2] b=2'), [
      { key: 'a', raw: '[1, 2]', quoted: false },
      { key: 'b', raw: '2', quoted: false },
    ]);
    assert.deepEqual(splitNamedArgs('a=[1,[2]] b=2'), [
      { key: 'a', raw: '[1,[2]]', quoted: false },
      { key: 'b', raw: '2', quoted: false },
    ]);
    assert.deepEqual(splitNamedArgs('a={"s":"}"} b=1'), [
      { key: 'a', raw: '{"s":"}"}', quoted: false },
      { key: 'b', raw: '1', quoted: false },
    ]);
  });

  it('says what is wrong', () => {
    fails(() => splitNamedArgs('1a=2'), 'expected an argument name at "1a=2" (write key=value)');
    fails(
      () => splitNamedArgs('=abcdefghijklmnopqrst'),
      'expected an argument name at "=abcdefghijklmnopqrs..." (write key=value)',
    );
    fails(
      () => splitNamedArgs('=abcdefghijklmnopqrs'),
      'expected an argument name at "=abcdefghijklmnopqrs" (write key=value)',
    );
    fails(() => splitNamedArgs('a'), 'argument "a" has no value (write a=<value>)');
    fails(() => splitNamedArgs('a b=1'), 'argument "a" has no value (write a=<value>)');
    fails(() => splitNamedArgs('a="x"b=1'), 'argument "a": expected a space after the closing quote');
    fails(() => splitNamedArgs("a='unterminated"), 'argument "a": the \' quote is not closed');
    fails(() => splitNamedArgs('a="bad\\q"'), 'a: "bad\\q" is not a valid quoted string');
    fails(() => splitNamedArgs('a={"k":[1,2]'), 'argument "a": the { is not closed');
    fails(() => splitNamedArgs('a={"s":"x'), 'argument "a": the { is not closed');
  });
});

describe('splitList', () => {
  const cases: readonly (readonly [string, readonly string[]])[] = [
    ['a;b;"c;d"', ['a', 'b', '"c;d"']],
    ['a;b;', ['a', 'b']],
    [';', ['']],
    ['', ['']],
    ["a;'b;c';d", ['a', "'b;c'", 'd']],
    ['a;{"x":";"};[1;2];b', ['a', '{"x":";"}', '[1;2]', 'b']],
    ['a;"unterminated;b', ['a', '"unterminated', 'b']],
    ['a;[unclosed;b', ['a', '[unclosed', 'b']],
    [' a ; b ', ['a', 'b']],
    ['{x;y};z', ['{x;y}', 'z']],
  ];
  for (const [text, items] of cases) {
    it(`splits ${JSON.stringify(text)}`, () => assert.deepEqual(splitList(text), items));
  }
});

describe('convertArg', () => {
  const values: readonly (readonly [ArgType, string, unknown])[] = [
    ['json', '{"a":1}', { a: 1 }],
    ['json', '12abc', '12abc'],
    ['json', '-x', '-x'],
    ['json', 'true', true],
    ['json', 'false', false],
    ['json', 'null', null],
    ['json', "'q'", 'q'],
    ['json', "'", "'"],
    ['json', "''", ''],
    ['json', "ab'", "ab'"],
    ['json', "'ab", "'ab"],
    ['json', ' word ', 'word'],
    ['int', '  7 ', 7],
    ['number', '1e3', 1000],
    ['number', '-2.5', -2.5],
    ['bool', '', true],
    ['bool', ' true ', true],
    ['bool', 'false', false],
    ['string', '"a\\tb"', 'a\tb'],
    ['string', "'x'", 'x'],
    ['string', "'", "'"],
    ['string', "''", ''],
    ['string', "x'", "x'"],
    ['string', "'x", "'x"],
    ['string', 'a"', 'a"'],
    ['raw', "'x'", "'x'"],
    ['string', ' plain ', 'plain'],
    ['raw', '  r  ', 'r'],
    ['string[]', 'a;"b";\'c\'', ['a', 'b', 'c']],
    ['json[]', '1;"x";{"a":[1,2]};w', [1, 'x', { a: [1, 2] }, 'w']],
  ];
  for (const [type, text, value] of values) {
    it(`${type} ${JSON.stringify(text)} is ${JSON.stringify(value)}`, () =>
      assert.deepEqual(convertArg(type, text, 'W'), value));
  }

  it('names the argument and the problem', () => {
    const bad: readonly (readonly [ArgType, string, string])[] = [
      ['json', '  ', 'W: empty value'],
      [
        'json',
        '{bad',
        "W: {bad is not valid JSON (Expected property name or '}' in JSON at position 1 (line 1 column 2))",
      ],
      ['json', '"s', 'W: "s is not valid JSON (Unterminated string in JSON at position 2 (line 1 column 3))'],
      ['int', '1.5', 'W: expected an integer, got "1.5"'],
      ['int', '', 'W: expected an integer, got ""'],
      ['int', '  ', 'W: expected an integer, got ""'],
      ['number', 'Infinity', 'W: expected a number, got "Infinity"'],
      ['number', 'abc', 'W: expected a number, got "abc"'],
      ['bool', 'yes', 'W: expected true or false, got "yes"'],
      ['string[]', ' a;;b ', 'W: empty item in "a;;b"'],
    ];
    for (const [type, text, message] of bad) fails(() => convertArg(type, text, 'W'), message);
  });

  it('keeps a quoted string as it is, also for json', () => {
    assert.equal(convertArg('string', ' "x" ', 'W', undefined, true), ' "x" ');
    assert.equal(convertArg('json', '{"a":1}', 'W', undefined, true), '{"a":1}');
  });

  it('checks oneOf and required', () => {
    assert.equal(convertArg('string', 'a', 'W', { oneOf: ['a', 'b'] }), 'a');
    assert.equal(convertArg('int', '3', 'W', { oneOf: ['a', 'b'] }), 3);
    fails(() => convertArg('string', 'c', 'W', { oneOf: ['a', 'b'] }), 'W: "c" is not one of a, b');
    fails(() => convertArg('string', '', 'W', { required: true }), 'W: a value is required');
    fails(() => convertArg('string', '""', 'W', { required: true }), 'W: a value is required');
    assert.equal(convertArg('string', 'x', 'W', { required: true }), 'x');
    assert.equal(convertArg('string', '', 'W', { required: false }), '');
  });
});

describe('parseNamedArgs', () => {
  const specs: Readonly<Record<string, ArgSpec>> = {
    name: { type: 'string', help: 'the name', required: true },
    jsonPath: { type: 'raw', help: 'p' },
    count: { type: 'int', help: 'c' },
  };

  it('matches names exactly first, then case-insensitively', () => {
    assert.deepEqual(parseNamedArgs('name=n JSONPath=.a count=2', specs), {
      name: 'n',
      jsonPath: '.a',
      count: 2,
    });
    assert.deepEqual(
      parseNamedArgs('name=n jsonpath=.b', { ...specs, jsonpath: { type: 'string', help: 'x' } }),
      {
        name: 'n',
        jsonpath: '.b',
      },
    );
  });

  it('reads a raw argument as a string: quoted keeps its spaces', () => {
    assert.deepEqual(parseNamedArgs('name=n jsonPath=" .a "', specs), { name: 'n', jsonPath: ' .a ' });
  });

  it('reports unknown, repeated and missing arguments', () => {
    fails(
      () => parseNamedArgs('nope=1', specs),
      'unknown argument "nope"; known arguments: name, jsonPath, count',
    );
    fails(() => parseNamedArgs('nope=1', {}), 'unknown argument "nope"; known arguments: (none)');
    fails(() => parseNamedArgs('name=a Name=b', specs), 'argument "name" is given twice');
    fails(() => parseNamedArgs('count=1', specs), 'missing required argument "name" (the name)');
    fails(() => parseNamedArgs('name=n count=x', specs), 'argument "count": expected an integer, got "x"');
  });
});
