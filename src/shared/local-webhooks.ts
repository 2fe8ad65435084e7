import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * What serving a project's webhooks from this machine takes, shared by op-gen/testing's
 * `installWebhooks` and `op-gen run`: a CA and a serving certificate it signed, and the project's
 * webhook configurations and CRD conversion rewritten from an in-cluster Service to
 * `https://<host>:<port>/<path>` with that CA (envtest's rewrite; kubebuilder issue #4477).
 */

export interface ClientConfig {
  url?: string;
  caBundle?: string;
  service?: { name?: string; namespace?: string; path?: string; port?: number };
}

export interface WebhookConfiguration {
  apiVersion: 'admissionregistration.k8s.io/v1';
  kind: 'MutatingWebhookConfiguration' | 'ValidatingWebhookConfiguration';
  metadata?: { name?: string; namespace?: string; resourceVersion?: string; uid?: string };
  webhooks?: { name: string; clientConfig?: ClientConfig; [key: string]: unknown }[];
}

export const WEBHOOK_CONFIGURATION_KINDS = [
  'MutatingWebhookConfiguration',
  'ValidatingWebhookConfiguration',
] as const;

export function isWebhookConfiguration(doc: unknown): doc is WebhookConfiguration {
  const d = doc as { apiVersion?: unknown; kind?: unknown } | null;
  return (
    d !== null &&
    typeof d === 'object' &&
    typeof d.apiVersion === 'string' &&
    d.apiVersion.startsWith('admissionregistration.k8s.io/') &&
    (WEBHOOK_CONFIGURATION_KINDS as readonly unknown[]).includes(d.kind)
  );
}

/** `https://host:port`, an IPv6 host in brackets. */
export function webhookBaseUrl(host: string, port: number): string {
  return `https://${host.includes(':') ? `[${host}]` : host}:${port}`;
}

/** Points a service client config at `<base><path>` with the CA bundle (envtest's rewrite). */
export function rewriteClientConfig(
  config: ClientConfig | undefined,
  base: string,
  caBundle: string,
): ClientConfig {
  const c = config ?? {};
  if (c.service) {
    const path = c.service.path ?? '/';
    return { url: `${base}${path.startsWith('/') ? path : `/${path}`}`, caBundle };
  }
  return { ...c, caBundle };
}

/** A copy of `config` with every webhook's client config pointed at `base`. */
export function rewriteWebhookConfiguration(
  config: WebhookConfiguration,
  base: string,
  caBundle: string,
): WebhookConfiguration {
  return {
    ...structuredClone(config),
    webhooks: (config.webhooks ?? []).map((w) => ({
      ...structuredClone(w),
      clientConfig: rewriteClientConfig(w.clientConfig, base, caBundle),
    })),
  };
}

export interface CrdConversion {
  strategy?: string;
  webhook?: { clientConfig?: ClientConfig; conversionReviewVersions?: string[] };
}

export interface CrdWithConversion {
  metadata?: { name?: string };
  spec?: { conversion?: CrdConversion };
}

/** A copy of `crd` whose Webhook conversion (if any) calls `base` with the CA bundle. */
export function rewriteCrdConversion<T>(crd: T, base: string, caBundle: string): T {
  const copy = structuredClone(crd) as CrdWithConversion;
  const conversion = copy.spec?.conversion;
  if (conversion?.strategy === 'Webhook') {
    conversion.webhook = {
      conversionReviewVersions: ['v1'],
      ...conversion.webhook,
      clientConfig: rewriteClientConfig(
        conversion.webhook?.clientConfig ?? { service: { path: '/convert' } },
        base,
        caBundle,
      ),
    };
  }
  return copy as T;
}

/** A CA and a serving certificate it signed. */
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
 * `localhost` and 127.0.0.1, valid one day, and writes them to `certDir` (tls.crt, tls.key, ca.crt;
 * mode 0600): what envtest's WebhookInstallOptions sets up.
 */
export async function writeWebhookCertificates(host: string, certDir: string): Promise<WebhookCertificates> {
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
  await mkdir(certDir, { recursive: true, mode: 0o700 });
  await writeFile(join(certDir, 'tls.crt'), serving.cert, { mode: 0o600 });
  await writeFile(join(certDir, 'tls.key'), serving.private, { mode: 0o600 });
  await writeFile(join(certDir, 'ca.crt'), ca.cert, { mode: 0o600 });
  return { caCert: ca.cert, certDir, cert: serving.cert, key: serving.private };
}
