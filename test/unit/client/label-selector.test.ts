import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  LabelSelectorError,
  parseSelector,
  selectorFromSet,
  selectorMatches,
  selectorString,
} from '../../../src/client/label-selector.ts';
import { compileSelector } from '../../../src/runtime/label-selector.ts';

/**
 * Cases from k8s.io/apimachinery/pkg/labels/selector_test.go (TestSelectorParse,
 * TestSetSelectorParser, TestSelectorMatches): what labels.Parse accepts, what it rejects, and the
 * canonical String() of what it accepts.
 */
describe('label selectors parse as apimachinery labels.Parse', () => {
  const valid: readonly (readonly [string, string])[] = [
    ['x=a,y=b,z=c', 'x=a,y=b,z=c'],
    ['', ''],
    ['x!=a,y=b', 'x!=a,y=b'],
    ['x=', 'x='],
    ['x= ,z= ', 'x=,z='],
    ['!x', '!x'],
    ['x>1,z<5', 'x>1,z<5'],
    ['x in(a)', 'x in (a)'],
    ['foo  in\t (abc)', 'foo in (abc)'],
    ['x notin\n (abc)', 'x notin (abc)'],
    ['x in (abc,)', 'x in (,abc)'],
    ['x in (abc,abc)', 'x in (abc)'],
    ['x in ()', 'x in ()'],
    ['x in (a,,,)', 'x in (,a)'],
    ['x notin (abc,,def),bar,z in (),w', 'bar,w,x notin (,abc,def),z in ()'],
    ['a in (x,y,notin, z,in)', 'a in (in,notin,x,y,z)'],
    ['this-is-a-dns.domain.com/key-with-dash', 'this-is-a-dns.domain.com/key-with-dash'],
    [
      '0.1.2.domain/99 notin (10.10.100.1, tick.tack.clock)',
      '0.1.2.domain/99 notin (10.10.100.1,tick.tack.clock)',
    ],
    ['notin=in', 'notin=in'],
    ['a ', 'a'],
    ['x=a,a=x', 'a=x,x=a'],
  ];
  for (const [input, canonical] of valid) {
    it(`accepts ${JSON.stringify(input)} as ${JSON.stringify(canonical)}`, () => {
      assert.equal(selectorString(parseSelector(input)), canonical);
    });
  }

  const invalid: readonly (readonly [string, RegExp])[] = [
    ['a=b=c', /found '=', expected: ',' or 'end of string'/],
    ['x==a==b', /found '==', expected: ',' or 'end of string'/],
    ['x=a||y=b', /values\[x\]: Invalid value: "a\|\|y"/],
    ['!x=a', /found '=', expected: ',' or 'end of string'/],
    ['x<a', /the value must be an integer/],
    ['x,,y', /expected: identifier after ','/],
    [',x,y', /expected: !, identifier, or 'end of string'/],
    ['x nott in (y)', /expected: in, notin, =, ==, !=, gt, lt/],
    ['a in (xyz),', /expected: identifier after ','/],
    ['a in (xyz)b notin ()', /expected: ',' or 'end of string'/],
    ['a in (xyz abc)', /expected: ',' or '\)'/],
    ['a notin(', /expected/],
    ['a (', /expected/],
    ['(', /expected: !, identifier, or 'end of string'/],
    ['x in b', /expected: '\('/],
    ['Bad Key=x', /expected/],
    ['-bad=x', /key: Invalid value: "-bad": name part must consist of alphanumeric characters/],
    ['app=has space', /expected: ',' or 'end of string'/],
    ['app=-x', /values\[app\]: Invalid value: "-x": a valid label must be an empty string/],
    [`app=${'v'.repeat(64)}`, /must be no more than 63 bytes/],
  ];
  for (const [input, message] of invalid) {
    it(`rejects ${JSON.stringify(input)}`, () => {
      assert.throws(
        () => parseSelector(input),
        (err: unknown) => {
          assert.ok(err instanceof LabelSelectorError);
          assert.match(err.message, message);
          return true;
        },
      );
    });
  }

  it('matches as Selector.Matches does', () => {
    const m = (sel: string, labels: Record<string, string>): boolean =>
      selectorMatches(parseSelector(sel), labels);
    assert.equal(m('x=y', { x: 'y' }), true);
    assert.equal(m('x!=y,z!=w', { x: 'z', z: 'a' }), true);
    assert.equal(m('x', { x: 'z' }), true);
    assert.equal(m('!x', { y: 'z' }), true);
    assert.equal(m('x>1', { x: '2' }), true);
    assert.equal(m('x<1', { x: '0' }), true);
    assert.equal(m('x=z', {}), false);
    assert.equal(m('x>1', { x: '0' }), false);
    assert.equal(m('x>1', { x: 'v2' }), false);
    assert.equal(m('x in ()', { x: '' }), true);
    assert.equal(m('x in ()', { x: 'a' }), false);
    assert.equal(m('x notin (a)', {}), true);
    assert.equal(
      m('app=web,tier!=db,env in (prod, staging),!legacy,team', {
        app: 'web',
        env: 'prod',
        team: 'a',
      }),
      true,
    );
  });

  it('validates matchLabels as ValidatedSelectorFromSet does', () => {
    assert.equal(selectorString(selectorFromSet({ b: '2', a: '1' })), 'a=1,b=2');
    assert.throws(() => selectorFromSet({ 'bad key': 'x' }), /key: Invalid value: "bad key"/);
    assert.throws(() => selectorFromSet({ app: 'a b' }), /values\[app\]: Invalid value: "a b"/);
  });
});

describe('one parse for the cache path and the server path', () => {
  it('the cache predicate and the server query come from the same requirements', () => {
    const compiled = compileSelector('tier!=db, app in(web)');
    assert.equal(compiled.query, 'app in (web),tier!=db');
    assert.equal(compiled.matches({ app: 'web' }), true);
    assert.equal(compiled.matches({ app: 'web', tier: 'db' }), false);
    // The server's own parse of the query gives the same requirements.
    assert.deepEqual(parseSelector(compiled.query!), compiled.requirements);
  });

  it('an invalid selector fails before either path uses it', () => {
    assert.throws(() => compileSelector('a=b=c'), LabelSelectorError);
    assert.throws(() => compileSelector({ app: 'x y' }), LabelSelectorError);
    assert.equal(compileSelector(undefined).query, undefined);
    assert.equal(compileSelector('').query, undefined);
  });
});
