import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import {
  assertFloor,
  assertProperty,
  DEFAULT_FUZZ_SEED,
  fuzzRuns,
  fuzzSeed,
} from '../../helpers/fuzz-runs.ts';

/** A test context that keeps what the helper says. */
function context(): { diagnostic: (m: string) => void; said: string[] } {
  const said: string[] = [];
  return { diagnostic: (m: string) => void said.push(m), said };
}

describe('test/helpers/fuzz-runs.ts', () => {
  it('reads OP_GEN_FUZZ_RUNS: unset is the default, `all` the full count, a positive integer itself', () => {
    assert.equal(fuzzRuns(200, 5000, {}), 200);
    assert.equal(fuzzRuns(200, 5000, { OP_GEN_FUZZ_RUNS: 'all' }), 5000);
    assert.equal(fuzzRuns(200, undefined, { OP_GEN_FUZZ_RUNS: 'all' }), 200);
    assert.equal(fuzzRuns(200, 5000, { OP_GEN_FUZZ_RUNS: '7' }), 7);
  });

  it('refuses every other value, naming the variable (NaN used to run a property zero times)', () => {
    for (const raw of ['', '0', '-3', '1.5', 'abc', 'NaN', ' 5', '1e3', 'ALL', '99999999999999999999'])
      assert.throws(() => fuzzRuns(200, 5000, { OP_GEN_FUZZ_RUNS: raw }), /^Error: OP_GEN_FUZZ_RUNS=/, raw);
    assert.throws(() => fuzzRuns(0), /byDefault must be a positive integer/);
    assert.throws(() => fuzzRuns(10, Number.NaN), /all must be a positive integer/);
  });

  it('draws with a fixed seed by default, a named one when given, a fresh one when exploring', () => {
    assert.deepEqual(fuzzSeed({}), { seed: DEFAULT_FUZZ_SEED });
    assert.deepEqual(fuzzSeed({ OP_GEN_FUZZ_SEED: '' }), { seed: DEFAULT_FUZZ_SEED });
    assert.deepEqual(fuzzSeed({ OP_GEN_FUZZ_SEED: '-42' }), { seed: -42 });
    assert.deepEqual(fuzzSeed({ OP_GEN_FUZZ_SEED: '7', OP_GEN_FUZZ_RUNS: 'all' }), { seed: 7 });
    assert.deepEqual(fuzzSeed({ OP_GEN_FUZZ_RUNS: 'all' }), {});
    assert.deepEqual(fuzzSeed({ OP_GEN_FUZZ_RUNS: '500' }), {});
    assert.throws(() => fuzzSeed({ OP_GEN_FUZZ_SEED: 'x' }), /OP_GEN_FUZZ_SEED="x" is not an integer/);
  });

  it('runs a property for exactly its count and says so', async () => {
    const t = context();
    let calls = 0;
    assert.equal(
      await assertProperty(
        t,
        fc.property(fc.nat(), () => void calls++),
        37,
      ),
      37,
    );
    assert.equal(calls, 37);
    assert.deepEqual(t.said, ['ran 37 cases']);
    assert.equal(
      await assertProperty(
        t,
        fc.asyncProperty(fc.nat(), async () => {}),
        5,
      ),
      5,
    );
  });

  it('fails a property that fails, with fast-check’s report and its seed', async () => {
    await assert.rejects(
      assertProperty(
        context(),
        fc.property(fc.nat(), (n) => n < 10),
        200,
      ),
      /Property failed after \d+ tests\n\{ seed: -?\d+/,
    );
  });

  it('fails a property whose precondition skips every draw instead of passing on nothing', async () => {
    await assert.rejects(
      assertProperty(
        context(),
        fc.property(fc.nat(), (n) => {
          fc.pre(n < 0);
        }),
        10,
      ),
      /too many pre-condition failures/,
    );
  });

  it('fails a property that ran fewer cases than its count (here cut short by a time limit)', async () => {
    await assert.rejects(
      assertProperty(
        context(),
        fc.property(fc.nat(), () => {
          const until = Date.now() + 2;
          while (Date.now() < until);
        }),
        50,
        { interruptAfterTimeLimit: 5 },
      ),
      /the property ran \d+ of its 50 cases/,
    );
  });

  it('holds a branch count to a floor that is at least 1', () => {
    const t = context();
    assertFloor(t, 'took the branch', 3, 2.5);
    assert.deepEqual(t.said, ['took the branch: 3 (floor 3)']);
    assert.throws(
      () => assertFloor(context(), 'took the branch', 2, 2.5),
      /only 2 cases took the branch \(floor 3\)/,
    );
    assert.throws(() => assertFloor(context(), 'took the branch', 0, 0), /must be at least 1/);
  });

  it('a property test file fails on OP_GEN_FUZZ_RUNS=abc, naming the variable', () => {
    // Without NODE_TEST_CONTEXT, which would make the inner runner report to this one and exit 0.
    const { NODE_TEST_CONTEXT: _, ...env } = process.env;
    const r = spawnSync(process.execPath, ['--test', 'test/unit/shared/compare-names.test.ts'], {
      env: { ...env, OP_GEN_FUZZ_RUNS: 'abc' },
      encoding: 'utf8',
    });
    assert.notEqual(r.status, 0, r.stdout);
    assert.match(r.stdout + r.stderr, /OP_GEN_FUZZ_RUNS="abc" is not a run count/);
  });

  it('no test reads OP_GEN_FUZZ_RUNS itself but to test for `all` (a Number(...) of it ran properties zero times)', () => {
    const root = join(import.meta.dirname, '../../..');
    const readers = readdirSync(join(root, 'test'), { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile() && e.name.endsWith('.ts'))
      .map((e) => relative(root, join(e.parentPath, e.name)))
      .filter((path) =>
        /process\.env\.OP_GEN_FUZZ_RUNS\b(?! === 'all')/.test(readFileSync(join(root, path), 'utf8')),
      );
    assert.deepEqual(readers, []);
  });
});
