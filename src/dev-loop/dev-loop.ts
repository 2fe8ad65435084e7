import { relative } from 'node:path';
import type { Progress } from '../shared/progress.ts';
import type { BuildOutcome } from './build.ts';
import { systemClock, type Clock } from './clock.ts';
import type { CrdManifest, CrdSyncResult } from './crd-sync.ts';
import type { GenerateOutcome } from './generate-all.ts';

/** The steps of one round, behind interfaces so tests run the loop with fakes. */
export interface DevLoopDeps {
  readonly cwd: string;
  /** Runs the generators; `changed` (absolute paths) is undefined in the first round. */
  generate(changed?: readonly string[]): Promise<GenerateOutcome>;
  syncCrds(crds: readonly CrdManifest[]): Promise<CrdSyncResult>;
  build(signal: AbortSignal): Promise<BuildOutcome>;
  readonly manager: {
    readonly pid: number | undefined;
    readonly running: boolean;
    start(): void;
    stop(): Promise<unknown>;
  };
  /** Which of the reported paths really changed (content), recording them; see SourceSnapshot. */
  changedPaths(paths: readonly string[]): readonly string[];
  /** Records files the generators wrote, so their events do not start another round. */
  generatorWrote(paths: readonly string[]): void;
  /** One line of output for the user. */
  log(line: string): void;
  /** Progress of the first build (an updating line on a terminal). */
  readonly progress?: Progress;
  readonly clock?: Clock;
}

/** What one round did, for the caller and the tests. */
export interface RoundReport {
  readonly trigger: readonly string[];
  readonly outcome: 'restarted' | 'started' | 'generate-failed' | 'crd-failed' | 'build-failed' | 'stopped';
  /** Milliseconds from the first event of the change to the manager's start (rounds that started it). */
  readonly elapsedMs?: number;
  /** Where `elapsedMs` went (rounds that started the manager). */
  readonly stepsMs?: RoundSteps;
}

/**
 * The parts of a reload, in milliseconds: the quiet time and any round it waited behind (`waited`,
 * from the first file event), the generators, the build (the CRDs are applied alongside it: `crds`
 * is their own time, inside the build's), and stopping the old manager.
 */
export interface RoundSteps {
  readonly waited: number;
  readonly generate: number;
  readonly build: number;
  readonly crds: number;
  readonly stop: number;
}

/**
 * `op-gen run`'s loop: generate, apply changed CRDs, build, (re)start the manager; then again on
 * every change under src/. A failing step is reported and the loop waits for the next change with
 * the manager it has (a type error does not stop a running manager). Rounds never overlap: changes
 * during a round are collected and start one more round after it.
 */
export class DevLoop {
  private readonly deps: DevLoopDeps;
  private readonly clock: Clock;
  private current: Promise<void> = Promise.resolve();
  private queued: { paths: Set<string>; firstEventAt: number } | undefined;
  private stopped = false;
  private readonly abort = new AbortController();
  readonly rounds: RoundReport[] = [];
  /** Called after each round (tests wait on it). */
  onRound: ((report: RoundReport) => void) | undefined;

  constructor(deps: DevLoopDeps) {
    this.deps = deps;
    this.clock = deps.clock ?? systemClock;
  }

  /** The first round: everything is generated, applied, built and started. */
  start(): Promise<void> {
    return this.enqueue([], this.clock.now(), true);
  }

  /** A change under src/ (from the watcher): starts a round now or after the running one. */
  changed(paths: readonly string[], firstEventAt: number): Promise<void> {
    return this.enqueue(paths, firstEventAt, false);
  }

  private enqueue(paths: readonly string[], firstEventAt: number, initial: boolean): Promise<void> {
    if (this.stopped) return this.current;
    if (this.queued) {
      for (const p of paths) this.queued.paths.add(p);
      return this.current;
    }
    const batch = { paths: new Set(paths), firstEventAt };
    this.queued = batch;
    this.current = this.current.then(async () => {
      if (this.queued === batch) this.queued = undefined;
      if (this.stopped) return;
      try {
        const report = await this.round([...batch.paths].sort(), batch.firstEventAt, initial);
        if (report) {
          this.rounds.push(report);
          this.onRound?.(report);
        }
      } catch (err) {
        this.deps.log(`op-gen run: ${(err as Error).message}`);
      }
    });
    return this.current;
  }

  private async round(
    paths: readonly string[],
    firstEventAt: number,
    initial: boolean,
  ): Promise<RoundReport | undefined> {
    const { deps } = this;
    const rel = (p: string): string => relative(deps.cwd, p);
    let trigger: readonly string[] = [];
    if (!initial) {
      trigger = deps.changedPaths(paths);
      if (trigger.length === 0) return undefined;
      deps.log(`changed: ${trigger.map(rel).join(', ')}`);
    }
    const report = (
      outcome: RoundReport['outcome'],
      elapsedMs?: number,
      stepsMs?: RoundSteps,
    ): RoundReport => ({
      trigger: trigger.map(rel),
      outcome,
      ...(elapsedMs === undefined ? {} : { elapsedMs }),
      ...(stepsMs === undefined ? {} : { stepsMs }),
    });
    const startedAt = this.clock.now();

    let generated: GenerateOutcome;
    try {
      generated = await deps.generate(initial ? undefined : trigger);
    } catch (err) {
      deps.log(`generate failed:\n${(err as Error).message}`);
      deps.log(this.waitingLine());
      return report('generate-failed');
    }
    deps.generatorWrote(generated.written.map((p) => `${deps.cwd}/${p}`));
    if (generated.written.length > 0) deps.log(`generated: ${generated.written.join(', ')}`);
    if (this.stopped) return report('stopped');
    const generatedAt = this.clock.now();

    // The CRDs go to the cluster while the project builds: the build does not need them, the manager does.
    const progress = initial ? deps.progress : undefined;
    progress?.start('building the manager');
    let crdsAt = generatedAt;
    const [synced, built] = await Promise.all([
      deps
        .syncCrds(generated.crds)
        .then(
          (result) => ({ ok: true as const, result }),
          (err: unknown) => ({ ok: false as const, message: (err as Error).message }),
        )
        .finally(() => (crdsAt = this.clock.now())),
      deps.build(this.abort.signal),
    ]);
    const builtAt = this.clock.now();
    if (this.stopped) {
      progress?.fail('build stopped');
      return report('stopped');
    }
    if (built.ok) progress?.succeed('built the manager');
    else progress?.fail('build failed');
    if (synced.ok) {
      const { applied, dropped } = synced.result;
      if (applied.length > 0) deps.log(`applied CRD: ${applied.join(', ')}`);
      else if (!initial) deps.log('CRDs unchanged');
      if (dropped.length > 0)
        deps.log(
          `no longer generated (left in the cluster; delete with kubectl delete crd): ${dropped.join(', ')}`,
        );
    } else deps.log(synced.message);
    if (!built.ok) deps.log(`build failed:\n${built.output.trimEnd()}`);
    if (!synced.ok || !built.ok) {
      deps.log(this.waitingLine());
      return report(synced.ok ? 'build-failed' : 'crd-failed');
    }

    const wasRunning = deps.manager.running;
    if (wasRunning) await deps.manager.stop();
    if (this.stopped) return report('stopped');
    const stoppedAt = this.clock.now();
    deps.manager.start();
    const elapsedMs = Math.round(this.clock.now() - firstEventAt);
    const ms = (from: number, to: number): number => Math.round(to - from);
    const steps: RoundSteps = {
      waited: ms(firstEventAt, startedAt),
      generate: ms(startedAt, generatedAt),
      build: ms(generatedAt, builtAt),
      crds: ms(generatedAt, crdsAt),
      stop: ms(builtAt, stoppedAt),
    };
    deps.log(
      wasRunning
        ? `restarted the manager (pid ${deps.manager.pid ?? '?'}) ${elapsedMs} ms after the change: ` +
            `waited ${steps.waited}, generate ${steps.generate}, build ${steps.build} ` +
            `(CRDs ${steps.crds} alongside), stop ${steps.stop} ms`
        : `started the manager (pid ${deps.manager.pid ?? '?'}); watching src/ for changes (Ctrl-C to stop)`,
    );
    return report(wasRunning ? 'restarted' : 'started', elapsedMs, steps);
  }

  private waitingLine(): string {
    return this.deps.manager.running
      ? 'the manager keeps running the previous build; waiting for the next change'
      : 'waiting for the next change';
  }

  /** Stops the loop: a running build is killed, the manager stopped; resolves when all is down. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.abort.abort();
    await this.current.catch(() => undefined);
    if (this.deps.manager.running) await this.deps.manager.stop();
  }
}
