import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { Transport } from '../client/transport.ts';
import { OpGenError } from '../errors.ts';
import { createProgress, type ProgressStream } from '../shared/progress.ts';
import { runScript } from './build.ts';
import { CrdSync } from './crd-sync.ts';
import { DevLoop } from './dev-loop.ts';
import { projectGenerator } from './generate-all.ts';
import { kubeCrdApplier } from './kube-applier.ts';
import { loadKubeTarget, type KubeTarget } from './kube-target.ts';
import { LocalWebhooks, projectHasWebhooks } from './local-webhooks.ts';
import { cleanupPreviousRun } from './run-state.ts';
import { ManagerProcess, spawnScript } from './manager-process.ts';
import { SourceSnapshot } from './source-snapshot.ts';
import { watchDebounced } from './watcher.ts';

export interface RunOptions {
  readonly cwd: string;
  readonly stdout: ProgressStream;
  /** Arguments for the manager (after `--`), e.g. `--metrics-bind-address=0`. */
  readonly managerArgs: readonly string[];
  /** Quiet time after the last file event before a round starts (default 100 ms). */
  readonly debounceMs?: number;
  readonly env?: NodeJS.ProcessEnv;
  /** Resolves when the user asks to stop (Ctrl-C, SIGTERM), with why (printed). */
  readonly stopRequested: Promise<string>;
  /** Where the API server reaches this machine's webhook server (default 127.0.0.1). */
  readonly webhookHost?: string;
  /** The manager's webhook port (default 9443). */
  readonly webhookPort?: number;
  /** Only put back what a killed op-gen run changed in the cluster (its state file), then return. */
  readonly cleanupOnly?: boolean;
}

interface PackageScripts {
  scripts?: Record<string, string>;
}

function projectScripts(cwd: string): { build: string; start: string } {
  const file = join(cwd, 'package.json');
  if (!existsSync(file)) {
    throw new OpGenError(`no package.json in ${cwd}: run op-gen run in a project made by op-gen init`);
  }
  const scripts = (JSON.parse(readFileSync(file, 'utf8')) as PackageScripts).scripts ?? {};
  return {
    build: scripts.build ?? 'tsc -p tsconfig.build.json',
    // `exec node ...` (the scaffold's start script) is run as `node ...` in a process group of its own.
    start: (scripts.start ?? 'node dist/main.js').replace(/^\s*exec\s+/, ''),
  };
}

function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name));
}

/**
 * `op-gen run`: prints the cluster it works against, then generates, applies the CRDs, builds and
 * starts the manager, and does it again on every change under src/ until `stopRequested` resolves;
 * then stops the manager (and everything it started) and returns.
 */
export async function runDevLoop(options: RunOptions): Promise<void> {
  const { cwd } = options;
  const env = options.env ?? process.env;
  const log = (line: string): void => void options.stdout.write(`${line}\n`);
  const srcDir = join(cwd, 'src');
  if (!existsSync(srcDir))
    throw new OpGenError(`no src/ folder in ${cwd}: run op-gen run in a project made by op-gen init`);
  const scripts = projectScripts(cwd);
  const target = await loadKubeTarget(env);
  log(`op-gen run: kubeconfig context "${target.context}", server ${target.server}`);

  const transport = await Transport.fromKubeConfig(target.kubeConfig, { userAgent: 'op-gen-run' });
  try {
    await cleanupPreviousRun(cwd, transport, target, log);
    if (options.cleanupOnly) {
      log('op-gen run --cleanup: nothing op-gen run changed is left in the cluster');
      return;
    }
    let webhooks: LocalWebhooks | undefined;
    try {
      if (projectHasWebhooks(cwd)) {
        webhooks = await LocalWebhooks.start({
          cwd,
          host: options.webhookHost ?? '127.0.0.1',
          port: options.webhookPort ?? 9443,
          transport,
          target,
        });
        log(
          `op-gen run: webhooks served at ${webhooks.url} (certificates in ${relative(cwd, webhooks.certDir)})`,
        );
      }
      await runLoop(options, scripts, target, webhooks);
    } finally {
      if (webhooks) {
        for (const line of await webhooks.restore()) log(`op-gen run: ${line}`);
      }
    }
  } finally {
    transport.close();
  }
  log('op-gen run: stopped');
}

async function runLoop(
  options: RunOptions,
  scripts: { build: string; start: string },
  target: KubeTarget,
  webhooks: LocalWebhooks | undefined,
): Promise<void> {
  const { cwd } = options;
  const env = options.env ?? process.env;
  const log = (line: string): void => void options.stdout.write(`${line}\n`);
  const srcDir = join(cwd, 'src');
  const applier = await kubeCrdApplier(target.kubeConfig);
  const crdSync = new CrdSync(applier);
  const managerArgs = [...(webhooks?.managerArgs ?? []), ...options.managerArgs];
  const manager = new ManagerProcess({
    start: () => {
      const child = spawnScript({ script: scripts.start, args: managerArgs, cwd, env });
      webhooks?.managerStarted(child.pid);
      return child;
    },
    onExit: (status) =>
      log(
        `the manager exited (${status.signal ?? `code ${status.code}`}); waiting for the next change under src/`,
      ),
  });
  const snapshot = new SourceSnapshot();
  snapshot.refresh(filesUnder(srcDir));
  const loop: DevLoop = new DevLoop({
    cwd,
    generate: projectGenerator(cwd),
    syncCrds: async (crds) => crdSync.sync(webhooks ? await webhooks.crdsFor(crds) : crds),
    build: (signal) => runScript({ script: scripts.build, cwd, env, signal }),
    manager,
    changedPaths: (paths) => snapshot.changed(paths),
    generatorWrote: (paths) => snapshot.refresh(paths),
    log,
    progress: createProgress({ stream: options.stdout, env, prefix: 'op-gen run' }),
  });
  const watcher = watchDebounced({
    dir: srcDir,
    debounceMs: options.debounceMs ?? 100,
    onChange: (paths, firstEventAt) => void loop.changed(paths, firstEventAt),
    onError: (message) => log(`op-gen run: ${message}`),
  });
  try {
    void loop.start();
    const why = await options.stopRequested;
    log(`op-gen run: stopping (${why})`);
  } finally {
    watcher.close();
    await loop.stop();
    applier.close();
  }
}
