import assert from 'node:assert/strict';
import type { TestContext } from 'node:test';
import fc from 'fast-check';

/** The part of the environment the run count reads (a parameter, so the helper's own test sets it). */
export interface FuzzEnv {
  readonly OP_GEN_FUZZ_RUNS?: string | undefined;
  readonly OP_GEN_FUZZ_SEED?: string | undefined;
}

/**
 * How many cases a property runs: `byDefault` when OP_GEN_FUZZ_RUNS is unset; `all` (the property's
 * full or exhaustive count, `byDefault` unless the caller names one) when it is `all`, the mode of
 * `npm run test:fuzz`; the number itself when it is a positive integer. Anything else (an empty
 * string, 0, a negative or fractional number, a word) throws: a count that is not a number made
 * fast-check run a property zero times and pass.
 */
export function fuzzRuns(byDefault: number, all: number = byDefault, env: FuzzEnv = process.env): number {
  for (const [name, n] of [
    ['byDefault', byDefault],
    ['all', all],
  ] as const)
    if (!Number.isSafeInteger(n) || n < 1)
      throw new Error(`fuzzRuns: ${name} must be a positive integer, not ${n}`);
  const raw = env.OP_GEN_FUZZ_RUNS;
  if (raw === undefined) return byDefault;
  if (raw === 'all') return all;
  return runCount('OP_GEN_FUZZ_RUNS', raw, ' or to `all` (each property its full count)');
}

/**
 * The positive integer an environment variable `name` holds (`raw`), or an error naming the variable
 * and what it takes (`or` adds the named modes it also takes).
 */
export function runCount(name: string, raw: string, or = ''): number {
  if (/^[1-9][0-9]*$/.test(raw) && Number.isSafeInteger(Number(raw))) return Number(raw);
  throw new Error(
    `${name}=${JSON.stringify(raw)} is not a run count: set it to a positive integer (the cases each ` +
      `property runs)${or}, or unset it for the defaults`,
  );
}

/**
 * The seed of `npm test`'s properties when neither OP_GEN_FUZZ_SEED nor OP_GEN_FUZZ_RUNS is set. A
 * floor on a branch that a random draw takes by chance (one mutant in five compiles, say) fails a few
 * runs in a hundred with the code unchanged when the draw is small (CI did: 0 of 15 controller mutants
 * exited 0, floor 2). So the default run draws the same cases every time for a given code version, and
 * exploring is the job of a named seed, a named count or `npm run test:fuzz` / `test:properties`.
 */
export const DEFAULT_FUZZ_SEED = 20261127;

/**
 * The seed of OP_GEN_FUZZ_SEED (a failure prints its seed, so it replays); DEFAULT_FUZZ_SEED when
 * neither it nor OP_GEN_FUZZ_RUNS is set (the default `npm test`); else none (a fresh random seed).
 */
export function fuzzSeed(env: FuzzEnv = process.env): { seed: number } | Record<string, never> {
  const raw = env.OP_GEN_FUZZ_SEED;
  if (raw === undefined || raw === '')
    return env.OP_GEN_FUZZ_RUNS === undefined ? { seed: DEFAULT_FUZZ_SEED } : {};
  const seed = Number(raw);
  if (!Number.isSafeInteger(seed))
    throw new Error(`OP_GEN_FUZZ_SEED=${JSON.stringify(raw)} is not an integer`);
  return { seed };
}

/**
 * Runs `property` for exactly `runs` cases (fc.assert's failure report, with its seed, when one
 * fails), says how many ran through the test's diagnostics, and asserts that all of them ran: a
 * property whose precondition skips every draw, or whose count went wrong, fails instead of passing
 * on nothing. Returns the number of cases run.
 */
export async function assertProperty<Ts>(
  t: Pick<TestContext, 'diagnostic'>,
  property: fc.IRawProperty<Ts>,
  runs: number,
  parameters: Omit<fc.Parameters<Ts>, 'numRuns'> = {},
): Promise<number> {
  assert.ok(
    Number.isSafeInteger(runs) && runs >= 1,
    `a property runs a positive number of cases, not ${runs}`,
  );
  const details = await fc.check(property, { ...fuzzSeed(), ...parameters, numRuns: runs });
  if (details.failed)
    throw new Error(fc.defaultReportMessage(details) ?? 'the property failed', {
      cause: details.errorInstance,
    });
  t.diagnostic(
    `ran ${details.numRuns} cases${details.numSkips > 0 ? ` (${details.numSkips} draws skipped)` : ''}`,
  );
  assert.equal(details.numRuns, runs, `the property ran ${details.numRuns} of its ${runs} cases`);
  return details.numRuns;
}

/**
 * Says and asserts how many cases took the branch the property is about (`what`): at least `floor`,
 * which must be positive, so a property whose interesting branch is never taken fails.
 */
export function assertFloor(
  t: Pick<TestContext, 'diagnostic'>,
  what: string,
  count: number,
  floor: number,
): void {
  assert.ok(floor >= 1, `the floor of "${what}" must be at least 1, not ${floor}`);
  t.diagnostic(`${what}: ${count} (floor ${Math.ceil(floor)})`);
  assert.ok(count >= floor, `only ${count} cases ${what} (floor ${Math.ceil(floor)})`);
}
