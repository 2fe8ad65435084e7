/**
 * The generators' names, importing nothing (generator-names.ts adds each one's options and plan,
 * which import the generators' types; generator-markers.ts, which the generators import, needs only
 * the names).
 */

/** Every generator, in the order `op-gen generate --help` lists them. */
export const GENERATOR_NAMES = ['crd', 'rbac', 'client', 'types', 'webhook', 'docs', 'helm'] as const;

export type GeneratorName = (typeof GENERATOR_NAMES)[number];
