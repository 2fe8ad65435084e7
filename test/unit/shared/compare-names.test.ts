import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { compareNames } from '../../../src/shared/compare-names.ts';
import { assertFloor, assertProperty, fuzzRuns } from '../../helpers/fuzz-runs.ts';

const runs = fuzzRuns(20_000, 100_000);

describe('compareNames', () => {
  it('orders as localeCompare does (property, names with and without other characters)', async (t) => {
    // Half the names are made only of the characters compareNames orders itself, so its own path runs.
    const own = fc.string({ unit: fc.constantFrom(...'_-.0129abvyz'), maxLength: 8 });
    const names = fc.oneof(
      own,
      fc.string({ unit: fc.constantFrom(...'_-.0129abvyz', 'A', 'B', 'é', ' ', '~'), maxLength: 8 }),
    );
    // Its own order differs from the code units' (`_` before `-` and `.`) for some of those pairs.
    let unlikeCodeUnits = 0;
    await assertProperty(
      t,
      fc.property(names, names, (a, b) => {
        if (/^[-_.0-9a-z]*$/.test(a + b) && a !== b && a < b !== a.localeCompare(b) < 0) unlikeCodeUnits++;
        assert.equal(
          compareNames(a, b),
          Math.sign(a.localeCompare(b)),
          `${JSON.stringify(a)} ${JSON.stringify(b)}`,
        );
      }),
      runs,
    );
    assertFloor(t, 'of its own names ordered unlike their code units', unlikeCodeUnits, runs * 0.01);
  });

  it('sorts the names op-gen sorts as localeCompare sorts them', () => {
    const list = [
      'widget_types.ts',
      'widget.ts',
      'groupversion.ts',
      'v1beta1',
      'v1',
      'v10',
      'a-b',
      'ab',
      'a.b',
      'Zeta',
      'x',
    ];
    assert.deepEqual(
      [...list].sort(compareNames),
      [...list].sort((a, b) => a.localeCompare(b)),
    );
  });
});
