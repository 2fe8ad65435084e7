import type { GenerateOptions, GenerateResult, Generator, GeneratorPlan } from '../generation/contract.ts';
import { generatorContext } from './context.ts';
import { emit } from '../generation/emit.ts';

/** What a plan carries besides its files (the CRDs, the RBAC rules, ...), returned with the result. */
export type PlanExtras<P extends GeneratorPlan> = Omit<P, keyof GeneratorPlan>;

/** The result of a generator whose plan is `P`: the one result shape plus the plan's extras. */
export type ResultOf<P extends GeneratorPlan> = GenerateResult & PlanExtras<P>;

/** Plans and emits one generator: the library form of `op-gen generate <name>`. */
export async function runGenerator<O extends GenerateOptions, P extends GeneratorPlan>(
  generator: Generator<O, P>,
  options: O,
): Promise<ResultOf<P>> {
  const ctx = generatorContext(options);
  const { files, owned, outDir, ...extras } = await generator.plan(ctx, options);
  return { ...emit(generator.name, { files, owned, ...(outDir ? { outDir } : {}) }, options), ...extras };
}
