import type { ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';

/**
 * Tracks the processes and temp dirs of running control planes so that they are cleaned up when
 * the test process exits or is interrupted, even if a test failed before calling stop().
 * Only our own children are touched, by PID.
 */
interface Owned {
  readonly processes: Set<ChildProcess>;
  readonly dirs: Set<string>;
}

const owned: Owned = { processes: new Set(), dirs: new Set() };
let hooked = false;

function killAllSync(): void {
  for (const child of owned.processes) {
    if (child.exitCode === null && child.signalCode === null && child.pid !== undefined) {
      try {
        process.kill(child.pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
  }
  owned.processes.clear();
  for (const dir of owned.dirs) rmSync(dir, { recursive: true, force: true });
  owned.dirs.clear();
}

function onSignal(signal: NodeJS.Signals): void {
  killAllSync();
  process.off('SIGINT', onSignal);
  process.off('SIGTERM', onSignal);
  process.kill(process.pid, signal);
}

function hook(): void {
  if (hooked) return;
  hooked = true;
  process.on('exit', killAllSync);
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
}

/**
 * For a program that stops its control planes itself on SIGINT/SIGTERM (`op-gen dev-cluster`): the
 * registry no longer kills and re-raises on those signals (a test process's default), so the program
 * can stop in order and exit 0. Cleanup at process exit stays.
 */
export function leaveSignalsToCaller(): void {
  hook();
  process.off('SIGINT', onSignal);
  process.off('SIGTERM', onSignal);
}

export function trackProcess(child: ChildProcess): void {
  hook();
  owned.processes.add(child);
  child.once('exit', () => owned.processes.delete(child));
}

export function trackDir(dir: string): void {
  hook();
  owned.dirs.add(dir);
}

export function untrackDir(dir: string): void {
  owned.dirs.delete(dir);
}
