import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { cell, code, fenced, prose } from '../../../src/generate/docs/markdown.ts';
import { typeText, validationItems } from '../../../src/generate/docs/schema-summary.ts';

describe('generate docs: Markdown helpers', () => {
  it('a table cell escapes pipes, turns line breaks into <br> and is never empty', () => {
    assert.equal(cell('a|b\nc'), 'a\\|b<br>c');
    assert.equal(cell('  '), ' ');
  });

  it('prose escapes only a < that could open an HTML tag', () => {
    assert.equal(prose('x <= 3 and <script> or </b>'), 'x <= 3 and &lt;script> or &lt;/b>');
  });

  it('code spans and fences outlast the backticks inside', () => {
    assert.equal(code('a'), '`a`');
    assert.equal(code('a`b'), '``a`b``');
    assert.equal(code('`a'), '`` `a ``');
    assert.equal(fenced('yaml', 'x: "```"\n'), '````yaml\nx: "```"\n````');
  });
});

describe('generate docs: types and validation in words', () => {
  const none = (): undefined => undefined;
  it('names scalar, list, map and special types', () => {
    assert.equal(typeText({ type: 'integer', format: 'int32' }, none), 'integer (int32)');
    assert.equal(typeText({ type: 'array', items: { type: 'string' } }, none), '[]string');
    assert.equal(
      typeText({ type: 'object', additionalProperties: { type: 'array', items: { type: 'integer' } } }, none),
      'map[string][]integer',
    );
    assert.equal(typeText({ 'x-kubernetes-int-or-string': true }, none), 'int-or-string');
    assert.equal(
      typeText({ type: 'object', 'x-kubernetes-preserve-unknown-fields': true }, none),
      'object (any fields)',
    );
    assert.equal(
      typeText({ type: 'array', items: { type: 'object', properties: { a: {} } } }, () => '[T](#t)'),
      '[][T](#t)',
    );
  });

  it('summarizes every constraint, exclusive bounds and CEL messages included', () => {
    assert.deepEqual(
      validationItems({
        type: 'integer',
        enum: [1, 2],
        minimum: 0,
        exclusiveMinimum: true,
        maximum: 9,
        multipleOf: 3,
        'x-kubernetes-validations': [{ rule: 'self != 6', message: 'six is taken' }, { rule: 'self != 3' }],
      }),
      ['one of `1`, `2`', '> 0', '<= 9', 'multiple of 3', 'rule: six is taken', 'rule: `self != 3`'],
    );
    assert.deepEqual(
      validationItems({
        type: 'array',
        maxItems: 4,
        'x-kubernetes-list-type': 'map',
        'x-kubernetes-list-map-keys': ['name'],
        items: { type: 'string', maxLength: 8 },
      }),
      ['max items 4', 'list map, keys `name`', 'each item: max length 8'],
    );
  });
});
