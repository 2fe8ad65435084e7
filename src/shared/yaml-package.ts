import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import type * as Yaml from 'yaml';

type YamlPackage = typeof Yaml;
let loaded: YamlPackage | undefined;

/**
 * The one-file copy of the `yaml` package `npm run build` writes (scripts/vendor.mjs), the same
 * for src/ and dist/ modules: <package>/dist/vendor/yaml.cjs.
 */
export const BUNDLED_YAML = fileURLToPath(
  new URL(
    import.meta.url.endsWith('.ts') ? '../../dist/vendor/yaml.cjs' : '../vendor/yaml.cjs',
    import.meta.url,
  ),
);

/**
 * The `yaml` package, loaded on first use: most commands (`--help`, `generate crd` on a project
 * without stale files) never need it now that yaml-writer.ts writes manifests. The package is about
 * 70 modules, whose resolution and loading took ~45 ms of every command that reads YAML (5 ms in
 * one file); so op-gen's build bundles it into dist/vendor/yaml.cjs, and this loads that when it
 * exists (the package itself in a checkout not yet built). Every module takes `yaml` from here (only
 * types are imported from 'yaml'), so there is one instance.
 */
export function yamlPackage(): YamlPackage {
  if (loaded) return loaded;
  const require = createRequire(import.meta.url);
  loaded = (existsSync(BUNDLED_YAML) ? require(BUNDLED_YAML) : require('yaml')) as YamlPackage;
  return loaded;
}
