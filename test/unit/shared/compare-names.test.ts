import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { compareNames } from '../../../src/shared/compare-names.ts';

describe('compareNames', () => {
  it('orders as localeCompare does (property, names with and without other characters)', () => {
    const names = fc.string({
      unit: fc.constantFrom(...'_-.0129abvyz', 'A', 'B', 'é', ' ', '~'),
      maxLength: 8,
    });
    fc.assert(
      fc.property(names, names, (a, b) => {
        assert.equal(
          compareNames(a, b),
          Math.sign(a.localeCompare(b)),
          `${JSON.stringify(a)} ${JSON.stringify(b)}`,
        );
      }),
      { numRuns: Number(process.env.OP_GEN_FUZZ_RUNS ?? 20000) },
    );
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
