/**
 * English plurals as Kubernetes resources use them (kubebuilder runs flect.Pluralize on the
 * lower-cased kind): a short list of irregular words, then the usual suffix rules.
 */
const IRREGULAR: Record<string, string> = {
  person: 'people',
  child: 'children',
  man: 'men',
  woman: 'women',
  mouse: 'mice',
  goose: 'geese',
  foot: 'feet',
  tooth: 'teeth',
  datum: 'data',
  index: 'indices',
  matrix: 'matrices',
  vertex: 'vertices',
  analysis: 'analyses',
  basis: 'bases',
  crisis: 'crises',
  thesis: 'theses',
  quiz: 'quizzes',
  ox: 'oxen',
  leaf: 'leaves',
  life: 'lives',
  knife: 'knives',
  wife: 'wives',
  half: 'halves',
  shelf: 'shelves',
  wolf: 'wolves',
  cactus: 'cacti',
  focus: 'foci',
  fungus: 'fungi',
  nucleus: 'nuclei',
  radius: 'radii',
  syllabus: 'syllabi',
  criterion: 'criteria',
  phenomenon: 'phenomena',
};
const UNCOUNTABLE = new Set([
  'equipment',
  'information',
  'rice',
  'money',
  'species',
  'series',
  'fish',
  'sheep',
  'deer',
  'news',
  'metadata',
  'data',
  'status',
  'endpoints',
]);

export function pluralize(singular: string): string {
  const word = singular.toLowerCase();
  if (UNCOUNTABLE.has(word)) return word === 'status' ? 'statuses' : word;
  const irregular = IRREGULAR[word];
  if (irregular) return irregular;
  if (/(s|x|z|ch|sh)$/.test(word)) return `${word}es`;
  if (/[^aeiou]y$/.test(word)) return `${word.slice(0, -1)}ies`;
  return `${word}s`;
}
