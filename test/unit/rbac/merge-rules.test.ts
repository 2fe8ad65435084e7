import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { normalizeRules, rolesFromRules } from '../../../src/generate/rbac/merge-rules.ts';
import { parseRbacTag } from '../../../src/generate/rbac/rbac-markers.ts';
import type { RbacRule } from '../../../src/generate/rbac/rule.ts';

const rule = (text: string, line = 1): RbacRule =>
  parseRbacTag({ name: 'rbac', line, text: text.replaceAll(',', ' ') }, 'controller.ts');

/**
 * The markers of controller-tools' pkg/rbac/testdata/controller.go (those that its role.yaml golden
 * covers), as controller-gen writes them; `rule()` turns the commas into @rbac's spaces.
 */
const CONTROLLER_GEN_MARKERS = [
  'groups=batch.io,resources=cronjobs,verbs=get;watch;create',
  'groups=batch.io,resources=cronjobs/status,verbs=get;update;patch',
  'groups=art,resources=jobs,verbs=get',
  'groups=wave,resources=jobs,verbs=get,namespace=zoo',
  'groups=batch;batch;batch,resources=jobs/status,verbs=watch',
  'groups=batch;cron,resources=jobs/status,verbs=create;get',
  'groups=art,resources=jobs,verbs=get,namespace=zoo',
  'groups=cron;batch,resources=jobs/status,verbs=get;create',
  'groups=batch,resources=jobs/status,verbs=watch;watch',
  'groups=art,resources=jobs,verbs=get,namespace=park',
  'groups=batch.io,resources=cronjobs,resourceNames=foo;bar;baz,verbs=get;watch',
  'groups=deduplicate-verbs,resources=some,verbs=get;list',
  'groups=deduplicate-verbs,resources=some,verbs=get',
  'groups=deduplicate-verbs,resources=some,verbs=list',
  'groups=deduplicate-resources,resources=one,verbs=create',
  'groups=deduplicate-resources,resources=two,verbs=create',
  'groups=deduplicate-resources,resources=three,verbs=create',
  'groups=deduplicate-groups1,resources=foo,verbs=patch',
  'groups=deduplicate-groups2,resources=foo,verbs=patch',
  'groups=deduplicate-groups3,resources=foo,verbs=patch',
  'groups=deduplicate-all,resources=foo;bar,verbs=get;list',
  'groups=deduplicate-all,resources=foo,verbs=get',
  'groups=deduplicate-all,resources=bar,verbs=list',
  'groups=deduplicate-all-group,resources=foo;bar,verbs=get;list',
  'groups=not-deduplicate-resources,resources=some,verbs=get',
  'groups=not-deduplicate-resources,resources=another,verbs=list',
  'groups=not-deduplicate-groups1,resources=some,verbs=get',
  'groups=not-deduplicate-groups2,resources=some,verbs=list',
  'urls=/url-to-duplicate,verbs=get',
  'urls=/another/url-to-duplicate,verbs=get',
  'groups=core,resources=deduplicate,verbs=list',
  'groups="",resources=me,verbs=list',
  'groups=core;"";some-other-to-deduplicate-with-core,resources=me,verbs=list;get',
];

/** controller-tools' pkg/rbac/testdata/role.yaml, as data. */
const CONTROLLER_GEN_CLUSTER_RULES = [
  { nonResourceURLs: ['/another/url-to-duplicate', '/url-to-duplicate'], verbs: ['get'] },
  { apiGroups: [''], resources: ['deduplicate', 'me'], verbs: ['list'] },
  { apiGroups: ['', 'some-other-to-deduplicate-with-core'], resources: ['me'], verbs: ['get', 'list'] },
  { apiGroups: ['art'], resources: ['jobs'], verbs: ['get'] },
  { apiGroups: ['batch'], resources: ['jobs/status'], verbs: ['watch'] },
  { apiGroups: ['batch', 'cron'], resources: ['jobs/status'], verbs: ['create', 'get'] },
  { apiGroups: ['batch.io'], resources: ['cronjobs'], verbs: ['create', 'get', 'watch'] },
  {
    apiGroups: ['batch.io'],
    resourceNames: ['bar', 'baz', 'foo'],
    resources: ['cronjobs'],
    verbs: ['get', 'watch'],
  },
  { apiGroups: ['batch.io'], resources: ['cronjobs/status'], verbs: ['get', 'patch', 'update'] },
  {
    apiGroups: ['deduplicate-all', 'deduplicate-all-group'],
    resources: ['bar', 'foo'],
    verbs: ['get', 'list'],
  },
  {
    apiGroups: ['deduplicate-groups1', 'deduplicate-groups2', 'deduplicate-groups3'],
    resources: ['foo'],
    verbs: ['patch'],
  },
  { apiGroups: ['deduplicate-resources'], resources: ['one', 'three', 'two'], verbs: ['create'] },
  { apiGroups: ['deduplicate-verbs'], resources: ['some'], verbs: ['get', 'list'] },
  {
    apiGroups: ['not-deduplicate-groups1', 'not-deduplicate-resources'],
    resources: ['some'],
    verbs: ['get'],
  },
  { apiGroups: ['not-deduplicate-groups2'], resources: ['some'], verbs: ['list'] },
  { apiGroups: ['not-deduplicate-resources'], resources: ['another'], verbs: ['list'] },
];

describe('rule merging (controller-gen NormalizeRules parity)', () => {
  it("reproduces controller-tools' own golden for its test markers", () => {
    const roles = rolesFromRules(
      CONTROLLER_GEN_MARKERS.map((m, i) => rule(m, i + 1)),
      'manager-role',
    );
    assert.deepEqual(
      roles.map((r) => [r.namespace ?? '', r.name]),
      [
        ['', 'manager-role'],
        ['park', 'manager-role'],
        ['zoo', 'manager-role'],
      ],
    );
    assert.deepEqual(roles[0]?.rules, CONTROLLER_GEN_CLUSTER_RULES);
    assert.deepEqual(roles[1]?.rules, [{ apiGroups: ['art'], resources: ['jobs'], verbs: ['get'] }]);
    assert.deepEqual(roles[2]?.rules, [{ apiGroups: ['art', 'wave'], resources: ['jobs'], verbs: ['get'] }]);
  });

  it('gives the same output for any declaration order', () => {
    const rules = CONTROLLER_GEN_MARKERS.map((m) => rule(m));
    const expected = normalizeRules(rules);
    for (let seed = 1; seed <= 5; seed++) {
      // 7 and the marker count (33) are coprime: a permutation
      const permuted = rules.map((_, i) => rules[(i * 7 + seed) % rules.length] as RbacRule);
      assert.notDeepEqual(permuted, rules);
      assert.deepEqual(normalizeRules(permuted), expected);
    }
  });

  it('collapses verbs to `*` when a rule holds the wildcard', () => {
    const rules = [
      rule('groups=deduplicate-groups4,resources=xyz,verbs=get;update;patch'),
      rule('groups=deduplicate-groups4,resources=xyz,verbs=*'),
    ];
    assert.deepEqual(normalizeRules(rules), [
      { apiGroups: ['deduplicate-groups4'], resources: ['xyz'], verbs: ['*'] },
    ]);
  });

  it('keeps a role per roleName and always emits the default ClusterRole', () => {
    const roles = rolesFromRules(
      [rule('groups=apps resources=deployments verbs=get roleName=reader')],
      'manager-role',
    );
    assert.deepEqual(
      roles.map((r) => [r.name, r.rules.length]),
      [
        ['manager-role', 0],
        ['reader', 1],
      ],
    );
  });
});
