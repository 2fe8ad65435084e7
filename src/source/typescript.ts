import { createRequire } from 'node:module';
import type { ts as TS } from 'ts-morph';

let loaded: typeof TS | undefined;

/**
 * The TypeScript compiler API, loaded straight from the copy ts-morph bundles
 * (`@ts-morph/common/dist/typescript.js`), without ts-morph's wrappers: it loads faster and takes
 * ~30 MB less than `import { ts } from 'ts-morph'`. Resolved through ts-morph so it works whether
 * npm hoisted @ts-morph/common or nested it. The one way op-gen loads the compiler: modules use this,
 * or `ts` from ./ts.ts, and import only types from 'ts-morph'.
 */
export function loadTypeScript(): typeof TS {
  if (loaded) return loaded;
  const require = createRequire(import.meta.url);
  const fromTsMorph = createRequire(require.resolve('ts-morph'));
  loaded = fromTsMorph('@ts-morph/common/dist/typescript.js') as typeof TS;
  return loaded;
}
