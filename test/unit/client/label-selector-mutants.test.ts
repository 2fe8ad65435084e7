import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  LabelSelectorError,
  parseSelector,
  selectorMatches,
  selectorString,
} from '../../../src/client/label-selector.ts';

/**
 * Cases that kill the mutants the apimachinery table (label-selector.test.ts) let survive
 * (`npm run test:mutation -- label-selector`; reports/mutation/label-selector.json): exact
 * messages, boundaries of the int64 range, `in`/`notin` as identifiers, the order of the sort.
 */
const canonical = (selector: string): string => selectorString(parseSelector(selector));

function rejects(selector: string, message: string): void {
  assert.throws(
    () => parseSelector(selector),
    (err: unknown) => {
      assert.ok(err instanceof LabelSelectorError, `${selector}: ${String(err)}`);
      assert.equal(err.name, 'LabelSelectorError');
      assert.equal(err.message, message);
      return true;
    },
  );
}

describe('label selector parser: exact results and messages', () => {
  it('reads a carriage return as whitespace', () => {
    assert.equal(canonical('x=a,\ry=b'), 'x=a,y=b');
  });

  it('reads `in` and `notin` as keys and values where an identifier is expected', () => {
    assert.equal(canonical('x=a,in=b'), 'in=b,x=a');
    assert.equal(canonical('!in'), '!in');
    assert.equal(canonical('x in (in)'), 'x in (in)');
  });

  it('keeps a leading empty entry of a set', () => {
    assert.equal(canonical('x in (,a)'), 'x in (,a)');
  });

  it('says which token it found and what it expected', () => {
    rejects('a notin(', "unable to parse requirement: found '', expected: ',', ')' or identifier");
    rejects('!!x', "unable to parse requirement: found '!', expected: identifier");
    rejects('x in (=)', "unable to parse requirement: found '=', expected: ',', ')' or identifier");
    rejects('x in (a,=)', "unable to parse requirement: found '=', expected: ',', or identifier");
    rejects('x=(', "unable to parse requirement: found '(', expected: identifier");
  });

  it('joins several problems of one key with "; " and of one requirement with ", "', () => {
    assert.throws(
      () => parseSelector('A_/-b=1'),
      (err: unknown) => {
        assert.ok(err instanceof LabelSelectorError);
        assert.match(err.message, /^unable to parse requirement: key: Invalid value: "A_\/-b": prefix part /);
        assert.match(err.message, /\); name part must consist/);
        return true;
      },
    );
    assert.throws(
      () => parseSelector('x>-a'),
      (err: unknown) => {
        assert.ok(err instanceof LabelSelectorError);
        assert.match(
          err.message,
          /^unable to parse requirement: values: Invalid value: "-a": for 'Gt', 'Lt' operators, the value must be an integer, values\[x\]: Invalid value: "-a": /,
        );
        return true;
      },
    );
  });

  it('takes `>` and `<` values only as base-10 int64', () => {
    assert.equal(canonical('x>9223372036854775807'), 'x>9223372036854775807');
    assert.equal(canonical('x<12'), 'x<12');
    const notInteger = (v: string): string =>
      `unable to parse requirement: values: Invalid value: "${v}": for 'Gt', 'Lt' operators, the value must be an integer`;
    rejects('x>9223372036854775808', notInteger('9223372036854775808'));
    rejects('x>a', notInteger('a'));
    rejects('x>12a', notInteger('12a'));
  });

  it('sorts requirements by key, stable for equal keys', () => {
    assert.equal(canonical('g=1,b=1,f=1,a=1,e=1,c=1,d=1'), 'a=1,b=1,c=1,d=1,e=1,f=1,g=1');
    assert.equal(canonical('x=a,b=1,x=b'), 'b=1,x=a,x=b');
    assert.equal(canonical('x=b,x=a'), 'x=b,x=a');
  });
});

describe('label selector matching: operators and int64 bounds', () => {
  const m = (sel: string, labels: Record<string, string>): boolean =>
    selectorMatches(parseSelector(sel), labels);

  it('`==` is `=`', () => {
    assert.equal(m('x==y', { x: 'y' }), true);
    assert.equal(m('x==y', { x: 'z' }), false);
  });

  it('`>` and `<` are strict', () => {
    assert.equal(m('x>1', { x: '1' }), false);
    assert.equal(m('x<1', { x: '1' }), false);
    assert.equal(m('x<1', { x: '2' }), false);
    assert.equal(m('x>1', { x: '2' }), true);
  });

  it('a label value outside int64 matches neither `>` nor `<`', () => {
    assert.equal(m('x<1', { x: '-9223372036854775808' }), true);
    assert.equal(m('x<1', { x: '-9223372036854775809' }), false);
    assert.equal(m('x>1', { x: '9223372036854775807' }), true);
    assert.equal(m('x>1', { x: '9223372036854775808' }), false);
  });
});
