import { ACRONYMS, DICTIONARY, SUFFIX_RULES } from './flect-data.ts';

/**
 * The resource (plural) name of a kind as kubebuilder derives it: `flect.Pluralize` of the
 * lower-cased kind (kubebuilder's `RegularPlural`). Every op-gen command names resources with this
 * one function, so `create api`, `generate crd`, RBAC and the typed client always agree.
 *
 * controller-tools pluralizes the CamelCase kind and lower-cases afterwards; the two differ only for
 * compound kinds whose last word is an exact irregular or an acronym (`WildOx`: kubebuilder
 * `wildoxes`, controller-tools `wildoxen`). op-gen follows kubebuilder for both.
 */
export function pluralize(kind: string): string {
  return flectPluralize(kind.toLowerCase());
}

interface Rule {
  readonly suffix: string;
  /** undefined: the word already ends in a plural suffix and is left as is. */
  readonly replacement: string | undefined;
}

const singleToPlural = new Map<string, string>();
const pluralToSingle = new Set<string>();
for (const w of DICTIONARY) {
  const plural = w.plural ?? w.singular;
  singleToPlural.set(w.singular, plural);
  if (!w.unidirectional) {
    pluralToSingle.add(plural);
    if (w.alternative !== undefined) pluralToSingle.add(w.alternative);
  }
}

/**
 * flect inserts every rule at the front of its list, a plural-suffix no-op before each singular
 * rule: the dictionary's compound rules end up first, last word first, then the suffix rules in
 * their written order.
 */
const RULES: readonly Rule[] = [
  ...DICTIONARY.filter((w) => !w.exact)
    .reverse()
    .flatMap((w) => pair(w.singular, w.plural ?? w.singular)),
  ...SUFFIX_RULES.flatMap(([singular, plural]) => pair(singular, plural)),
];

function pair(singular: string, plural: string): Rule[] {
  return [
    { suffix: plural, replacement: undefined },
    { suffix: singular, replacement: plural },
  ];
}

/** flect's `Pluralize` for one word without spaces or case changes (a lower-cased kind). */
function flectPluralize(word: string): string {
  if (word === '') return '';
  const known = singleToPlural.get(word);
  if (known !== undefined) return known;
  if (pluralToSingle.has(word)) return word;
  // flect treats a word that is a known acronym as upper case when it matches suffixes.
  const upper = word.toUpperCase();
  const matched = ACRONYMS.has(upper) ? upper : word;
  // An indexed loop over the many rules: a one-shot run does not optimise this, where a `for...of`
  // step allocates.
  for (let i = 0; i < RULES.length; i++) {
    const rule = RULES[i]!;
    if (!matched.endsWith(rule.suffix)) continue;
    if (rule.replacement === undefined) return word;
    if (matched !== word) {
      // Only `S` → `Ses` matches an upper-case acronym (DNS); flect then appends `DNSes` to `dns`,
      // which is no valid resource name. op-gen lower-cases what flect means: `dnses`.
      return `${word.slice(0, -rule.suffix.length)}${rule.replacement}`.toLowerCase();
    }
    return word.slice(0, word.length - rule.suffix.length) + rule.replacement;
  }
  if (word.endsWith('s')) return word;
  return `${word}s`;
}
