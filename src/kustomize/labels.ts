import type { LabelEntry } from './transformers.ts';

export type { LabelEntry } from './transformers.ts';

/**
 * A kustomization's `labels` and `commonLabels` as the entries of kustomize's label transformer, in
 * the order kustomize applies them (every `labels` entry, then `commonLabels`, which reaches
 * selectors and pod templates). Lenient: a value that is not a map of pairs adds nothing. `op-gen
 * bundle` reads config/default's labels with it and applies them to objects it did not render.
 */
export function labelEntries(
  kustomization: { labels?: unknown; commonLabels?: unknown } | undefined,
): LabelEntry[] {
  const entries: LabelEntry[] = [];
  const pairsOf = (v: unknown): Record<string, string> =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, String(x)]))
      : {};
  if (Array.isArray(kustomization?.labels)) {
    for (const entry of kustomization.labels as {
      pairs?: unknown;
      includeSelectors?: unknown;
      includeTemplates?: unknown;
    }[]) {
      entries.push({
        pairs: pairsOf(entry.pairs),
        includeSelectors: entry.includeSelectors === true,
        includeTemplates: entry.includeTemplates === true,
      });
    }
  }
  if (kustomization?.commonLabels) {
    entries.push({
      pairs: pairsOf(kustomization.commonLabels),
      includeSelectors: true,
      includeTemplates: true,
    });
  }
  return entries;
}
