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

  it('knows the beta APIs removed in 1.33 to 1.37 (never served by default)', () => {
    assert.equal(removedApi('authentication.k8s.io/v1beta1', 'SelfSubjectReview')?.removedIn, '1.33');
    assert.equal(
      removedApi('admissionregistration.k8s.io/v1beta1', 'ValidatingAdmissionPolicy')?.removedIn,
      '1.34',
    );
    assert.equal(removedApi('networking.k8s.io/v1beta1', 'ServiceCIDR')?.removedIn, '1.37');
    assert.equal(removedApi('networking.k8s.io/v1beta1', 'IPAddress')?.use, 'networking.k8s.io/v1');
    assert.equal(removedApi('storage.k8s.io/v1beta1', 'VolumeAttributesClass')?.removedIn, '1.37');
  });

  it('does not report kinds that came back in a group version removed before', () => {
    assert.equal(removedApi('admissionregistration.k8s.io/v1beta1', 'MutatingAdmissionPolicy'), undefined);
    assert.equal(
      removedApi('admissionregistration.k8s.io/v1beta1', 'ValidatingWebhookConfiguration')?.removedIn,
      '1.22',
    );
    assert.equal(removedApi('certificates.k8s.io/v1beta1', 'ClusterTrustBundle'), undefined);
    assert.equal(removedApi('certificates.k8s.io/v1beta1', 'CertificateSigningRequest')?.removedIn, '1.22');
    assert.equal(removedApi('coordination.k8s.io/v1beta1', 'LeaseCandidate'), undefined);
    assert.equal(removedApi('coordination.k8s.io/v1beta1', 'Lease')?.removedIn, '1.22');
    assert.equal(removedApi('authentication.k8s.io/v1beta1', 'TokenReview')?.removedIn, '1.22');
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
