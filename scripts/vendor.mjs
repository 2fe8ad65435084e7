// Part of `npm run build`: writes dist/vendor/, the third-party code op-gen's commands load as single
// files, each built by esbuild for Node 22.19:
// - typescript.cjs: the TypeScript compiler the generators use (the copy ts-morph bundles,
//   @ts-morph/common/dist/typescript.js), minified. V8 keeps each function's source until it is
//   compiled, so 9.1 MB of source cost resident memory on every run; minified it is 3.6 MB
//   (src/source/typescript.ts loads it; docs/performance.md has the figures). Properties and the
//   exported API are untouched (esbuild renames only local names); Microsoft's license header is kept.
//   One line changes: node:crypto is taken when used (withLazyCrypto below).
// - yaml.cjs: the `yaml` package, about 70 CommonJS modules, bundled and minified
//   (src/shared/yaml-package.ts loads it): resolving and loading the modules one by one took ~45 ms
//   of every command that reads YAML, the bundle ~5 ms. Its ISC license goes first, as its terms ask.
// - commander.cjs: the `commander` package (src/cli/commander.ts loads it), bundled as one CommonJS
//   file so that it takes Node's own modules with `require`, which reads an export only where the
//   code uses it. As ES modules, its imports made Node build each built-in's ES facade, which reads
//   every export, lazy ones included: node:util's loaded worker_threads, parseArgs and the diff
//   module, node:fs's the promises API and readline; and node:child_process (with net, dgram and
//   the streams) was loaded for executable subcommands, which op-gen does not define: here it is
//   taken on first use. Every command paid ~7 MB of resident memory for them (docs/performance.md).
//   Its MIT license goes first.
import { mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, buildSync } from 'esbuild';

/**
 * The compiler's source with node:crypto taken when it is used, not when the compiler's `sys` is
 * made: only `sys.createHash` needs it (build and watch programs call it; op-gen's generators do
 * not). The replaced text must be found exactly once, so a compiler update that changes it fails
 * the build instead of shipping a copy that loads it again. Loading it cost every command that runs
 * the compiler (`op-gen generate`, for rbac) ~1.3 MB of resident memory.
 */
function withLazyCrypto(source) {
  const from = '_crypto = require("crypto");';
  const found = source.split(from).length - 1;
  if (found !== 1)
    throw new Error(
      `scripts/vendor.mjs: expected ${from} once in the TypeScript compiler, found it ${found} times`,
    );
  return source.replace(
    from,
    '_crypto = { createHash: (algorithm) => require("crypto").createHash(algorithm) };',
  );
}

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

const typescriptFile = createRequire(require.resolve('ts-morph')).resolve(
  '@ts-morph/common/dist/typescript.js',
);
buildSync({
  ...common,
  stdin: {
    contents: withLazyCrypto(readFileSync(typescriptFile, 'utf8')),
    sourcefile: typescriptFile,
    loader: 'js',
  },
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

/**
 * Node's child_process, taken when one of its exports is first read (commander spawns a process
 * only for an executable subcommand): an object with a getter for each export of the module.
 */
const lazyChildProcess = {
  name: 'op-gen-lazy-child-process',
  setup(b) {
    b.onResolve({ filter: /^node:child_process$/ }, (args) => ({ path: args.path, namespace: 'lazy' }));
    b.onLoad({ filter: /.*/, namespace: 'lazy' }, () => ({
      loader: 'js',
      contents:
        "const load = () => process.getBuiltinModule('node:child_process');\n" +
        'module.exports = Object.defineProperties({}, {\n' +
        Object.keys(require('node:child_process'))
          .map(
            (key) =>
              `  ${JSON.stringify(key)}: { enumerable: true, get: () => load()[${JSON.stringify(key)}] },\n`,
          )
          .join('') +
        '});\n',
    }));
  },
};
const commanderEntry = require.resolve('commander');
const commanderDir = dirname(commanderEntry);
const commanderVersion = JSON.parse(readFileSync(join(commanderDir, 'package.json'), 'utf8')).version;
const commanderLicense = readFileSync(join(commanderDir, 'LICENSE'), 'utf8').trim().replaceAll('*/', '* /');
await build({
  ...common,
  entryPoints: [commanderEntry],
  bundle: true,
  plugins: [lazyChildProcess],
  banner: { js: `/*! commander ${commanderVersion}\n${commanderLicense}\n*/` },
  outfile: join(vendor, 'commander.cjs'),
});
