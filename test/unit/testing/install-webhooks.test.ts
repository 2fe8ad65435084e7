import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { rewriteClientConfig } from '../../../src/testing/install-webhooks.ts';
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
