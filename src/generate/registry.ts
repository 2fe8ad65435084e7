/**
 * The generators op-gen has, by name (controller-tools' genall registry): the CLI's `generate`
 * subcommands and `create api`/`create webhook` run them from here. Each loads only when run, so
 * `op-gen generate rbac` never loads the CRD generator's schema code.
 */
import type { GenerateResult, Generator } from '../generation/contract.ts';
export * from './generator-names.ts';
import type { GeneratorName, GeneratorOptionsByName } from './generator-names.ts';
import { runGenerator } from './run.ts';

type Loaders = { readonly [N in GeneratorName]: () => Promise<Generator<GeneratorOptionsByName[N]>> };

const loaders: Loaders = {
  crd: async () => (await import('./crd/generate.ts')).crdGenerator,
  rbac: async () => (await import('./rbac/generate-rbac.ts')).rbacGenerator,
  client: async () => (await import('./client/index.ts')).clientGenerator,
  types: async () => (await import('./types/index.ts')).typesGenerator,
  webhook: async () => (await import('./webhook/generate.ts')).webhookGenerator,
  docs: async () => (await import('./docs/index.ts')).docsGenerator,
  helm: async () => (await import('./helm/generate.ts')).helmGenerator,
};

/** Loads one generator. */
export function loadGenerator<N extends GeneratorName>(
  name: N,
): Promise<Generator<GeneratorOptionsByName[N]>> {
  return loaders[name]();
}

/** Runs one generator by name with the project's defaults for every option not given. */
export async function generate<N extends GeneratorName>(
  name: N,
  options: GeneratorOptionsByName[N],
): Promise<GenerateResult> {
  return runGenerator(await loadGenerator(name), options);
}
