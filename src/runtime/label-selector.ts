import {
  parseSelector,
  selectorFromSet,
  selectorMatches,
  selectorString,
  type Requirement,
} from '../k8s-names/label-selector.ts';

/** A label selector as a string (`app=web,tier!=db,env in (a,b),!legacy`) or matchLabels. */
export type LabelSelector = string | Readonly<Record<string, string>>;

/**
 * One parse of a selector for both paths: `matches` filters the informer cache, `query` is what the
 * API server is sent (apimachinery's canonical form of the same requirements). An invalid selector
 * throws a LabelSelectorError with the API server's reason, whichever path would have used it.
 */
export interface CompiledSelector {
  readonly requirements: readonly Requirement[];
  readonly matches: (labels: Readonly<Record<string, string>> | undefined) => boolean;
  /** undefined for the empty selector (everything). */
  readonly query: string | undefined;
}

export function compileSelector(selector: LabelSelector | undefined): CompiledSelector {
  const requirements =
    selector === undefined
      ? []
      : typeof selector === 'string'
        ? parseSelector(selector)
        : selectorFromSet(selector);
  const query = requirements.length === 0 ? undefined : selectorString(requirements);
  return {
    requirements,
    matches: requirements.length === 0 ? () => true : (labels) => selectorMatches(requirements, labels),
    query,
  };
}

/** Parses a selector string as labels.Parse does (sorted requirements). */
export function parseLabelSelector(selector: string): Requirement[] {
  return parseSelector(selector);
}

/** A predicate over an object's labels, compiled once. */
export function labelMatcher(
  selector: LabelSelector | undefined,
): (labels: Readonly<Record<string, string>> | undefined) => boolean {
  return compileSelector(selector).matches;
}

/** The string form for the API server's `labelSelector` query parameter. */
export function labelSelectorString(selector: LabelSelector | undefined): string | undefined {
  return compileSelector(selector).query;
}
