/**
 * op-gen's main entry: the helper types that API sources import.
 * The runtime is `op-gen/runtime`, the test harness `op-gen/testing`.
 */
export type * from './api-types/index.ts';
export { opGenVersion } from './version.ts';
