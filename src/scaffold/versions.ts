import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { opGenVersion } from '../version.ts';

/**
 * The versions a generated project depends on. They are op-gen's own (from its package.json), so a
 * scaffolded project installs from the same npm cache op-gen was installed from and compiles with
 * the TypeScript op-gen was tested with. TypeScript 7 (native) builds and typechecks; typescript-eslint
 * needs the TypeScript 6 API, so `typescript` is an alias of `@typescript/typescript6` and TypeScript 7
 * is installed as `typescript7` (its `tsc` is run by path: `@typescript/old`, which the TypeScript 6
 * wrapper depends on, also provides a `tsc` bin and may own node_modules/.bin/tsc).
 */
export interface DependencyVersions {
  readonly clientNode: string;
  /** The TypeScript 6 API for typescript-eslint: `npm:@typescript/typescript6@...`. */
  readonly typescript: string;
  /** TypeScript 7, the native compiler the project builds and typechecks with: `npm:typescript@7...`. */
  readonly typescript7: string;
  readonly typesNode: string;
  readonly eslint: string;
  readonly eslintJs: string;
  readonly typescriptEslint: string;
}

interface PackageJson {
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
}

let cached: DependencyVersions | undefined;

export function dependencyVersions(): DependencyVersions {
  if (cached) return cached;
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as PackageJson;
  const all = { ...pkg.devDependencies, ...pkg.dependencies };
  const pick = (name: string, fallback: string): string => all[name] ?? fallback;
  cached = {
    clientNode: pick('@kubernetes/client-node', '2.0.1'),
    typescript: pick('typescript', 'npm:@typescript/typescript6@6.0.2'),
    typescript7: pick('typescript7', 'npm:typescript@7.0.2'),
    typesNode: pick('@types/node', '^24.0.0'),
    eslint: pick('eslint', '^10.0.0'),
    eslintJs: pick('@eslint/js', '^10.0.0'),
    typescriptEslint: pick('typescript-eslint', '^8.0.0'),
  };
  return cached;
}

/** `^<version>` of the running op-gen, or `file:<abs path>` for a working tree or a tarball (`--op-gen-path`). */
export function opGenDependency(opGenPath: string | undefined, cwd: string): string {
  return opGenPath ? `file:${resolve(cwd, opGenPath)}` : `^${opGenVersion()}`;
}
