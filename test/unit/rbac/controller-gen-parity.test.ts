import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { parseAllDocuments } from 'yaml';
import { rolesFromRules } from '../../../src/generate/rbac/merge-rules.ts';
import { parseRbacTag } from '../../../src/generate/rbac/rbac-markers.ts';

const markersGo = new URL('../../fixtures/rbac/controller-gen-parity/markers.go', import.meta.url);
const controllerGenRoles = new URL('../../golden/rbac/controller-gen/role.yaml', import.meta.url);

describe('merging matches controller-gen v0.23.0', () => {
  it('gives the roles controller-gen generated from 120 random markers', () => {
    const lines = readFileSync(markersGo, 'utf8').split('\n');
    const rules = lines.flatMap((line, i) => {
      const m = /^\/\/ \+kubebuilder:rbac:(.*)$/.exec(line);
      // controller-gen separates arguments with commas, @rbac with spaces
      return m
        ? [parseRbacTag({ name: 'rbac', line: i + 1, text: (m[1] ?? '').replaceAll(',', ' ') }, 'markers.go')]
        : [];
    });
    assert.equal(rules.length, 120);
    const expected = parseAllDocuments(readFileSync(controllerGenRoles, 'utf8')).map(
      (d) => d.toJS() as unknown,
    );
    const actual = rolesFromRules(rules, 'manager-role').map((role) => ({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: role.namespace ? 'Role' : 'ClusterRole',
      metadata: { name: role.name, ...(role.namespace ? { namespace: role.namespace } : {}) },
      rules: role.rules,
    }));
    assert.deepEqual(actual, expected);
  });
});
