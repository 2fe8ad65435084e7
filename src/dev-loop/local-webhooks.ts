import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { isNotFound } from '../client/api-error.ts';
import type { Transport } from '../client/transport.ts';
import { OpGenError } from '../errors.ts';
import { renderKustomization } from '../kustomize/index.ts';
import {
  isWebhookConfiguration,
  rewriteCrdConversion,
  rewriteWebhookConfiguration,
  webhookBaseUrl,
  writeWebhookCertificates,
  type CrdWithConversion,
} from '../shared/local-webhooks.ts';
import type { CrdManifest } from './crd-sync.ts';
import {
  crdClient,
  removeRunState,
  restoreRunState,
  webhookConfigurationClient,
  writeRunState,
  type RunState,
} from './run-state.ts';

export interface LocalWebhookOptions {
  readonly cwd: string;
  /** The address the API server calls (default 127.0.0.1); the certificate is made for it. */
  readonly host: string;
  readonly port: number;
  readonly transport: Transport;
  readonly target: { readonly server: string; readonly context: string };
}

/** Whether the project has webhooks: config/webhook (from `op-gen generate webhook`) is there. */
export function projectHasWebhooks(cwd: string): boolean {
  return existsSync(join(cwd, 'config', 'webhook', 'kustomization.yaml'));
}

/**
 * The project's webhooks served by the manager `op-gen run` starts: a CA and serving certificate in
 * .op-gen/certs, the webhook configurations of config/webhook and the conversion of config/crd
 * (rendered as `kustomize build` renders them) pointed at `https://<host>:<port>` with that CA. Every
 * change is recorded in the state file before it is made; `restore()` puts all back.
 */
export class LocalWebhooks {
  private readonly options: LocalWebhookOptions;
  private readonly base: string;
  private readonly caBundle: string;
  readonly certDir: string;
  private state: RunState;

  private constructor(options: LocalWebhookOptions, caCert: string, certDir: string) {
    this.options = options;
    this.base = webhookBaseUrl(options.host, options.port);
    this.caBundle = Buffer.from(caCert).toString('base64');
    this.certDir = certDir;
    this.state = {
      version: 1,
      pid: process.pid,
      server: options.target.server,
      context: options.target.context,
      webhookConfigurations: [],
      crds: [],
    };
  }

  /** Makes the certificates and installs the webhook configurations. */
  static async start(options: LocalWebhookOptions): Promise<LocalWebhooks> {
    const certs = await writeWebhookCertificates(options.host, join(options.cwd, '.op-gen', 'certs'));
    const webhooks = new LocalWebhooks(options, certs.caCert, certs.certDir);
    try {
      await webhooks.installConfigurations();
    } catch (err) {
      await webhooks.restore().catch(() => undefined); // else the state file stays for the next run
      throw err;
    }
    return webhooks;
  }

  /** The manager's flags: the scaffold's `--webhook-cert-dir` and `--webhook-port`. */
  get managerArgs(): string[] {
    return [`--webhook-cert-dir=${this.certDir}`, `--webhook-port=${this.options.port}`];
  }

  get url(): string {
    return this.base;
  }

  private render(dir: string): unknown[] {
    const path = join(this.options.cwd, 'config', dir);
    if (!existsSync(join(path, 'kustomization.yaml'))) return [];
    try {
      return renderKustomization(path, { root: this.options.cwd }).map((r) => r.object);
    } catch (err) {
      throw new OpGenError(`rendering config/${dir}: ${(err as Error).message}`);
    }
  }

  private async installConfigurations(): Promise<void> {
    const { transport } = this.options;
    const configurations = this.render('webhook').filter(isWebhookConfiguration);
    for (const c of configurations) {
      const name = c.metadata?.name ?? '';
      const client = webhookConfigurationClient(transport, c.kind);
      let previous = null;
      try {
        previous = await client.get({ name });
      } catch (err) {
        if (!isNotFound(err)) throw err;
      }
      if (!this.state.webhookConfigurations.some((w) => w.kind === c.kind && w.name === name)) {
        this.state.webhookConfigurations.push({ kind: c.kind, name, previous });
        writeRunState(this.options.cwd, this.state);
      }
      const local = rewriteWebhookConfiguration(c, this.base, this.caBundle);
      if (previous)
        await client.replace({
          ...local,
          metadata: { ...local.metadata, resourceVersion: previous.metadata?.resourceVersion },
        });
      else await client.create(local);
    }
  }

  /**
   * The CRDs to apply: a generated CRD that config/crd renders with a Webhook conversion (its patch
   * from `create webhook --conversion`) goes as rendered, its conversion calling this machine; the
   * CRD's conversion before is recorded first.
   */
  async crdsFor(generated: readonly CrdManifest[]): Promise<readonly CrdManifest[]> {
    const rendered = new Map<string, CrdWithConversion>();
    for (const doc of this.render('crd')) {
      const crd = doc as CrdWithConversion & { kind?: string };
      if (crd.kind === 'CustomResourceDefinition' && crd.metadata?.name) rendered.set(crd.metadata.name, crd);
    }
    const out: CrdManifest[] = [];
    for (const crd of generated) {
      const withPatch = rendered.get(crd.metadata.name);
      if (withPatch?.spec?.conversion?.strategy !== 'Webhook') {
        out.push(crd);
        continue;
      }
      await this.recordCrd(crd.metadata.name);
      out.push(rewriteCrdConversion(withPatch, this.base, this.caBundle) as CrdManifest);
    }
    return out;
  }

  private async recordCrd(name: string): Promise<void> {
    if (this.state.crds.some((c) => c.name === name)) return;
    let previous = null;
    try {
      const crd = await crdClient(this.options.transport).get({ name });
      previous = crd.spec?.conversion ?? { strategy: 'None' };
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
    this.state.crds.push({ name, previous });
    writeRunState(this.options.cwd, this.state);
  }

  /** Records the manager's pid (its process group), so a cleanup after a kill -9 can stop it. */
  managerStarted(pid: number | undefined): void {
    this.state = { ...this.state, ...(pid === undefined ? {} : { managerPid: pid }) };
    writeRunState(this.options.cwd, this.state);
  }

  /** Puts back everything recorded; the state file is removed once all is back. */
  async restore(): Promise<string[]> {
    const done = await restoreRunState(this.options.transport, this.state);
    removeRunState(this.options.cwd);
    return done;
  }
}
