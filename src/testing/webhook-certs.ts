import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { trackDir } from './process-registry.ts';

/** A test CA and a serving certificate it signed, written as `tls.crt`/`tls.key` in `certDir`. */
export interface WebhookCertificates {
  /** The CA certificate (PEM): what goes into `caBundle`, base64-encoded. */
  readonly caCert: string;
  /** Holds `tls.crt` and `tls.key` (and `ca.crt`), for the webhook server's `certDir`. */
  readonly certDir: string;
  readonly cert: string;
  readonly key: string;
}

const DAY_MS = 24 * 3600_000;

/**
 * Makes a throwaway CA (EC P-256) and a serving certificate for `host` (an IP or a DNS name), plus
 * `localhost` and 127.0.0.1, valid one day: what envtest's WebhookInstallOptions sets up.
 */
export async function makeWebhookCertificates(host = '127.0.0.1'): Promise<WebhookCertificates> {
  const { generate } = (await import('selfsigned')).default;
  const notBeforeDate = new Date(Date.now() - 60_000);
  const notAfterDate = new Date(notBeforeDate.getTime() + DAY_MS);
  const ca = await generate([{ name: 'commonName', value: 'op-gen webhook test CA' }], {
    keyType: 'ec',
    curve: 'P-256',
    algorithm: 'sha256',
    notBeforeDate,
    notAfterDate,
    extensions: [
      { name: 'basicConstraints', cA: true, critical: true },
      { name: 'keyUsage', keyCertSign: true, cRLSign: true, digitalSignature: true, critical: true },
    ],
  });
  const isIp = /^[\d.]+$/.test(host) || host.includes(':');
  const altNames = [
    { type: 2 as const, value: 'localhost' },
    { type: 7 as const, ip: '127.0.0.1' },
    ...(host === '127.0.0.1' || host === 'localhost'
      ? []
      : [isIp ? { type: 7 as const, ip: host } : { type: 2 as const, value: host }]),
  ];
  const serving = await generate([{ name: 'commonName', value: host }], {
    keyType: 'ec',
    curve: 'P-256',
    algorithm: 'sha256',
    notBeforeDate,
    notAfterDate,
    ca: { key: ca.private, cert: ca.cert },
    extensions: [
      { name: 'basicConstraints', cA: false },
      { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true },
      { name: 'extKeyUsage', serverAuth: true },
      { name: 'subjectAltName', altNames },
    ],
  });
  const certDir = await mkdtemp(join(tmpdir(), 'op-gen-webhook-certs-'));
  trackDir(certDir);
  await writeFile(join(certDir, 'tls.crt'), serving.cert, { mode: 0o600 });
  await writeFile(join(certDir, 'tls.key'), serving.private, { mode: 0o600 });
  await writeFile(join(certDir, 'ca.crt'), ca.cert, { mode: 0o600 });
  return { caCert: ca.cert, certDir, cert: serving.cert, key: serving.private };
}
