// Part of `npm run build`: writes dist/vendor/, the third-party code op-gen's commands load as single
// files, each built by esbuild for Node 22.19:
// - typescript.cjs: the TypeScript compiler the generators use (the copy ts-morph bundles,
//   @ts-morph/common/dist/typescript.js), minified. V8 keeps each function's source until it is
//   compiled, so 9.1 MB of source cost resident memory on every run; minified it is 3.6 MB
//   (src/source/typescript.ts loads it; docs/performance.md has the figures). Properties and the
//   exported API are untouched (esbuild renames only local names); Microsoft's license header is kept.
// - yaml.cjs: the `yaml` package, about 70 CommonJS modules, bundled and minified
//   (src/shared/yaml-package.ts loads it): resolving and loading the modules one by one took ~45 ms
//   of every command that reads YAML, the bundle ~5 ms. Its ISC license goes first, as its terms ask.
import { mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildSync } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(join(root, 'package.json'));
const vendor = join(root, 'dist', 'vendor');
mkdirSync(vendor, { recursive: true });
const common = {
  minify: true,
  format: 'cjs',
  platform: 'node',
  target: 'node22.19',
  legalComments: 'inline',
  logLevel: 'error',
};

buildSync({
  ...common,
  entryPoints: [createRequire(require.resolve('ts-morph')).resolve('@ts-morph/common/dist/typescript.js')],
  outfile: join(vendor, 'typescript.cjs'),
});

const yamlDir = dirname(require.resolve('yaml/package.json'));
const { version } = JSON.parse(readFileSync(join(yamlDir, 'package.json'), 'utf8'));
const license = readFileSync(join(yamlDir, 'LICENSE'), 'utf8').trim().replaceAll('*/', '* /');
buildSync({
  ...common,
  entryPoints: [require.resolve('yaml')],
  bundle: true,
  banner: { js: `/*! yaml ${version}\n${license}\n*/` },
  outfile: join(vendor, 'yaml.cjs'),
});
