import { lstatSync, readdirSync, watch, type FSWatcher } from 'node:fs';
import { basename, dirname, join, relative, sep } from 'node:path';
import { systemClock, type Clock } from './clock.ts';

/**
 * Starts watching `dir` and everything under it; `onEvent` gets each changed path relative to `dir`
 * (a file, or a folder that appeared or vanished). Folders for which `skip` (relative path) is true
 * are not watched.
 */
export type WatchFunction = (
  dir: string,
  onEvent: (relativePath: string) => void,
  skip?: (relativePath: string) => boolean,
  /** A folder that cannot be watched (e.g. the system's limit of watches reached): said, not dropped. */
  onError?: (message: string) => void,
) => { close(): void };

/**
 * The folder tree under `root`, one fs.watch per folder (inotify on Linux).
 *
 * Why not `fs.watch(root, { recursive: true })`: on Linux Node emulates it in JavaScript with one
 * watch per file, on the file's inode (lib/internal/fs/recursive_watch.js, Node 20 to 24). A save that
 * writes a temporary file and renames it over the original (`sed -i`, vim, JetBrains' safe write, git)
 * gives the path a new inode; Node's watch stays on the old, deleted one and keeps the path in its
 * table, so it never watches the new file and every later save of it goes unseen. A folder's watch
 * reports its entries by name whatever their inode, so here only folders are watched: a replaced
 * file is an event in its folder like any other save. A folder that appears is watched first, then
 * listed, and every file found in it reported (a `git checkout` or `mkdir -p && write` fills it before
 * its watch exists); a folder that vanishes or is replaced (a new inode under the same name) loses its
 * watches and is reported, and is watched again when it comes back. The root's parent is watched for
 * the root's own name only, so a deleted and recreated root (a checkout that removes it) is followed too.
 */
export const watchTree: WatchFunction = (root, onEvent, skip = () => false, onError = () => undefined) => {
  const watched = new Map<string, { readonly watcher: FSWatcher; readonly ino: number }>();
  let closed = false;
  const rel = (path: string): string => relative(root, path);
  /** Reports a path; a vanished folder (the root too: '') stands for everything that was under it. */
  const report = (path: string): void => {
    if (!closed) onEvent(rel(path));
  };
  const unwatch = (dir: string): boolean => {
    let any = false;
    for (const [d, w] of watched) {
      if (d === dir || d.startsWith(dir + sep)) {
        w.watcher.close();
        watched.delete(d);
        any = true;
      }
    }
    return any;
  };
  const inode = (path: string): { dir: boolean; ino: number } | undefined => {
    try {
      const st = lstatSync(path);
      return { dir: st.isDirectory(), ino: st.ino };
    } catch {
      return undefined; // gone (or unreadable): its parent reports it
    }
  };

  /** Watches `dir` and the folders under it (unless watched on the same inode); reports their files when `announce`. */
  const add = (dir: string, announce: boolean): void => {
    if (closed || (dir !== root && skip(rel(dir)))) return;
    const found = inode(dir);
    if (!found?.dir) return;
    if (watched.get(dir)?.ino === found.ino) return;
    unwatch(dir);
    let watcher: FSWatcher;
    try {
      watcher = watch(dir, { persistent: true }, (_event, name) => changed(dir, name?.toString()));
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      // Vanished between lstat and watch: its parent's event says so.
      if (code === 'ENOENT' || code === 'ENOTDIR') return;
      onError(
        `cannot watch ${rel(dir) || '.'} (${code ?? (err as Error).message}): changes in it are not seen` +
          (code === 'ENOSPC'
            ? '; raise the limit of inotify watches (sysctl fs.inotify.max_user_watches)'
            : ''),
      );
      return;
    }
    // A folder deleted under its watch may end in an error (EPERM on Windows): the parent reports it.
    watcher.on('error', () => {
      if (watched.get(dir)?.watcher === watcher) unwatch(dir);
    });
    watched.set(dir, { watcher, ino: found.ino });
    list(dir, announce);
  };

  /** What is in `dir` now: folders watched, files reported when `announce`. */
  const list = (dir: string, announce: boolean): void => {
    let entries;
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) add(path, announce);
      else if (announce) report(path);
    }
  };

  /** An event in the watched folder `dir` about its entry `name` (no name: anything in it may have changed). */
  const changed = (dir: string, name: string | undefined): void => {
    const own = watched.get(dir);
    if (closed || !own) return;
    const now = inode(dir);
    if (now?.ino !== own.ino) {
      // The folder itself was deleted or replaced: its later events are not delivered once its watch
      // is closed, so it is reported as a whole (the parent's event re-adds a replacement).
      unwatch(dir);
      report(dir);
      return;
    }
    if (name === undefined) {
      list(dir, true);
      return;
    }
    const path = join(dir, name);
    report(path);
    const entry = inode(path);
    if (entry?.dir) add(path, true);
    else unwatch(path);
  };

  add(root, false);
  // The root's own deletion and return are events of its parent.
  let parentWatcher: FSWatcher | undefined;
  try {
    parentWatcher = watch(dirname(root), { persistent: false }, (_event, name) => {
      if (closed || (name !== null && name.toString() !== basename(root))) return;
      const now = inode(root);
      if (!now?.dir) unwatch(root);
      else if (watched.get(root)?.ino !== now.ino) add(root, true);
    });
    parentWatcher.on('error', () => undefined);
  } catch {
    parentWatcher = undefined; // an unreadable parent: the root itself is still watched
  }
  return {
    close() {
      closed = true;
      parentWatcher?.close();
      for (const w of watched.values()) w.watcher.close();
      watched.clear();
    },
  };
};

/** fs.watch recursive, where the operating system does it (macOS: FSEvents, Windows: ReadDirectoryChangesW). */
const nativeRecursiveWatch: WatchFunction = (dir, onEvent, _skip, onError = () => undefined) => {
  const watcher = watch(dir, { recursive: true, persistent: true }, (_event, filename) => {
    if (filename) onEvent(filename.toString());
  });
  watcher.on('error', (err) => onError(`watching ${dir} failed (${err.message}): changes are not seen`));
  return { close: () => watcher.close() };
};

/** The watch op-gen run uses: the OS's recursive watch where it has one, else one watch per folder. */
export const fsWatch: WatchFunction =
  process.platform === 'darwin' || process.platform === 'win32' ? nativeRecursiveWatch : watchTree;

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
  /** Paths (relative to dir) whose events are dropped and folders not watched, e.g. editor swap files. */
  readonly ignore?: (relativePath: string) => boolean;
  readonly watch?: WatchFunction;
  /** A folder that cannot be watched. */
  readonly onError?: (message: string) => void;
  readonly clock?: Clock;
}

/**
 * Editors' temporary files and folders that never hold the project's sources: vim's swap files and
 * write test (`4913`) and `~` backups, Emacs' lock and autosave files, JetBrains' safe-write files,
 * node_modules and .git.
 */
export function ignoredByDefault(relativePath: string): boolean {
  const parts = relativePath.split(sep);
  const base = parts.at(-1) ?? relativePath;
  return (
    base.startsWith('.#') ||
    (base.startsWith('#') && base.endsWith('#')) ||
    base.endsWith('~') ||
    /\.sw[a-p]$/.test(base) ||
    base.endsWith('.swx') ||
    base === '4913' ||
    base.endsWith('___jb_tmp___') ||
    base.endsWith('___jb_old___') ||
    parts.includes('node_modules') ||
    parts.includes('.git')
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
  const watcher = (options.watch ?? fsWatch)(
    options.dir,
    (relativePath) => {
      if (closed || ignore(relativePath)) return;
      if (pending.size === 0) firstEventAt = clock.now();
      pending.add(join(options.dir, relativePath));
      if (timer !== undefined) clock.clearTimeout(timer);
      timer = clock.setTimeout(flush, options.debounceMs);
    },
    ignore,
    options.onError,
  );
  return {
    close() {
      closed = true;
      if (timer !== undefined) clock.clearTimeout(timer);
      watcher.close();
    },
  };
}
