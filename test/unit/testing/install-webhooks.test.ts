import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { crdConversionWarning, rewriteClientConfig } from '../../../src/testing/install-webhooks.ts';
import { makeWebhookCertificates } from '../../../src/testing/webhook-certs.ts';

describe('rewriteClientConfig', () => {
  it('points a service at the local URL with the path, and sets the CA bundle', () => {
    assert.deepEqual(
      rewriteClientConfig(
        { service: { name: 'webhook-service', namespace: 'system', path: '/mutate-example-com-v1-widget' } },
        'https://127.0.0.1:9443',
        'Q0E=',
      ),
      { url: 'https://127.0.0.1:9443/mutate-example-com-v1-widget', caBundle: 'Q0E=' },
    );
    assert.deepEqual(rewriteClientConfig({ service: { name: 's' } }, 'https://127.0.0.1:1', 'x'), {
      url: 'https://127.0.0.1:1/',
      caBundle: 'x',
    });
    assert.deepEqual(rewriteClientConfig({ url: 'https://elsewhere/x' }, 'https://127.0.0.1:1', 'x'), {
      url: 'https://elsewhere/x',
      caBundle: 'x',
    });
  });
});

describe('crdConversionWarning', () => {
  const crd = (conversion?: object): object => ({
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'cronjobs.batch.example.com' },
    spec: { group: 'batch.example.com', ...(conversion ? { conversion } : {}) },
  });

  it('warns for a CRD without a conversion webhook (a config/crd/bases file), naming it and the fix', () => {
    for (const c of [crd(), crd({ strategy: 'None' })]) {
      const warning = crdConversionWarning(c);
      assert.match(
        warning ?? '',
        /CRD cronjobs\.batch\.example\.com has no conversion webhook \(strategy None\)/,
      );
      assert.match(warning ?? '', /kubectl kustomize config\/crd/);
    }
  });

  it('is quiet for a CRD with its conversion patch applied', () => {
    assert.equal(
      crdConversionWarning(crd({ strategy: 'Webhook', webhook: { clientConfig: {} } })),
      undefined,
    );
  });
});

describe('makeWebhookCertificates', () => {
  it('makes a serving certificate for 127.0.0.1 and localhost that the CA verifies', async () => {
    const certs = await makeWebhookCertificates();
    const ca = new X509Certificate(certs.caCert);
    const cert = new X509Certificate(readFileSync(join(certs.certDir, 'tls.crt'), 'utf8'));
    assert.equal(ca.ca, true);
    assert.equal(cert.ca, false);
    assert.ok(cert.verify(ca.publicKey), 'signed by the test CA');
    assert.ok(cert.checkIP('127.0.0.1'));
    assert.ok(cert.checkHost('localhost'));
    assert.equal(readFileSync(join(certs.certDir, 'tls.key'), 'utf8'), certs.key);
  });
});
