import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { compareStrings, normalizeRules, rolesFromRules } from '../../../src/generate/rbac/merge-rules.ts';
import type { RbacRule } from '../../../src/generate/rbac/rule.ts';

/**
 * Cases that kill the mutants of RBAC inference and merging that the other rbac tests let survive
 * (`npm run test:mutation -- rbac`; reports/mutation/rbac.json).
 */
const origin = { file: 'controller.ts', line: 1, source: '@rbac' };
const rule = (fields: Partial<RbacRule>): RbacRule => ({
  groups: [],
  resources: [],
  resourceNames: [],
  urls: [],
  verbs: [],
  origin,
  ...fields,
});

describe('RBAC rule merging', () => {
  it('compares bytewise: -1, 1 or 0', () => {
    assert.equal(compareStrings('a', 'b'), -1);
    assert.equal(compareStrings('b', 'a'), 1);
    assert.equal(compareStrings('a', 'a'), 0);
    assert.equal(compareStrings('B', 'a'), -1);
  });

  it('keeps a URL rule without apiGroups, merges `core` with "" and keeps resourceNames', () => {
    assert.deepEqual(
      normalizeRules([
        rule({ urls: ['/metrics', '/healthz'], verbs: ['get'] }),
        rule({ groups: ['core'], resources: ['pods'], resourceNames: ['b', 'a'], verbs: ['get'] }),
        rule({ groups: [''], resources: ['pods'], resourceNames: ['a', 'b'], verbs: ['list'] }),
      ]),
      [
        { verbs: ['get'], nonResourceURLs: ['/healthz', '/metrics'] },
        { verbs: ['get', 'list'], apiGroups: [''], resourceNames: ['a', 'b'], resources: ['pods'] },
      ],
    );
  });

  it('orders roles by namespace, then name; the ClusterRoles (no namespace) first', () => {
    const deployments = { groups: ['apps'], resources: ['deployments'], verbs: ['get'] };
    const roles = rolesFromRules(
      [
        rule({ ...deployments, namespace: 'b', roleName: 'z' }),
        rule({ ...deployments, namespace: 'a', roleName: 'y' }),
        rule({ ...deployments, namespace: 'a', roleName: 'x' }),
        rule({ ...deployments, roleName: 'w' }),
      ],
      'manager-role',
    );
    assert.deepEqual(
      roles.map((r) => [r.namespace, r.name, r.rules.length]),
      [
        [undefined, 'manager-role', 0],
        [undefined, 'w', 1],
        ['a', 'x', 1],
        ['a', 'y', 1],
        ['b', 'z', 1],
      ],
    );
    assert.equal(Object.hasOwn(roles[0]!, 'namespace'), false);
  });
});
