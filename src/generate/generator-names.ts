/**
 * The generators' names and options, apart from the registry so the CLI can name them without
 * loading anything (`op-gen --help` stays fast).
 */
import type { GenerateClientOptions } from './client/index.ts';
import type { GenerateCrdsOptions } from './crd/generate.ts';
import type { GenerateDocsOptions } from './docs/index.ts';
import type { GenerateHelmOptions } from './helm/generate.ts';
import type { GenerateRbacOptions } from './rbac/generate-rbac.ts';
import type { GenerateTypesOptions } from './types/index.ts';
import type { GenerateWebhookOptions } from './webhook/generate.ts';

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

export type GeneratorName = keyof GeneratorOptionsByName;

/** Every generator, in the order `op-gen generate --help` lists them. */
export const GENERATOR_NAMES: readonly GeneratorName[] = [
  'crd',
  'rbac',
  'client',
  'types',
  'webhook',
  'docs',
  'helm',
];

/** The generators `create api` runs after writing a kind, in order. */
export const AFTER_CREATE_API: readonly GeneratorName[] = ['crd', 'rbac', 'client'];

/** The generators `create webhook` runs after writing the handlers. */
export const AFTER_CREATE_WEBHOOK: readonly GeneratorName[] = ['webhook'];

export function isGeneratorName(name: string): name is GeneratorName {
  return (GENERATOR_NAMES as readonly string[]).includes(name);
}
