import {
  parseSelector,
  selectorFromSet,
  selectorMatches,
  selectorString,
  type Requirement,
} from '../client/label-selector.ts';

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
    matches:
      requirements.length === 0
        ? () => true
        : (equalityMatcher(requirements) ?? ((labels) => selectorMatches(requirements, labels))),
    query,
  };
}

/**
 * A matcher for a selector of `key=value` requirements only (the common case: matchLabels, and
 * every "my children" lookup), without the general matcher's per-requirement closure and switch:
 * selectorMatches' answer at a fraction of its cost, which counts in cache lookups run in every
 * reconcile and under `--no-opt`. undefined for any other selector.
 */
function equalityMatcher(requirements: readonly Requirement[]): CompiledSelector['matches'] | undefined {
  const keys: string[] = [];
  const values: string[] = [];
  for (const r of requirements) {
    if ((r.operator !== '=' && r.operator !== '==' && r.operator !== 'in') || r.values.length !== 1) {
      return undefined;
    }
    keys.push(r.key);
    values.push(r.values[0]!);
  }
  const n = keys.length;
  return (labels) => {
    if (labels === undefined) return false;
    for (let i = 0; i < n; i++) {
      // Equal to a string value, so never an inherited property such as `constructor`: hasOwn
      // only settles a label named like one whose value is that string.
      if (labels[keys[i]!] !== values[i] || !Object.hasOwn(labels, keys[i]!)) return false;
    }
    return true;
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

const compiledStrings = new Map<string, CompiledSelector>();
const COMPILED_STRINGS_MAX = 1024;
const EVERYTHING = compileSelector(undefined);

/**
 * compileSelector for lookups on a hot path (cache lists in every reconcile): the selector strings a
 * program uses are few, so their parses are kept (up to 1,024; then the memo starts over).
 */
export function compiledFor(selector: LabelSelector | undefined): CompiledSelector {
  if (selector === undefined || selector === '') return EVERYTHING;
  if (typeof selector !== 'string') return compileSelector(selector);
  let c = compiledStrings.get(selector);
  if (c === undefined) {
    c = compileSelector(selector);
    if (compiledStrings.size >= COMPILED_STRINGS_MAX) compiledStrings.clear();
    compiledStrings.set(selector, c);
  }
  return c;
}

/** The string form for the API server's `labelSelector` query parameter. */
export function labelSelectorString(selector: LabelSelector | undefined): string | undefined {
  return compileSelector(selector).query;
}
