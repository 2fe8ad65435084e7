import { readFileSync } from 'node:fs';

let cached: string | undefined;

/** op-gen's own version, read from its package.json (two levels above src/ and dist/ files). */
export function opGenVersion(): string {
  if (cached === undefined) {
    const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
      version: string;
    };
    cached = pkg.version;
  }
  return cached;
}
