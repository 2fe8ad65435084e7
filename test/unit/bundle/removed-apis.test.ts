import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { atOrAfter, REMOVED_APIS, removedApi } from '../../../src/bundle/removed-apis.ts';

describe('removed Kubernetes APIs', () => {
  it('knows removals by group version, and by kind where only some kinds went', () => {
    assert.deepEqual(removedApi('rbac.authorization.k8s.io/v1beta1', 'ClusterRole'), {
      removedIn: '1.22',
      use: 'rbac.authorization.k8s.io/v1',
    });
    assert.equal(removedApi('batch/v1beta1', 'CronJob')?.removedIn, '1.25');
    assert.equal(removedApi('storage.k8s.io/v1beta1', 'CSIStorageCapacity')?.removedIn, '1.27');
    assert.equal(removedApi('storage.k8s.io/v1beta1', 'StorageClass')?.removedIn, '1.22');
    assert.equal(removedApi('policy/v1', 'PodDisruptionBudget'), undefined);
    assert.equal(removedApi('extensions/v1beta1', 'DaemonSet'), undefined, 'only the kinds listed');
  });

  it('compares Kubernetes versions by minor', () => {
    assert.equal(atOrAfter('1.25.0', '1.25'), true);
    assert.equal(atOrAfter('v1.30', '1.25'), true);
    assert.equal(atOrAfter('1.24.9', '1.25'), false);
    assert.equal(atOrAfter('2.0.0', '1.25'), true);
    assert.equal(atOrAfter(undefined, '1.25'), false);
    assert.equal(atOrAfter('latest', '1.25'), false);
  });

  it('has one entry per group version and kind', () => {
    const keys = REMOVED_APIS.flatMap((r) => (r.kinds ?? ['*']).map((k) => `${r.groupVersion}/${k}`));
    assert.equal(new Set(keys).size, keys.length);
  });
});
