import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { inRe2Subset } from '../../../src/generate/crd/re2-subset.ts';
import { compileRe2 } from '../../../src/generate/crd/schema-checks.ts';
import { QUANTITY_PATTERN } from '../../../src/generate/crd/schema-markers.ts';
import { assertFloor, assertProperty, fuzzRuns } from '../../helpers/fuzz-runs.ts';

const runs = fuzzRuns(3000, 50000);

/** RE2 (re2js, the API server's dialect) accepts the pattern. */
const re2Accepts = (pattern: string): boolean => typeof compileRe2(pattern) !== 'string';

/** Patterns from a grammar close to the subset's, and a few steps outside it. */
const atom: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom('a', 'Z', '0', '_', '-', ' ', ':', '/', '.', '^', '$', ',', '=', '@', '}', ']', '{'),
  fc.constantFrom('\\d', '\\w', '\\s', '\\D', '\\b', '\\.', '\\-', '\\/', '\\\\', '\\+', '\\z', '\\p', '\\1'),
  fc
    .tuple(
      fc.boolean(),
      fc.array(
        fc.constantFrom(
          'a',
          'z',
          'A',
          '0',
          '9',
          '-',
          '_',
          '.',
          '\\d',
          '\\]',
          '[',
          '^',
          'a-z',
          '0-9',
          'z-a',
          ':',
        ),
        {
          maxLength: 4,
        },
      ),
    )
    .map(([negated, items]) => `[${negated ? '^' : ''}${items.join('')}]`),
);
const quantifier = fc.constantFrom(
  '',
  '',
  '*',
  '+',
  '?',
  '*?',
  '{2}',
  '{1,3}',
  '{0,}',
  '{100}',
  '{101}',
  '{3,2}',
  '**',
  '{1000}',
  '{1001}',
);
const pattern: fc.Arbitrary<string> = fc.letrec<{ alt: string; seq: string; piece: string }>((tie) => ({
  alt: fc.array(tie('seq'), { minLength: 1, maxLength: 3 }).map((seqs) => seqs.join('|')),
  seq: fc.array(tie('piece'), { maxLength: 4 }).map((pieces) => pieces.join('')),
  piece: fc
    .tuple(
      fc.oneof(
        { weight: 4, arbitrary: atom },
        {
          weight: 1,
          arbitrary: fc
            .tuple(fc.constantFrom('(', '(?:', '(?=', '(?i)'), tie('alt'))
            .map(([open, inner]) => `${open}${inner})`),
        },
      ),
      quantifier,
    )
    .map(([a, q]) => a + q),
})).alt;

describe('the RE2 subset (patterns known valid without re2js)', () => {
  it('takes the patterns op-gen writes and the common CRD ones', () => {
    for (const p of [
      QUANTITY_PATTERN,
      '^[a-z]([-a-z0-9]*[a-z0-9])?$',
      '^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\\/)?(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])$',
      '^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$',
      '^(Always|Never|IfNotPresent)$',
      '^\\d{1,3}(\\.\\d+)?s$',
      '',
    ]) {
      assert.equal(inRe2Subset(p), true, p);
      assert.equal(re2Accepts(p), true, p);
    }
  });

  it('leaves to re2js what it does not know, valid or not', () => {
    // Valid in RE2 but outside the subset, and invalid ones: none is taken as known valid.
    for (const p of [
      '(?i)abc',
      '\\pL',
      '\\z',
      '[[:alpha:]]',
      'a{1000}',
      '(?=x)',
      '(a)\\1',
      'a{1001}',
      '[a-',
      'a**',
      '(a{2}){3}',
      '[z-a]',
      'é',
    ])
      assert.equal(inRe2Subset(p), false, p);
  });

  it('only takes patterns RE2 accepts (property, against re2js)', async (t) => {
    let taken = 0;
    let refused = 0;
    await assertProperty(
      t,
      fc.property(
        fc.oneof(pattern, fc.string({ unit: fc.constantFrom(...'ab()[]{}|*+?.^$\\-:0,1d'), maxLength: 12 })),
        (p) => {
          const accepts = re2Accepts(p);
          if (!accepts) refused++;
          if (!inRe2Subset(p)) return;
          taken++;
          assert.ok(accepts, `in the subset, but RE2 refuses ${JSON.stringify(p)}: ${String(compileRe2(p))}`);
        },
      ),
      runs,
    );
    // Both branches must be well exercised: patterns the subset takes, and patterns RE2 refuses.
    assertFloor(t, 'taken by the subset', taken, runs / 10);
    assertFloor(t, 'refused by RE2', refused, runs / 20);
  });
});
