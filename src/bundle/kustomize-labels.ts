import type { Manifest } from './manifests.ts';

/** One entry of a kustomization's `labels` (or its older `commonLabels`, which reaches selectors and templates). */
export interface LabelRule {
  readonly pairs: Readonly<Record<string, string>>;
  readonly includeSelectors: boolean;
  readonly includeTemplates: boolean;
}

/** config/default's `labels` and `commonLabels`, as kustomize reads them. */
export function labelRules(
  kustomization: { labels?: unknown; commonLabels?: unknown } | undefined,
): LabelRule[] {
  const rules: LabelRule[] = [];
  const pairsOf = (v: unknown): Record<string, string> =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, String(x)]))
      : {};
  if (kustomization?.commonLabels) {
    rules.push({
      pairs: pairsOf(kustomization.commonLabels),
      includeSelectors: true,
      includeTemplates: true,
    });
  }
  if (Array.isArray(kustomization?.labels)) {
    for (const entry of kustomization.labels as {
      pairs?: unknown;
      includeSelectors?: unknown;
      includeTemplates?: unknown;
    }[]) {
      const includeSelectors = entry.includeSelectors === true;
      rules.push({
        pairs: pairsOf(entry.pairs),
        includeSelectors,
        // kustomize: includeSelectors implies the templates too.
        includeTemplates: includeSelectors || entry.includeTemplates === true,
      });
    }
  }
  return rules;
}

type Labels = Record<string, string>;
interface Labelled {
  metadata?: { labels?: Labels };
}

function add(target: Labelled | undefined, pairs: Readonly<Labels>): void {
  if (!target) return;
  target.metadata = { ...(target.metadata ?? {}), labels: { ...(target.metadata?.labels ?? {}), ...pairs } };
}

/**
 * Applies the rules to a copy of `object` as `kustomize build` would for the kinds a bundle holds:
 * metadata labels always; with selectors, a Service's `spec.selector` and a workload's
 * `spec.selector.matchLabels`; with templates, a workload's pod template labels.
 */
export function applyLabels<T extends Manifest>(object: T, rules: readonly LabelRule[]): T {
  if (rules.length === 0) return object;
  // A Service's selector is a label map; a workload's holds matchLabels.
  const copy = structuredClone(object) as T & {
    spec?: {
      selector?: Record<string, string | Labels>;
      template?: Labelled;
    };
  };
  for (const rule of rules) {
    add(copy as Labelled, rule.pairs);
    const spec = copy.spec;
    if (!spec) continue;
    const workload = spec.template !== undefined;
    if (rule.includeSelectors) {
      if (copy.kind === 'Service') spec.selector = { ...(spec.selector ?? {}), ...rule.pairs };
      else if (workload) {
        const matchLabels = spec.selector?.matchLabels;
        spec.selector = {
          ...(spec.selector ?? {}),
          matchLabels: { ...(typeof matchLabels === 'object' ? matchLabels : {}), ...rule.pairs },
        };
      }
    }
    if (rule.includeTemplates && workload) add(spec.template, rule.pairs);
  }
  return copy;
}
