import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { OpGenError } from '../errors.ts';
import { createProgress, type ProgressStream } from '../shared/progress.ts';
import { runScript } from './build.ts';
import { CrdSync } from './crd-sync.ts';
import { DevLoop } from './dev-loop.ts';
import { projectGenerator } from './generate-all.ts';
import { kubeCrdApplier } from './kube-applier.ts';
import { loadKubeTarget } from './kube-target.ts';
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

  const applier = await kubeCrdApplier(target.kubeConfig);
  const crdSync = new CrdSync(applier);
  const manager = new ManagerProcess({
    start: () => spawnScript({ script: scripts.start, args: options.managerArgs, cwd, env }),
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
    syncCrds: (crds) => crdSync.sync(crds),
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
  log('op-gen run: stopped');
}
