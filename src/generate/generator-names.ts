/**
 * The generators' names and options, apart from the registry so the CLI can name them without
 * loading anything (`op-gen --help` stays fast).
 */
import type { GenerateOptions, GeneratorPlan } from '../generation/contract.ts';
import type { GenerateClientOptions } from './client/index.ts';
import type { CrdPlan, GenerateCrdsOptions } from './crd/generate.ts';
import type { GenerateDocsOptions } from './docs/index.ts';
import type { GenerateHelmOptions } from './helm/generate.ts';
import type { GenerateRbacOptions, RbacPlan } from './rbac/generate-rbac.ts';
import type { GenerateTypesOptions } from './types/index.ts';
import type { GenerateWebhookOptions, WebhookPlan } from './webhook/generate.ts';
import type { ProjectFile } from '../project/project-file.ts';
import { GENERATOR_NAMES, type GeneratorName } from './generator-ids.ts';

/** Each generator's options, by name. */
export interface GeneratorOptionsByName {
  readonly crd: GenerateCrdsOptions;
  readonly rbac: GenerateRbacOptions;
  readonly client: GenerateClientOptions;
  readonly types: GenerateTypesOptions;
  readonly webhook: GenerateWebhookOptions;
  readonly docs: GenerateDocsOptions;
  readonly helm: GenerateHelmOptions;
}

export { GENERATOR_NAMES, type GeneratorName } from './generator-ids.ts';

/** Each generator's plan (what its result carries besides the files), by name. */
export interface GeneratorPlanByName {
  readonly crd: CrdPlan;
  readonly rbac: RbacPlan;
  readonly client: GeneratorPlan;
  readonly types: GeneratorPlan;
  readonly webhook: WebhookPlan;
  readonly docs: GeneratorPlan;
  readonly helm: GeneratorPlan;
}

/** The generators that run with the project's defaults alone (every option of their own is optional). */
export type DefaultsGeneratorName = {
  [N in GeneratorName]: GenerateOptions extends GeneratorOptionsByName[N] ? N : never;
}[GeneratorName];

/**
 * What every project generates from its sources, in order: what `create api` runs after writing a
 * kind, and the start of `op-gen generate` with no subcommand (the scaffold's `npm run generate`).
 */
export const PROJECT_GENERATORS: readonly DefaultsGeneratorName[] = ['crd', 'rbac', 'client'];

/** The generators `create api` runs after writing a kind, in order. */
export const AFTER_CREATE_API: readonly DefaultsGeneratorName[] = PROJECT_GENERATORS;

/** The generators `create webhook` runs after writing the handlers. */
export const AFTER_CREATE_WEBHOOK: readonly DefaultsGeneratorName[] = ['webhook'];

/**
 * What `op-gen generate` (no subcommand) runs in `project`: {@link PROJECT_GENERATORS}, then
 * `webhook` once op-gen.yaml records a kind with webhooks (`create webhook` records them), so one
 * process and one load of the sources write everything the project's sources generate.
 */
export function projectGenerators(project: ProjectFile | undefined): readonly DefaultsGeneratorName[] {
  const webhooks = project?.resources.some((r) => r.webhooks !== undefined) === true;
  return webhooks ? [...PROJECT_GENERATORS, ...AFTER_CREATE_WEBHOOK] : PROJECT_GENERATORS;
}

export function isGeneratorName(name: string): name is GeneratorName {
  return (GENERATOR_NAMES as readonly string[]).includes(name);
}
