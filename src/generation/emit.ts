import { existsSync, readdirSync, readFileSync, rmdirSync, rmSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, sep } from 'node:path';
import { changedFiles, writeFilesAtomically } from '../shared/atomic-write.ts';
import type { GenerateResult, GeneratorPlan } from './contract.ts';

export interface EmitOptions {
  readonly cwd: string;
  readonly check?: boolean;
}

/**
 * Writes a plan: every changed file atomically (all or none), then removes the stale files (owned
 * files the plan no longer has) and the folders that emptied. With `check`, touches nothing and
 * reports what would change. Paths in the result are relative to cwd (absolute when outside it).
 */
export function emit(generator: string, plan: GeneratorPlan, options: EmitOptions): GenerateResult {
  const check = options.check === true;
  const wanted = new Set(plan.files.map((f) => f.path));
  const stale = [...new Set(plan.owned)].filter((p) => !wanted.has(p)).sort();
  const written = check ? changedFiles(plan.files) : writeFilesAtomically(plan.files);
  if (!check) {
    for (const path of stale) rmSync(path, { force: true });
    if (plan.outDir !== undefined)
      for (const dir of new Set(stale.map((p) => dirname(p)))) removeEmptyDirs(dir, plan.outDir);
  }
  const changed = new Set(written);
  const shown = (p: string): string => displayPath(options.cwd, p);
  return {
    generator,
    check,
    files: plan.files.map((f) => shown(f.path)),
    written: written.map(shown),
    unchanged: plan.files.filter((f) => !changed.has(f.path)).map((f) => shown(f.path)),
    stale: stale.map(shown),
    removed: check ? [] : stale.map(shown),
  };
}

/** `path` relative to `cwd`, or absolute when it is outside cwd. */
export function displayPath(cwd: string, path: string): string {
  const rel = relative(cwd, path);
  return rel.startsWith('..') || isAbsolute(rel) ? path : rel;
}

/** Deletes `dir` and its parents up to (not including) `root` while they are empty. */
function removeEmptyDirs(dir: string, root: string): void {
  for (let d = dir; d.startsWith(root + sep) && existsSync(d) && readdirSync(d).length === 0; d = dirname(d))
    rmdirSync(d);
}

/**
 * Files under `dir` whose text starts with `header` (how generators recognise their own output):
 * `.ts`/`.yaml` files as `match` says, recursively with `recursive`. Sorted, absolute.
 */
export function filesWithHeader(
  dir: string,
  header: string,
  options: { readonly match: RegExp; readonly recursive?: boolean },
): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: options.recursive === true, encoding: 'utf8' })
    .filter((f) => options.match.test(f))
    .map((f) => join(dir, f))
    .filter((p) => readFileSync(p, 'utf8').startsWith(header))
    .sort();
}
