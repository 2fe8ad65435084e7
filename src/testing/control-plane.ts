import { spawn, type ChildProcess } from 'node:child_process';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { KubeConfig } from '@kubernetes/client-node';
import { findControlPlaneBinaries, type ControlPlaneBinaries } from './binaries.ts';
import { freePort } from './free-port.ts';
import { trackDir, trackProcess, untrackDir } from './process-registry.ts';
import { serviceAccountKubeConfig, type ServiceAccountConfigOptions } from './service-account.ts';

export interface ControlPlaneOptions {
  /** Directory holding kube-apiserver and etcd; defaults to KUBEBUILDER_ASSETS or op-gen's build cache. */
  readonly binDir?: string;
  /** How long to wait for /readyz. Default 60 s. */
  readonly startTimeoutMs?: number;
  /** Extra kube-apiserver flags, e.g. `--feature-gates=...`. */
  readonly apiServerFlags?: readonly string[];
  /** kube-apiserver feature gates, e.g. `{ ShardedListAndWatch: true }` (becomes `--feature-gates=`). */
  readonly featureGates?: Readonly<Record<string, boolean>>;
}

export interface ControlPlane {
  /** A client-node KubeConfig holding the admin credential (group system:masters). */
  readonly kubeConfig: KubeConfig;
  /** The same config written to disk, for kubectl or a child process (KUBECONFIG=...). */
  readonly kubeconfigPath: string;
  /** https://127.0.0.1:<port> */
  readonly server: string;
  /**
   * A KubeConfig that authenticates as a ServiceAccount with a real token from the TokenRequest API,
   * so RBAC applies exactly as it would in a cluster. Creates the namespace and ServiceAccount if missing.
   */
  kubeConfigForServiceAccount(
    namespace: string,
    name: string,
    options?: ServiceAccountConfigOptions,
  ): Promise<KubeConfig>;
  /** http://127.0.0.1:<port> of etcd (e.g. to compact it in a test of a watch gap). */
  readonly etcdUrl: string;
  /** The PID of the running kube-apiserver (e.g. to SIGSTOP it in a test of a hung server). */
  readonly apiServerPid: number | undefined;
  /**
   * Stops kube-apiserver (etcd keeps its data) and starts it again on the same port with the same
   * flags and certificates; watches break. `signal: 'SIGKILL'` kills it hard (no graceful
   * shutdown: connections are reset), as a crash would; `downtimeMs` waits before the restart.
   * Resolves once the new server answers /readyz.
   */
  restartApiServer(options?: {
    readonly downtimeMs?: number;
    readonly signal?: 'SIGTERM' | 'SIGKILL';
  }): Promise<void>;
  /** Stops both processes (by PID) and removes the temp data. Safe to call twice. */
  stop(): Promise<void>;
}

interface Layout {
  readonly dir: string;
  readonly etcdData: string;
  readonly certDir: string;
  readonly tokenFile: string;
  readonly saKey: string;
  readonly saPub: string;
  readonly kubeconfigPath: string;
}

const ADMIN_USER = 'op-gen-admin';

export async function startControlPlane(options: ControlPlaneOptions = {}): Promise<ControlPlane> {
  const lookup = findControlPlaneBinaries(options.binDir);
  if (!lookup.found) throw new Error(`startControlPlane: ${lookup.reason}`);
  const bins = lookup.binaries;
  const timeoutMs = options.startTimeoutMs ?? 60_000;

  const dir = await mkdtemp(join(tmpdir(), 'op-gen-cp-'));
  trackDir(dir);
  const layout = writeLayout(dir);
  const adminToken = randomBytes(24).toString('hex');
  writeFileSync(layout.tokenFile, `${adminToken},${ADMIN_USER},${ADMIN_USER},"system:masters"\n`, {
    mode: 0o600,
  });

  const [etcdPort, etcdPeerPort, apiPort] = await Promise.all([freePort(), freePort(), freePort()]);
  const etcdUrl = `http://127.0.0.1:${etcdPort}`;
  const server = `https://127.0.0.1:${apiPort}`;

  let etcd: ChildProcess | undefined;
  let apiServer: ChildProcess | undefined;
  let stopped = false;

  const startApiServer = async (): Promise<string> => {
    apiServer = launch(
      bins.kubeApiServer,
      apiServerArgs(layout, etcdUrl, apiPort, [
        ...(options.featureGates && Object.keys(options.featureGates).length
          ? [
              `--feature-gates=${Object.entries(options.featureGates)
                .map(([k, v]) => `${k}=${v}`)
                .join(',')}`,
            ]
          : []),
        ...(options.apiServerFlags ?? []),
      ]),
      join(dir, 'kube-apiserver.log'),
    );
    return waitForReady(
      server,
      adminToken,
      layout.certDir,
      apiServer,
      join(dir, 'kube-apiserver.log'),
      timeoutMs,
    );
  };

  const stop = async (): Promise<void> => {
    if (stopped) return;
    stopped = true;
    await terminate(apiServer);
    await terminate(etcd);
    await rm(dir, { recursive: true, force: true });
    untrackDir(dir);
  };

  try {
    etcd = launch(
      bins.etcd,
      [
        '--data-dir',
        layout.etcdData,
        '--listen-client-urls',
        etcdUrl,
        '--advertise-client-urls',
        etcdUrl,
        '--listen-peer-urls',
        `http://127.0.0.1:${etcdPeerPort}`,
        '--initial-advertise-peer-urls',
        `http://127.0.0.1:${etcdPeerPort}`,
        '--initial-cluster',
        `default=http://127.0.0.1:${etcdPeerPort}`,
        '--unsafe-no-fsync',
        '--log-level',
        'warn',
      ],
      join(dir, 'etcd.log'),
    );
    const caData = await startApiServer();
    const kubeConfig = adminKubeConfig(server, caData, adminToken);
    writeFileSync(layout.kubeconfigPath, kubeConfig.exportConfig(), { mode: 0o600 });
    return {
      kubeConfig,
      kubeconfigPath: layout.kubeconfigPath,
      server,
      etcdUrl,
      get apiServerPid() {
        return apiServer?.exitCode === null && apiServer.signalCode === null ? apiServer.pid : undefined;
      },
      kubeConfigForServiceAccount: (namespace, name, saOptions) =>
        serviceAccountKubeConfig(kubeConfig, namespace, name, saOptions),
      restartApiServer: async (restart = {}) => {
        await terminate(apiServer, restart.signal === 'SIGKILL' ? 0 : 5_000);
        if (restart.downtimeMs) await sleep(restart.downtimeMs);
        await startApiServer();
      },
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}

function writeLayout(dir: string): Layout {
  const layout: Layout = {
    dir,
    etcdData: join(dir, 'etcd'),
    certDir: join(dir, 'certs'),
    tokenFile: join(dir, 'tokens.csv'),
    saKey: join(dir, 'sa.key'),
    saPub: join(dir, 'sa.pub'),
    kubeconfigPath: join(dir, 'kubeconfig'),
  };
  mkdirSync(layout.etcdData, { mode: 0o700 });
  mkdirSync(layout.certDir);
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  writeFileSync(layout.saKey, privateKey.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o600 });
  writeFileSync(layout.saPub, publicKey.export({ type: 'spki', format: 'pem' }));
  return layout;
}

function apiServerArgs(layout: Layout, etcdUrl: string, port: number, extra: readonly string[]): string[] {
  return [
    `--etcd-servers=${etcdUrl}`,
    `--secure-port=${port}`,
    '--bind-address=127.0.0.1',
    '--advertise-address=127.0.0.1',
    `--cert-dir=${layout.certDir}`,
    `--token-auth-file=${layout.tokenFile}`,
    '--authorization-mode=RBAC',
    `--service-account-key-file=${layout.saPub}`,
    `--service-account-signing-key-file=${layout.saKey}`,
    '--service-account-issuer=https://kubernetes.default.svc',
    '--service-cluster-ip-range=10.0.0.0/24',
    '--allow-privileged=true',
    '--endpoint-reconciler-type=none',
    ...extra,
  ];
}

function launch(binary: string, args: string[], logFile: string): ChildProcess {
  const fd = openSync(logFile, 'a');
  const child = spawn(binary, args, { stdio: ['ignore', fd, fd] });
  closeSync(fd);
  trackProcess(child);
  // A control plane never keeps the test process alive: when a test's teardown fails before stop()
  // (an after hook that threw), the process still ends and the registry's exit hook kills etcd and
  // kube-apiserver, instead of the process and them waiting on each other forever. terminate() holds
  // a reference while it waits for an exit.
  child.unref();
  child.on('error', () => {
    // reported by waitForReady through the exit/log checks
  });
  return child;
}

/** SIGTERM, then SIGKILL after `graceMs`; `graceMs` 0 kills at once. A stopped process is continued. */
async function terminate(child: ChildProcess | undefined, graceMs = 5_000): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  child.ref();
  const exited = new Promise<void>((resolveExit) => child.once('exit', () => resolveExit()));
  if (graceMs === 0) {
    child.kill('SIGKILL');
    await exited;
    return;
  }
  child.kill('SIGTERM');
  child.kill('SIGCONT');
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
  await exited;
  clearTimeout(timer);
}

function tail(file: string, lines = 30): string {
  if (!existsSync(file)) return '(no log)';
  return readFileSync(file, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
}

/** Polls /readyz until it answers 200; returns the serving CA (base64 PEM) for the kubeconfig. */
async function waitForReady(
  server: string,
  token: string,
  certDir: string,
  child: ChildProcess,
  logFile: string,
  timeoutMs: number,
): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  const certFile = join(certDir, 'apiserver.crt');
  let lastError = 'not started';
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(
        `kube-apiserver exited (${child.exitCode ?? child.signalCode}) before it was ready. Last log lines:\n${tail(logFile)}`,
      );
    }
    if (existsSync(certFile)) {
      const ca = readFileSync(certFile);
      try {
        const status = await getStatus(`${server}/readyz`, token, ca);
        if (status === 200) return ca.toString('base64');
        lastError = `/readyz answered ${status}`;
      } catch (err) {
        lastError = (err as Error).message;
      }
    }
    await sleep(100);
  }
  throw new Error(
    `kube-apiserver was not ready within ${timeoutMs} ms (${lastError}). Last log lines:\n${tail(logFile)}`,
  );
}

function getStatus(url: string, token: string, ca: Buffer): Promise<number> {
  return new Promise((resolveStatus, reject) => {
    const req = request(url, { headers: { Authorization: `Bearer ${token}` }, ca, timeout: 2_000 }, (res) => {
      res.resume();
      res.on('end', () => resolveStatus(res.statusCode ?? 0));
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', reject);
    req.end();
  });
}

function adminKubeConfig(server: string, caData: string, token: string): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: 'op-gen-test', server, caData }],
    users: [{ name: ADMIN_USER, token }],
    contexts: [{ name: 'op-gen-test', cluster: 'op-gen-test', user: ADMIN_USER }],
    currentContext: 'op-gen-test',
  });
  return kc;
}

export type { ControlPlaneBinaries };
