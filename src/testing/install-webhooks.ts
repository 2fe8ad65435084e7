import { readdirSync, readFileSync, statSync } from 'node:fs';
import { extname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { KubeConfig } from '@kubernetes/client-node';
import { readYamlDocuments } from '../shared/yaml-documents.ts';
import { isNotFound } from '../client/api-error.ts';
import { defineKind } from '../client/kind.ts';
import { ResourceClient, type ObjectLike } from '../client/resource-client.ts';
import { isTransport, Transport } from '../client/transport.ts';
import { WEBHOOK_PROBE_MESSAGE, WEBHOOK_PROBE_PATH } from '../runtime/webhook/server.ts';
import { freePort } from './free-port.ts';
import { installCrd } from './install-crd.ts';
import { makeWebhookCertificates } from './webhook-certs.ts';
import {
  isWebhookConfiguration,
  rewriteCrdConversion,
  rewriteWebhookConfiguration,
  webhookBaseUrl,
  type CrdWithConversion,
  type WEBHOOK_CONFIGURATION_KINDS,
  type WebhookConfiguration,
} from '../shared/local-webhooks.ts';

export { rewriteClientConfig } from '../shared/local-webhooks.ts';

export interface WebhookInstallOptions {
  /**
   * Files or directories (their `.yaml`, `.yml` and `.json` files, not recursive) holding
   * Mutating/ValidatingWebhookConfigurations, e.g. `config/webhook/manifests.yaml`. Other objects in
   * them are ignored.
   */
  readonly paths?: readonly string[];
  /** More configurations, as YAML text (one or more documents) or objects. */
  readonly manifests?: readonly (string | object)[];
  /**
   * CRDs (YAML text or objects) to create with their conversion webhook pointed at the server; a CRD
   * whose `spec.conversion.strategy` is not `Webhook` is created unchanged, with a process warning
   * (code OP_GEN_CRD_WITHOUT_CONVERSION): pass the CRD with its conversion patch applied.
   */
  readonly crds?: readonly (string | object)[];
  /** Where the webhook server listens; the certificate is made for it. Default 127.0.0.1. */
  readonly host?: string;
  /** Default: a free port. */
  readonly port?: number;
}

/** What the webhook server of the test needs, and how to wait for and remove the configuration. */
export interface WebhookEnvironment {
  readonly host: string;
  readonly port: number;
  /** `tls.crt` and `tls.key` signed by `caCert`. */
  readonly certDir: string;
  /** The test CA (PEM), in every configuration's `caBundle`. */
  readonly caCert: string;
  /** `{ host, port, certDir }`: pass as `ManagerOptions.webhook` (or to a `WebhookServer`). */
  readonly serverOptions: { readonly host: string; readonly port: number; readonly certDir: string };
  /** The configurations installed, as rewritten (probes left out). */
  readonly configurations: readonly WebhookConfiguration[];
  /**
   * Resolves once the API server calls the webhook server for mutating and validating admission
   * (a probe configuration is answered by the server's probe path); rejects after `timeoutMs`
   * (default 30 s) with what the API server last said.
   */
  waitForWebhooks(options?: { readonly timeoutMs?: number }): Promise<void>;
  /** Deletes the configurations (and probes) installed. CRDs stay. */
  uninstall(): Promise<void>;
}

export type { WebhookConfiguration };

const kindFor = (kind: (typeof WEBHOOK_CONFIGURATION_KINDS)[number]) =>
  defineKind<WebhookConfiguration>({
    group: 'admissionregistration.k8s.io',
    version: 'v1',
    kind,
    plural: `${kind.toLowerCase()}s`,
    namespaced: false,
  });

const PROBE_LABEL = 'op-gen.io/webhook-probe';

function documentsOf(input: string | object, where: string): unknown[] {
  if (typeof input !== 'string') return [input];
  return readYamlDocuments(
    input,
    (p) => new Error(`${where}:${p.line}: not valid YAML (document ${p.index + 1}): ${p.message}`),
  ).map((d) => d.value);
}

function filesOf(path: string): string[] {
  if (!statSync(path).isDirectory()) return [path];
  return readdirSync(path)
    .filter((f) => ['.yaml', '.yml', '.json'].includes(extname(f)))
    .sort()
    .map((f) => join(path, f));
}

/** The configurations of `paths` and `manifests`, each webhook pointed at `base` with the test CA. */
function configurationsOf(
  options: WebhookInstallOptions,
  base: string,
  caBundle: string,
): WebhookConfiguration[] {
  const docs: unknown[] = [];
  for (const path of options.paths ?? [])
    for (const file of filesOf(path)) docs.push(...documentsOf(readFileSync(file, 'utf8'), file));
  for (const [i, m] of (options.manifests ?? []).entries()) docs.push(...documentsOf(m, `manifests[${i}]`));
  return docs.filter(isWebhookConfiguration).map((c) => rewriteWebhookConfiguration(c, base, caBundle));
}

/**
 * One mutating and one validating probe configuration, answered by the server's probe path for a
 * dry-run ConfigMap with the probe label: installed after the configurations under test, so once the
 * API server calls a probe, it calls those too.
 */
function probeConfigurations(base: string, caBundle: string): WebhookConfiguration[] {
  const suffix = Math.random().toString(36).slice(2, 8);
  const probe = (
    kind: (typeof WEBHOOK_CONFIGURATION_KINDS)[number],
    value: string,
  ): WebhookConfiguration => ({
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind,
    metadata: { name: `op-gen-webhook-probe-${value}-${suffix}` },
    webhooks: [
      {
        name: `${value}.probe.webhook.op-gen.io`,
        clientConfig: { url: `${base}${WEBHOOK_PROBE_PATH}`, caBundle },
        rules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['configmaps'] }],
        objectSelector: { matchLabels: { [PROBE_LABEL]: value } },
        failurePolicy: 'Fail',
        sideEffects: 'None',
        admissionReviewVersions: ['v1'],
        timeoutSeconds: 5,
      },
    ],
  });
  return [
    probe('MutatingWebhookConfiguration', 'mutating'),
    probe('ValidatingWebhookConfiguration', 'validating'),
  ];
}

type ConfigurationClients = Record<
  (typeof WEBHOOK_CONFIGURATION_KINDS)[number],
  ResourceClient<WebhookConfiguration>
>;

/**
 * Creates the CRDs (conversion pointed at `base`), then the configurations in order; returns those
 * created. A CRD without a conversion webhook gets a process warning.
 */
async function installAll(
  transport: Transport,
  clients: ConfigurationClients,
  crds: readonly (string | object)[],
  configurations: readonly WebhookConfiguration[],
  rewrite: { readonly base: string; readonly caBundle: string },
): Promise<WebhookConfiguration[]> {
  for (const crd of crds) {
    for (const doc of documentsOf(crd, 'crds')) {
      const warning = crdConversionWarning(doc);
      if (warning) process.emitWarning(warning, { code: 'OP_GEN_CRD_WITHOUT_CONVERSION' });
      await installCrd(transport, rewriteCrdConversion(doc as object, rewrite.base, rewrite.caBundle));
    }
  }
  const installed: WebhookConfiguration[] = [];
  for (const c of configurations) {
    await clients[c.kind].create(c);
    installed.push(c);
  }
  return installed;
}

/**
 * Creates a dry-run ConfigMap with each probe label until the API server's answer carries the probe
 * message (it called the webhook server); throws with the last answer after `timeoutMs`.
 */
async function waitForProbes(transport: Transport, base: string, timeoutMs: number): Promise<void> {
  const configMaps = new ResourceClient(
    transport,
    defineKind<ObjectLike>({
      group: '',
      version: 'v1',
      kind: 'ConfigMap',
      plural: 'configmaps',
      namespaced: true,
    }),
  );
  const deadline = Date.now() + timeoutMs;
  let last: string;
  for (const value of ['mutating', 'validating']) {
    for (;;) {
      try {
        await configMaps.create(
          {
            apiVersion: 'v1',
            kind: 'ConfigMap',
            metadata: {
              generateName: 'op-gen-webhook-probe-',
              namespace: 'default',
              labels: { [PROBE_LABEL]: value },
            },
          },
          { dryRun: 'All' },
        );
        last = `the ${value} probe was not called yet`;
      } catch (err) {
        last = (err as Error).message;
        if (last.includes(WEBHOOK_PROBE_MESSAGE)) break;
      }
      if (Date.now() > deadline)
        throw new Error(
          `waitForWebhooks: the API server did not call the webhook server at ${base}: ${last}`,
        );
      await sleep(100);
    }
  }
}

/** Deletes what was installed (gone already is fine). */
async function uninstallAll(
  clients: ConfigurationClients,
  installed: readonly WebhookConfiguration[],
): Promise<void> {
  for (const c of installed) {
    try {
      await clients[c.kind].delete({ name: c.metadata?.name ?? '' });
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
  }
}

/**
 * op-gen/testing's WebhookInstallOptions: makes a test CA and a serving certificate for
 * `host` (127.0.0.1), rewrites every webhook's `clientConfig.service` (configurations and CRD
 * conversion) to `url: https://<host>:<port><path>` with that CA, and installs them on the control
 * plane. Start the webhook server with `serverOptions`, then `await waitForWebhooks()`.
 */
export async function installWebhooks(
  target: Transport | KubeConfig,
  options: WebhookInstallOptions = {},
): Promise<WebhookEnvironment> {
  const host = options.host ?? '127.0.0.1';
  const port = options.port ?? (await freePort());
  const certs = await makeWebhookCertificates(host);
  const caBundle = Buffer.from(certs.caCert).toString('base64');
  const base = webhookBaseUrl(host, port);
  const configurations = configurationsOf(options, base, caBundle);
  const probes = probeConfigurations(base, caBundle);

  const transport = isTransport(target) ? target : await Transport.fromKubeConfig(target);
  const owned = transport !== target;
  const clients: ConfigurationClients = {
    MutatingWebhookConfiguration: new ResourceClient(transport, kindFor('MutatingWebhookConfiguration')),
    ValidatingWebhookConfiguration: new ResourceClient(transport, kindFor('ValidatingWebhookConfiguration')),
  };
  let installed: WebhookConfiguration[];
  try {
    installed = await installAll(transport, clients, options.crds ?? [], [...configurations, ...probes], {
      base,
      caBundle,
    });
  } catch (err) {
    if (owned) transport.close();
    throw err;
  }
  return {
    host,
    port,
    certDir: certs.certDir,
    caCert: certs.caCert,
    serverOptions: { host, port, certDir: certs.certDir },
    configurations,
    waitForWebhooks: ({ timeoutMs = 30_000 } = {}) => waitForProbes(transport, base, timeoutMs),
    async uninstall() {
      try {
        await uninstallAll(clients, installed);
      } finally {
        if (owned) transport.close();
      }
    },
  };
}

/**
 * The warning for a CRD passed to `installWebhooks` without a conversion webhook, or undefined.
 * `crds` is there for conversion; such a CRD (a `config/crd/bases` file: the conversion is a
 * kustomize patch in config/crd/patches) is created with strategy None, and the API server converts
 * only apiVersion, never calling the server: say so instead of passing silently.
 */
export function crdConversionWarning(doc: unknown): string | undefined {
  const crd = doc as CrdWithConversion;
  const strategy = crd.spec?.conversion?.strategy ?? 'None';
  if (strategy === 'Webhook') return undefined;
  return (
    `installWebhooks: CRD ${crd.metadata?.name ?? '(no name)'} has no conversion webhook (strategy ${strategy}): ` +
    'it is created as it is, and the API server will not call the webhook server to convert. Pass the CRD ' +
    'with its conversion patch applied (`kubectl kustomize config/crd`, or ' +
    'config/crd/patches/webhook_in_<plural>.yaml merged into the base), or leave it out of `crds`.'
  );
}
