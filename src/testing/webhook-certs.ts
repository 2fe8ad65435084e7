import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeWebhookCertificates, type WebhookCertificates } from '../shared/local-webhooks.ts';
import { trackDir } from './process-registry.ts';

export type { WebhookCertificates };

/**
 * Makes a throwaway CA (EC P-256) and a serving certificate for `host` (an IP or a DNS name), plus
 * `localhost` and 127.0.0.1, valid one day, in a temporary folder removed when the test process
 * ends: what envtest's WebhookInstallOptions sets up.
 */
export async function makeWebhookCertificates(host = '127.0.0.1'): Promise<WebhookCertificates> {
  const certDir = await mkdtemp(join(tmpdir(), 'op-gen-webhook-certs-'));
  trackDir(certDir);
  return writeWebhookCertificates(host, certDir);
}
