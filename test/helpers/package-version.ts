import { readFileSync } from 'node:fs';

/**
 * op-gen's version as its package.json says, read by the tests themselves: the CLI's own reader
 * (src/version.ts) is part of what they test.
 */
export const PACKAGE_VERSION = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }
).version;
