import { watch } from 'node:fs';
import { join, sep } from 'node:path';
import { systemClock, type Clock } from './clock.ts';

/** Starts watching `dir` recursively; `onEvent` gets each changed path relative to `dir`. */
export type WatchFunction = (dir: string, onEvent: (relativePath: string) => void) => { close(): void };

/** fs.watch, recursive (Linux, macOS, Windows on Node >= 20). */
export const fsWatch: WatchFunction = (dir, onEvent) => {
  const watcher = watch(dir, { recursive: true, persistent: true }, (_event, filename) => {
    if (filename) onEvent(filename.toString());
  });
  return { close: () => watcher.close() };
};

export interface DebouncedWatchOptions {
  /** Folder to watch (absolute). */
  readonly dir: string;
  /** Quiet time after the last event before `onChange` runs (an editor's save is several events). */
  readonly debounceMs: number;
  /**
   * Called once per burst with the changed paths (absolute, sorted, each once) and the clock time of
   * the burst's first event (the save the user made).
   */
  readonly onChange: (paths: readonly string[], firstEventAt: number) => void;
  /** Paths (relative to dir) whose events are dropped, e.g. editor swap files. */
  readonly ignore?: (relativePath: string) => boolean;
  readonly watch?: WatchFunction;
  readonly clock?: Clock;
}

/** Editor droppings and build output that never mean the sources changed. */
export function ignoredByDefault(relativePath: string): boolean {
  const base = relativePath.split(sep).pop() ?? relativePath;
  return (
    base.startsWith('.#') ||
    base.endsWith('~') ||
    base.endsWith('.swp') ||
    base.endsWith('.swx') ||
    base === '4913' || // vim's write test
    relativePath.split(sep).includes('node_modules')
  );
}

/** Watches a folder and reports bursts of changes once they settle. */
export function watchDebounced(options: DebouncedWatchOptions): { close(): void } {
  const clock = options.clock ?? systemClock;
  const ignore = options.ignore ?? ignoredByDefault;
  const pending = new Set<string>();
  let timer: unknown;
  let closed = false;
  let firstEventAt = 0;
  const flush = (): void => {
    timer = undefined;
    if (closed || pending.size === 0) return;
    const paths = [...pending].sort();
    pending.clear();
    options.onChange(paths, firstEventAt);
  };
  const watcher = (options.watch ?? fsWatch)(options.dir, (relativePath) => {
    if (closed || ignore(relativePath)) return;
    if (pending.size === 0) firstEventAt = clock.now();
    pending.add(join(options.dir, relativePath));
    if (timer !== undefined) clock.clearTimeout(timer);
    timer = clock.setTimeout(flush, options.debounceMs);
  });
  return {
    close() {
      closed = true;
      if (timer !== undefined) clock.clearTimeout(timer);
      watcher.close();
    },
  };
}
