import { createRequire } from 'node:module';
import type * as Yaml from 'yaml';

type YamlPackage = typeof Yaml;
let loaded: YamlPackage | undefined;

/**
 * The `yaml` package, loaded on first use: it is about 70 modules, and most commands (`--help`,
 * `generate crd` on a project without stale files) never need it now that yaml-writer.ts writes
 * manifests. Its `node` export is CommonJS, so `require` gives the same instance an `import` would.
 */
export function yamlPackage(): YamlPackage {
  loaded ??= createRequire(import.meta.url)('yaml') as YamlPackage;
  return loaded;
}
