import { accessSync, readFileSync } from 'node:fs';
import { isIPv6 } from 'node:net';
import { delimiter, dirname, isAbsolute, join } from 'node:path';
import type { OutgoingHttpHeaders } from 'node:http';
import { childProcessSource, type Credentials, type CredentialSource } from './credentials.ts';

/**
 * The default kubeconfig's credentials read in this process when it states them outright: in-cluster
 * (the ServiceAccount's token and CA files) or one kubeconfig file whose current user has a token,
 * a token file, a client certificate or a user name and password. Starting the child process that
 * loads client-node (childProcessSource) costs a manager ~0.1 s of CPU and more of wall time on a
 * busy node, at every start; client-go reads these files in its own process too.
 *
 * What it returns is what client-node's loadFromDefault + applyToHTTPSOptions make of the same files
 * (credentialsFromKubeConfig; test/unit/client/static-credentials.test.ts compares the two). Anything
 * that needs client-node's code, or that it would report as an error, gives undefined, and the caller
 * uses the child process, which does it all and reports the errors: exec plugins, auth providers, a
 * proxy URL, several files in KUBECONFIG, Windows home folders, an entry client-node refuses, a file
 * that does not parse or cannot be read.
 */
export interface StaticCredentialsEnvironment {
  readonly env?: Readonly<Record<string, string | undefined>>;
  readonly platform?: NodeJS.Platform;
  /** Where the in-cluster ServiceAccount files are (client-go's /var/run/secrets/kubernetes.io/serviceaccount). */
  readonly serviceAccountDir?: string;
}

const SERVICE_ACCOUNT_DIR = '/var/run/secrets/kubernetes.io/serviceaccount';

/** How often a source of static credentials reads its files again (client-node's token file: 60 s). */
export const STATIC_REFRESH_MS = 60_000;

type Entry = Readonly<Record<string, unknown>>;

const isEntry = (v: unknown): v is Entry => typeof v === 'object' && v !== null && !Array.isArray(v);
const optionalString = (v: unknown): v is string | undefined | null =>
  v === undefined || v === null || typeof v === 'string';
const exists = (path: string): boolean => {
  try {
    accessSync(path);
    return true;
  } catch {
    return false;
  }
};

/** The one kubeconfig file loadFromDefault would read, 'in-cluster', or undefined (the child's case). */
function defaultFile(environment: StaticCredentialsEnvironment): string | 'in-cluster' | undefined {
  if ((environment.platform ?? process.platform) === 'win32') return undefined;
  const env = environment.env ?? process.env;
  if (env.KUBECONFIG) {
    const files = env.KUBECONFIG.split(delimiter).filter((f) => f !== '');
    return files.length === 1 ? files[0] : undefined;
  }
  // client-node's findHomeDir: $HOME if it exists, else no home.
  if (env.HOME && exists(env.HOME) && exists(join(env.HOME, '.kube', 'config')))
    return join(env.HOME, '.kube', 'config');
  return 'in-cluster';
}

function inCluster(environment: StaticCredentialsEnvironment): Credentials | undefined {
  const env = environment.env ?? process.env;
  const dir = environment.serviceAccountDir ?? SERVICE_ACCOUNT_DIR;
  const host = env.KUBERNETES_SERVICE_HOST;
  const port = env.KUBERNETES_SERVICE_PORT;
  // Without these client-node points at http://localhost:8080 (checkDefaultKubeConfig refuses that).
  if (!host || !port || !exists(join(dir, 'token'))) return undefined;
  // Plain http (ports 80, 8080, 8001): client-node refuses it without skipTLSVerify, never set here.
  if (port === '80' || port === '8080' || port === '8001') return undefined;
  const token = readFileSync(join(dir, 'token')).toString('utf-8');
  return {
    server: `https://${isIPv6(host) ? `[${host}]` : host}:${port}`,
    tls: { ca: readFileSync(join(dir, 'ca.crt')).toString('utf8') },
    headers: token ? { Authorization: `Bearer ${token}` } : {},
  };
}

/** Every entry of a list as client-node's newClusters/newUsers/newContexts accept it (else undefined). */
function entries(list: unknown, check: (e: Entry) => boolean): Entry[] | undefined {
  if (list === undefined || list === null) return [];
  if (!Array.isArray(list)) return [];
  const out: Entry[] = [];
  for (const e of list) {
    if (!isEntry(e) || !e.name || !check(e)) return undefined;
    out.push(e);
  }
  return out;
}

const fromFileOrData = (file: unknown, data: unknown): string | undefined =>
  file
    ? readFileSync(file as string).toString('utf8')
    : data
      ? Buffer.from(data as string, 'base64').toString('utf8')
      : undefined;

/** client-node's findToken: the token, else the token file's text (read now; the path as written). */
function tokenOf(user: unknown): unknown {
  if (!isEntry(user)) return undefined;
  if (user.token) return user.token;
  return user['token-file'] ? readFileSync(user['token-file'] as string).toString() : undefined;
}

async function fromFile(file: string, context: string | undefined): Promise<Credentials | undefined> {
  const { load } = await import('js-yaml');
  const doc: unknown = load(readFileSync(file).toString('utf-8'));
  if (!isEntry(doc)) return undefined;
  const clusters = entries(
    doc.clusters,
    (e) => isEntry(e.cluster) && typeof e.cluster.server === 'string' && e.cluster.server !== '',
  );
  // client-node reads every user's token file as it loads the file (an unreadable one fails the load).
  const tokens = new Map<unknown, unknown>();
  const users = entries(doc.users, (e) => {
    if (isEntry(e.user) && !optionalString(e.user['token-file'])) return false;
    tokens.set(e.user, tokenOf(e.user));
    return true;
  });
  const contexts = entries(doc.contexts, (e) => isEntry(e.context) && Boolean(e.context.cluster));
  if (!clusters || !users || !contexts) return undefined;
  const name = context ?? doc['current-context'];
  const ctx = contexts.find((c) => c.name === name)?.context as Entry | undefined;
  if (!ctx) return undefined;
  const cluster = clusters.find((c) => c.name === ctx.cluster)?.cluster as Entry | undefined;
  const user = users.find((u) => u.name === (ctx.user || undefined))?.user;
  // No cluster: client-node has no current cluster (an error); no user: it sends no TLS material at all.
  if (!cluster || !isEntry(user)) return undefined;
  if (
    typeof cluster.server !== 'string' ||
    cluster['proxy-url'] ||
    !optionalString(cluster['certificate-authority']) ||
    !optionalString(cluster['certificate-authority-data']) ||
    !optionalString(cluster['tls-server-name']) ||
    // client-node refuses plain http unless told to skip TLS verification.
    (cluster.server.startsWith('http:') && cluster['insecure-skip-tls-verify'] !== true) ||
    user.exec ||
    user['auth-provider'] ||
    [
      'token',
      'token-file',
      'client-certificate',
      'client-certificate-data',
      'client-key',
      'client-key-data',
      'username',
      'as',
    ].some((k) => !optionalString(user[k]))
  )
    return undefined;
  // Relative file names are relative to the kubeconfig's folder (client-node's makePathsAbsolute; not the token file).
  const path = (p: unknown): unknown =>
    typeof p === 'string' && p && !isAbsolute(p) ? join(dirname(file), p) : p;
  const ca = fromFileOrData(path(cluster['certificate-authority']), cluster['certificate-authority-data']);
  const cert = fromFileOrData(path(user['client-certificate']), user['client-certificate-data']);
  const key = fromFileOrData(path(user['client-key']), user['client-key-data']);
  const headers: OutgoingHttpHeaders = {};
  if (user.as !== undefined && user.as !== null) headers['Impersonate-User'] = user.as as string;
  const token = tokens.get(user);
  if (token) headers.Authorization = `Bearer ${token as string}`;
  if (user.username)
    headers.authorization = `Basic ${Buffer.from(`${user.username as string}:${String(user.password)}`).toString('base64')}`;
  return {
    server: cluster.server.replace(/\/$/, ''),
    tls: {
      ...(ca ? { ca } : {}),
      ...(cert ? { cert } : {}),
      ...(key ? { key } : {}),
      ...(cluster['insecure-skip-tls-verify'] === true ? { rejectUnauthorized: false } : {}),
      ...(cluster['tls-server-name'] ? { servername: cluster['tls-server-name'] } : {}),
    },
    headers,
  };
}

/**
 * The default kubeconfig's credentials (see StaticCredentialsEnvironment), or undefined when only
 * client-node can resolve them (or report what is wrong with them).
 */
export async function staticCredentials(
  options: { readonly context?: string | undefined } = {},
  environment: StaticCredentialsEnvironment = {},
): Promise<Credentials | undefined> {
  try {
    const file = defaultFile(environment);
    if (file === undefined) return undefined;
    if (file === 'in-cluster') return options.context === undefined ? inCluster(environment) : undefined;
    return await fromFile(file, options.context);
  } catch {
    // A file that cannot be read or parsed: the child process says what is wrong.
    return undefined;
  }
}

/**
 * The credential source a manager uses by default: the default kubeconfig read in this process when
 * it states its credentials outright (staticCredentials; read again every STATIC_REFRESH_MS), else
 * the child process that loads it with client-node (childProcessSource). A static source whose files
 * later need client-node (a kubeconfig rewritten with an exec plugin) asks the child from then on.
 */
export async function defaultCredentialSource(
  options: { readonly context?: string | undefined } = {},
  environment: StaticCredentialsEnvironment = {},
  child: CredentialSource = childProcessSource(options.context ? { context: options.context } : {}),
): Promise<CredentialSource> {
  const first = await staticCredentials(options, environment);
  if (!first) return child;
  let pending: Credentials | undefined = first;
  return {
    refreshMs: STATIC_REFRESH_MS,
    resolve: async () => {
      const now = pending ?? (await staticCredentials(options, environment));
      pending = undefined;
      return now ?? child.resolve();
    },
  };
}
