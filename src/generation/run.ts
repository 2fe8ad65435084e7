import type {
  GenerateOptions,
  GenerateResult,
  Generator,
  GeneratorContext,
  GeneratorPlan,
} from './contract.ts';
import { generatorContext } from './context.ts';
import { emit } from './emit.ts';

/** What a plan carries besides its files (the CRDs, the RBAC rules, ...), returned with the result. */
export type PlanExtras<P extends GeneratorPlan> = Omit<P, keyof GeneratorPlan>;

/** The result of a generator whose plan is `P`: the one result shape plus the plan's extras. */
export type ResultOf<P extends GeneratorPlan> = GenerateResult & PlanExtras<P>;

/**
 * Plans and emits one generator: the library form of `op-gen generate <name>`. `ctx`: a context
 * shared with other generators of the same run (its sources load once); default: one of its own.
 */
export async function runGenerator<O extends GenerateOptions, P extends GeneratorPlan>(
  generator: Generator<O, P>,
  options: O,
  ctx: GeneratorContext = generatorContext(options),
): Promise<ResultOf<P>> {
  const { files, owned, outDir, ...extras } = await generator.plan(ctx, options);
  return { ...emit(generator.name, { files, owned, ...(outDir ? { outDir } : {}) }, options), ...extras };
}
