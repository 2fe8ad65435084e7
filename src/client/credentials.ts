import { execFile } from 'node:child_process';
import { extname } from 'node:path';
import type { OutgoingHttpHeaders } from 'node:http';
import type { RequestOptions } from 'node:https';
import type { KubeConfig } from '@kubernetes/client-node';
import { KubeConfigNotFoundError } from './kubeconfig-check.ts';

/** What a request to the API server needs: where, how to trust it, how to authenticate. */
export interface Credentials {
  readonly server: string;
  readonly tls: {
    readonly ca?: string | Buffer;
    readonly cert?: string | Buffer;
    readonly key?: string | Buffer;
    readonly rejectUnauthorized?: boolean;
    readonly servername?: string;
  };
  readonly headers: OutgoingHttpHeaders;
}

/** Resolves credentials now and whenever they may have rotated (tokens, exec plugins). */
export interface CredentialSource {
  resolve(): Promise<Credentials>;
  /** How long resolved headers stay valid. */
  readonly refreshMs: number;
}

function pemText(v: unknown): string | undefined {
  if (v === undefined || v === null) return undefined;
  if (Buffer.isBuffer(v)) return v.toString('utf8');
  if (Array.isArray(v)) return v.map((x) => pemText(x)).join('\n');
  return String(v);
}

/** Reads a client-node KubeConfig in this process (its server, TLS material and auth headers). */
export async function credentialsFromKubeConfig(kc: KubeConfig): Promise<Credentials> {
  const cluster = kc.getCurrentCluster();
  if (!cluster)
    throw new Error('the KubeConfig has no current cluster: set a current context or run in-cluster');
  const opts: RequestOptions = {};
  await kc.applyToHTTPSOptions(opts);
  const headers: OutgoingHttpHeaders = { ...(opts.headers as OutgoingHttpHeaders | undefined) };
  if (opts.auth) headers.authorization = `Basic ${Buffer.from(opts.auth).toString('base64')}`;
  const ca = pemText(opts.ca);
  const cert = pemText(opts.cert);
  const key = pemText(opts.key);
  return {
    server: cluster.server,
    tls: {
      ...(ca ? { ca } : {}),
      ...(cert ? { cert } : {}),
      ...(key ? { key } : {}),
      ...(opts.rejectUnauthorized !== undefined ? { rejectUnauthorized: opts.rejectUnauthorized } : {}),
      ...(cluster.tlsServerName ? { servername: cluster.tlsServerName } : {}),
    },
    headers,
  };
}

export function kubeConfigSource(kc: KubeConfig, refreshMs = 60_000): CredentialSource {
  return { resolve: () => credentialsFromKubeConfig(kc), refreshMs };
}

/**
 * Resolves the default kubeconfig (in-cluster, $KUBECONFIG or ~/.kube/config, with client-node's
 * full semantics: exec plugins, token files, OIDC) in a short-lived child process. A long-running
 * manager then never loads client-node's generated API (about 85 MB of resident memory); credentials
 * are re-resolved every `refreshMs` (default 5 min) so rotating tokens keep working.
 */
export function childProcessSource(options: { context?: string; refreshMs?: number } = {}): CredentialSource {
  // Next to this module, with its extension: .ts in src/, .js in dist/, .mjs in an `op-gen build` bundle.
  const ext = extname(new URL(import.meta.url).pathname);
  const script = new URL(`./resolve-credentials${ext}`, import.meta.url);
  return {
    refreshMs: options.refreshMs ?? 5 * 60_000,
    resolve: () =>
      new Promise((resolve, reject) => {
        execFile(
          process.execPath,
          [script.pathname, ...(options.context ? [options.context] : [])],
          { maxBuffer: 4 * 1024 * 1024, timeout: 60_000 },
          (err, stdout, stderr) => {
            if (err) {
              // Exit code 3: the child found no kubeconfig to load (its stderr is the one-line reason).
              if (err.code === 3) reject(new KubeConfigNotFoundError(stderr.trim()));
              else reject(new Error(`could not load the kubeconfig: ${stderr.trim() || err.message}`));
              return;
            }
            resolve(JSON.parse(stdout) as Credentials);
          },
        );
      }),
  };
}
