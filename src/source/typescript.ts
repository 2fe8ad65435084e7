import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import type { ts as TS } from 'ts-morph';

let loaded: typeof TS | undefined;

/**
 * The minified copy of the compiler `npm run build` writes (scripts/vendor.mjs), the same
 * for src/ and dist/ modules: <package>/dist/vendor/typescript.cjs.
 */
export const MINIFIED_TYPESCRIPT = fileURLToPath(
  new URL(
    import.meta.url.endsWith('.ts') ? '../../dist/vendor/typescript.cjs' : '../vendor/typescript.cjs',
    import.meta.url,
  ),
);

/**
 * The TypeScript compiler API, without ts-morph's wrappers: it loads faster and takes ~30 MB less
 * than `import { ts } from 'ts-morph'`. It is the copy ts-morph bundles
 * (`@ts-morph/common/dist/typescript.js`), minified at op-gen's build (dist/vendor/typescript.cjs,
 * 9.1 -> 3.6 MB: about 14 MB less resident memory, as V8 keeps a function's source text until it
 * is compiled, and a compile cache a third the size); when that file is missing (a checkout not yet
 * built) the original, resolved through ts-morph so it works whether npm hoisted @ts-morph/common or
 * nested it. The one way op-gen loads the compiler: modules use this, or `ts` from ./ts.ts, and
 * import only types from 'ts-morph'.
 */
export function loadTypeScript(): typeof TS {
  if (loaded) return loaded;
  const require = createRequire(import.meta.url);
  if (existsSync(MINIFIED_TYPESCRIPT)) {
    loaded = require(MINIFIED_TYPESCRIPT) as typeof TS;
    return loaded;
  }
  const fromTsMorph = createRequire(require.resolve('ts-morph'));
  loaded = fromTsMorph('@ts-morph/common/dist/typescript.js') as typeof TS;
  return loaded;
}
