// Part of `npm run build`: writes dist/vendor/yaml.cjs, the `yaml` package (about 70 CommonJS
// modules) as one minified file, which src/shared/yaml-package.ts loads: resolving and loading the
// modules one by one took ~45 ms of every command that reads YAML, the bundle ~5 ms. The package's
// ISC license goes first in the file, as its terms ask.
import { mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildSync } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(join(root, 'package.json'));
const entry = require.resolve('yaml');
const packageDir = dirname(require.resolve('yaml/package.json'));
const { version } = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8'));
const license = readFileSync(join(packageDir, 'LICENSE'), 'utf8').trim().replaceAll('*/', '* /');
const out = join(root, 'dist', 'vendor', 'yaml.cjs');
mkdirSync(dirname(out), { recursive: true });
buildSync({
  entryPoints: [entry],
  outfile: out,
  bundle: true,
  minify: true,
  format: 'cjs',
  platform: 'node',
  target: 'node22.19',
  banner: { js: `/*! yaml ${version}\n${license}\n*/` },
  legalComments: 'inline',
  logLevel: 'error',
});
