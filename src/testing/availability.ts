import { findControlPlaneBinaries } from './binaries.ts';

/** The part of node:test's TestContext that controlPlaneOrSkip needs. */
export interface SkippableTest {
  skip(message?: string): void;
}

/**
 * For `describe(name, { skip: controlPlaneSkip() }, ...)`: `false` when the control plane binaries
 * are there; otherwise, on a developer machine, the reason to skip. With CI set it throws instead:
 * a CI run must never silently skip a test that needs the control plane.
 */
export function controlPlaneSkip(binDir?: string): string | false {
  const lookup = findControlPlaneBinaries(binDir);
  if (lookup.found) return false;
  if (process.env.CI) throw new Error(`CI is set and the control plane cannot start: ${lookup.reason}`);
  return `no control plane binaries: ${lookup.reason}`;
}

/** Same decision inside a test: skips `t` (or throws under CI); returns true when the test can run. */
export function controlPlaneOrSkip(t: SkippableTest, binDir?: string): boolean {
  const skip = controlPlaneSkip(binDir);
  if (skip === false) return true;
  t.skip(skip);
  return false;
}
