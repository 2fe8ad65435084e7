// Part of `npm run build`: writes dist/vendor/typescript.cjs, the TypeScript compiler op-gen's
// generators use (the copy ts-morph bundles, @ts-morph/common/dist/typescript.js) minified by esbuild.
// V8 keeps each function's source until it is compiled, so 9.1 MB of source cost resident memory on
// every run; minified it is 3.6 MB (src/source/typescript.ts loads it; docs/performance.md has the
// figures). Properties and the exported API are untouched (esbuild renames only local names);
// Microsoft's license header is kept.
import { mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildSync } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(join(root, 'package.json'));
const source = createRequire(require.resolve('ts-morph')).resolve('@ts-morph/common/dist/typescript.js');
const out = join(root, 'dist', 'vendor', 'typescript.cjs');
mkdirSync(dirname(out), { recursive: true });
buildSync({
  entryPoints: [source],
  outfile: out,
  minify: true,
  format: 'cjs',
  platform: 'node',
  target: 'node22.19',
  legalComments: 'inline',
  logLevel: 'error',
});
