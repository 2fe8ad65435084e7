import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';

/**
 * The one way golden tests compare generated text with the files under test/golden (and docs/markers.md).
 *
 * `UPDATE_GOLDEN=1` (exactly `1`) rewrites the goldens before comparing, so the diff can be reviewed by
 * hand; any other value compares only. Under `CI` nothing is ever rewritten: both set is an error, so a
 * CI run cannot pass by accepting its own output. Even in update mode the generated text is checked to
 * be non-empty and a golden directory to hold exactly the generated files.
 */

const REPO = join(import.meta.dirname, '..', '..');
const HOW = 'run UPDATE_GOLDEN=1 node --test <this test file> and review the diff';

type Env = Readonly<Record<string, string | undefined>>;

/** True when this run rewrites goldens; throws when UPDATE_GOLDEN=1 and CI are both set. */
export function goldenUpdate(env: Env = process.env): boolean {
  const update = env['UPDATE_GOLDEN'] === '1';
  if (update && env['CI']) {
    throw new Error(
      'UPDATE_GOLDEN=1 and CI are both set: CI compares with the goldens and never rewrites them; ' +
        'rewrite them locally without CI and commit the reviewed diff',
    );
  }
  return update;
}

export interface GoldenOptions {
  /** The environment to read UPDATE_GOLDEN and CI from (tests of this helper pass their own). */
  readonly env?: Env;
}

const shown = (path: string): string => relative(REPO, path) || path;

/** Asserts `actual` equals the golden file at `path` (absolute); with UPDATE_GOLDEN=1 writes it first. */
export function assertGolden(path: string, actual: string, options: GoldenOptions = {}): void {
  assert.ok(actual.trim() !== '', `${shown(path)}: the generated text is empty`);
  if (goldenUpdate(options.env) && (!existsSync(path) || readFileSync(path, 'utf8') !== actual)) {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, actual);
    process.stderr.write(`rewrote golden ${shown(path)}: review the diff\n`);
  }
  assert.ok(existsSync(path), `golden ${shown(path)} is missing: ${HOW}`);
  assert.equal(actual, readFileSync(path, 'utf8'), `${shown(path)} differs from the generated text: ${HOW}`);
}

/** Every file under `dir`, relative to it, sorted. */
function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => relative(dir, join(e.parentPath, e.name)))
    .sort();
}

/**
 * Asserts the golden directory `dir` holds exactly `files` (paths relative to `dir` → content), each
 * equal; with UPDATE_GOLDEN=1 removes the goldens no longer generated and writes the others first.
 */
export function assertGoldenDir(
  dir: string,
  files: ReadonlyMap<string, string>,
  options: GoldenOptions = {},
): void {
  assert.ok(files.size > 0, `${shown(dir)}: nothing was generated`);
  const generated = [...files.keys()].sort();
  if (goldenUpdate(options.env)) {
    for (const stale of filesUnder(dir).filter((f) => !files.has(f))) {
      rmSync(join(dir, stale));
      process.stderr.write(`removed golden ${shown(join(dir, stale))}: review the diff\n`);
    }
  }
  for (const [file, content] of files) {
    if (goldenUpdate(options.env)) assertGolden(join(dir, file), content, options);
  }
  assert.deepEqual(filesUnder(dir), generated, `${shown(dir)} holds other files than generated: ${HOW}`);
  for (const [file, content] of files) assertGolden(join(dir, file), content, options);
}
