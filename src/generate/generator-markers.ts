/**
 * The marker table each generator reads, by generator name (controller-tools' generators each
 * register their markers into the one registry genall parses with). Each generator's `markers` list
 * is read from here (`markerNames`), and so are the Go-form hints (go-forms.ts) and docs/markers.md
 * (marker-docs.ts): a new generator's table is added here once. Apart from the generators so that
 * reading the tables loads no generator (the registry loads those only when one runs).
 */
import type { MarkerRegistry } from '../markers/registry.ts';
import { crdMarkers } from './crd/markers.ts';
import { csvMarkers } from './csv-markers.ts';
import { GENERATOR_NAMES, type GeneratorName } from './generator-ids.ts';
import { rbacMarkers } from './rbac/markers.ts';
import { webhookMarkers } from './webhook/markers.ts';

/** Each generator's marker table; none for the generators that read YAML or the CRDs. */
export const GENERATOR_MARKERS = {
  crd: crdMarkers,
  rbac: rbacMarkers,
  client: undefined,
  types: undefined,
  webhook: webhookMarkers,
  docs: undefined,
  helm: undefined,
} as const satisfies { readonly [N in GeneratorName]: MarkerRegistry<unknown> | undefined };

/**
 * `op-gen bundle`'s `@csv:` markers: bundle writes through the generator contract but is its own
 * command, not a registry generator (its table lives in generate/ so nothing here imports bundle/).
 */
export const BUNDLE_MARKERS = csvMarkers;

/** Every marker table: the generators' in the registry's order, then bundle's. */
export const MARKER_TABLES: readonly MarkerRegistry<unknown>[] = [
  ...GENERATOR_NAMES.flatMap((name): MarkerRegistry<unknown>[] => {
    const table: MarkerRegistry<unknown> | undefined = GENERATOR_MARKERS[name];
    return table ? [table] : [];
  }),
  BUNDLE_MARKERS,
];

/** The markers a generator reads, by name (its `markers`). */
export function markerNames(generator: GeneratorName): string[] {
  const table: MarkerRegistry<unknown> | undefined = GENERATOR_MARKERS[generator];
  return [...new Set(table?.specs.map((s) => s.name) ?? [])];
}
