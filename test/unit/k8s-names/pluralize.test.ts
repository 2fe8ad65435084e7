import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { pluralize } from '../../../src/k8s-names/pluralize.ts';

/**
 * Expected values from github.com/gobuffalo/flect v1.0.3, the version kubebuilder and
 * controller-tools pin: `flect_test.go` (its `singlePluralAssertions` table, which flect's
 * `Test_Pluralize` checks), `plural_rules.go` (the `dictionary` words, which flect's tests also
 * assert, and the `singularToPluralSuffixList` rules), or flect's fallback (`+s`; a word ending in
 * `s` is left alone). kubebuilder pluralizes the lower-cased kind (`RegularPlural`), so the kinds
 * below are CamelCase as a user writes them.
 */
const TABLE: readonly (readonly [kind: string, plural: string, source: string])[] = [
  ['Person', 'people', 'dictionary {person, people}'],
  ['Child', 'children', 'flect_test {"Child", "Children"}'],
  ['Index', 'indices', 'flect_test {"index", "indices"}'],
  ['Leaf', 'leaves', 'flect_test {"leaf", "leaves"} (rule eaf→eaves)'],
  ['Quiz', 'quizzes', 'flect_test {"quiz", "quizzes"} (rule iz→izzes)'],
  ['Policy', 'policies', 'rule y→ies; flect_test {"agency", "agencies"}'],
  ['Status', 'statuses', 'flect_test {"status", "statuses"} (rule us→uses)'],
  ['Mouse', 'mice', 'flect_test {"mouse", "mice"}'],
  ['Bus', 'buses', 'flect_test {"bus", "buses"}'],
  ['Ox', 'oxen', 'dictionary {ox, oxen, exact}'],
  ['Box', 'boxes', 'flect_test {"box", "boxes"} (ox is exact: not a suffix rule)'],
  ['Proxy', 'proxies', 'flect_test {"proxy", "proxies"}'],
  ['Gateway', 'gateways', 'rule ay→ays; flect_test {"day", "days"}'],
  ['Key', 'keys', 'rule ey→eys; flect_test {"abbey", "abbeys"}'],
  ['Ingress', 'ingresses', 'rule ss→sses; flect_test {"access", "accesses"}'],
  ['Process', 'processes', 'flect_test {"process", "processes"}'],
  ['Match', 'matches', 'rule ch→ches; flect_test {"switch", "switches"}'],
  ['Mesh', 'meshes', 'rule sh→shes; flect_test {"wish", "wishes"}'],
  ['Matrix', 'matrices', 'flect_test {"matrix", "matrices"} (rule trix→trices)'],
  ['Vertex', 'vertices', 'dictionary {vertex, vertices}'],
  ['Datum', 'data', 'flect_test {"datum", "data"} (rule atum→ata)'],
  ['Analysis', 'analyses', 'flect_test {"analysis", "analyses"} (rule ysis→yses)'],
  ['Criterion', 'criteria', 'dictionary {criterion, criteria}'],
  ['Cactus', 'cacti', 'dictionary {cactus, cacti}'],
  ['Virus', 'viruses', 'flect_test {"virus", "viruses"}'],
  ['House', 'houses', 'flect_test {"house", "houses"}'],
  ['Database', 'databases', 'flect_test {"database", "databases"}'],
  ['Device', 'devices', 'flect_test {"device", "devices"}'],
  ['Service', 'services', 'flect_test {"service", "services"}'],
  ['Knife', 'knives', 'flect_test {"knife", "knives"} (rule fe→ves)'],
  ['Shelf', 'shelves', 'flect_test {"shelf", "shelves"} (rule lf→lves)'],
  ['Chief', 'chiefs', 'flect_test {"chief", "chiefs"}'],
  ['Photo', 'photos', 'flect_test {"photo", "photos"} (rule to→tos)'],
  ['Potato', 'potatoes', 'flect_test {"potato", "potatoes"}'],
  ['Hero', 'heroes', 'rule o→oes'],
  ['Portfolio', 'portfolios', 'flect_test {"portfolio", "portfolios"} (rule io→ios)'],
  ['Bureau', 'bureaus', 'flect_test {"bureau", "bureaus"}'],
  ['Chateau', 'chateaux', 'flect_test {"chateau", "chateaux"} (rule eau→eaux)'],
  ['Woman', 'women', 'flect_test {"woman", "women"}'],
  ['Human', 'humans', 'flect_test {"human", "humans"}'],
  ['Salesperson', 'salespeople', 'flect_test {"salesperson", "salespeople"}'],
  ['Spokesman', 'spokesmen', 'flect_test {"spokesman", "spokesmen"}'],
  ['Equipment', 'equipment', 'flect_test {"equipment", "equipment"} (uncountable)'],
  ['Sheep', 'sheep', 'dictionary {sheep, sheep}'],
  ['Species', 'species', 'dictionary {species, species}'],
  ['People', 'people', 'flect Test_Pluralize: Pluralize(plural) == plural'],
  ['Endpoints', 'endpoints', 'fallback: a word ending in s is left alone'],
  ['Memcached', 'memcacheds', 'fallback: +s (kubebuilder tutorial: memcacheds)'],
  ['MemcachedBackup', 'memcachedbackups', 'fallback: +s on the lower-cased kind'],
  ['CronJob', 'cronjobs', 'fallback: +s'],
  ['Api', 'apis', 'flect_test {"api", "apis"} (an acronym)'],
  ['Ssh', 'sshs', 'flect_test {"ssh", "sshs"} (an acronym: not the sh→shes rule)'],
];

describe('pluralize: flect as kubebuilder calls it', () => {
  for (const [kind, plural, source] of TABLE) {
    it(`${kind} → ${plural} (${source})`, () => assert.equal(pluralize(kind), plural));
  }

  it('compound kinds use the dictionary words as suffix rules unless flect marks them exact', () => {
    // flect: dictionary words that are not `exact` become suffix rules (flect_test "GoodChild").
    assert.equal(pluralize('GoodChild'), 'goodchildren');
    assert.equal(pluralize('SmartPerson'), 'smartpeople');
    // kubebuilder lower-cases first: `wildox` ends in x, not in the exact word ox.
    assert.equal(pluralize('WildOx'), 'wildoxes');
  });

  it('an acronym ending in S gets the lower-case of what flect means, a valid resource name', () => {
    // flect: Pluralize("dns") appends "DNSes" to "dns"; op-gen writes "dnses" (flect_test {"DNS", "DNSes"}).
    assert.equal(pluralize('Dns'), 'dnses');
    assert.equal(pluralize('Https'), 'httpses');
  });

  it('every plural is a lower-case DNS-1035 label for a CamelCase kind', () => {
    for (const [kind] of TABLE) assert.match(pluralize(kind), /^[a-z]([-a-z0-9]*[a-z0-9])?$/);
  });
});
