/**
 * The generators op-gen has, by name (controller-tools' genall registry): the CLI's `generate`
 * subcommands, `create api`/`create webhook` and the dev loop run them from here. Each loads only
 * when run, so `op-gen generate rbac` never loads the CRD generator's schema code. Generators run
 * together share one context, so the sources load once for all of them (generation/context.ts).
 */
import type { GenerateOptions, GenerateResult, Generator, GeneratorContext } from '../generation/contract.ts';
import { generatorContext } from '../generation/context.ts';
import { runGenerator, type ResultOf } from '../generation/run.ts';
export * from './generator-names.ts';
import type {
  DefaultsGeneratorName,
  GeneratorName,
  GeneratorOptionsByName,
  GeneratorPlanByName,
} from './generator-names.ts';

type Loaders = {
  readonly [N in GeneratorName]: () => Promise<Generator<GeneratorOptionsByName[N], GeneratorPlanByName[N]>>;
};

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
): Promise<Generator<GeneratorOptionsByName[N], GeneratorPlanByName[N]>> {
  return loaders[name]();
}

/**
 * Runs one generator by name with the project's defaults for every option not given. `ctx`: the
 * context of a run of several generators (`generateAll`), whose sources they share.
 */
export async function generate<N extends GeneratorName>(
  name: N,
  options: GeneratorOptionsByName[N],
  ctx?: GeneratorContext,
): Promise<ResultOf<GeneratorPlanByName[N]>> {
  return runGenerator(await loadGenerator(name), options, ctx ?? generatorContext(options));
}

/**
 * The context of a run of `names` with the project's defaults: the source folders they read besides
 * the API (`generate rbac`'s `src`) are loaded with the API sources, one program for the run.
 */
export async function runContext(
  names: readonly DefaultsGeneratorName[],
  options: GenerateOptions,
  ctx: GeneratorContext = generatorContext(options),
): Promise<GeneratorContext> {
  for (const name of names) {
    const generator = (await loadGenerator(name)) as Generator<GenerateOptions>;
    const paths = generator.sourcePaths?.(options);
    if (paths) ctx.sources.expect(paths);
  }
  return ctx;
}

/** Each generator's result, by name, for the generators a run had. */
export type ResultsByName = { readonly [N in GeneratorName]?: ResultOf<GeneratorPlanByName[N]> };

/**
 * Runs generators in order in one context (genall's runtime): the sources load on first use, once
 * for all of them (the source folders a generator declares are loaded with the API sources). Stops
 * at the first that fails (its error is thrown; what earlier ones wrote stays). `each` sees each
 * result as it comes.
 */
export async function generateAll(
  names: readonly DefaultsGeneratorName[],
  options: GenerateOptions,
  each: (result: GenerateResult) => void = () => undefined,
): Promise<ResultsByName> {
  const ctx = await runContext(names, options);
  const generators = await Promise.all(names.map((name) => loadGenerator(name)));
  const results: { [N in GeneratorName]?: GenerateResult } = {};
  for (const [i, name] of names.entries()) {
    const generator = generators[i] as Generator<GenerateOptions>;
    const result = await runGenerator(generator, options, ctx);
    each(result);
    results[name] = result;
  }
  return results as ResultsByName;
}
