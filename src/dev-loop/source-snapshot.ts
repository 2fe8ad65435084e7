import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { sep } from 'node:path';

/** Reads a file's content, or undefined when it does not exist (deleted, or a folder). */
export type ReadFile = (path: string) => Buffer | undefined;

const readIfFile: ReadFile = (path) => {
  try {
    return readFileSync(path);
  } catch {
    return undefined;
  }
};

/**
 * Content hashes of the files the watcher reported, so an event only counts when a file's content
 * changed: an editor's touch, a save without edits, or the generators rewriting a file with the same
 * content (`src/clients`) do not restart the manager.
 */
export class SourceSnapshot {
  private readonly hashes = new Map<string, string | undefined>();
  private readonly read: ReadFile;

  constructor(read: ReadFile = readIfFile) {
    this.read = read;
  }

  private hash(path: string): string | undefined {
    const content = this.read(path);
    return content === undefined ? undefined : createHash('sha256').update(content).digest('hex');
  }

  /** Records the current content of `paths` (files the generators wrote, files read at start). */
  refresh(paths: readonly string[]): void {
    for (const p of paths) this.hashes.set(p, this.hash(p));
  }

  /**
   * The paths whose content differs from the recorded one (recording the new content). A reported
   * path that is not a file and was never one (a folder moved away or deleted) stands for the
   * recorded files under it: those that vanished count.
   */
  changed(paths: readonly string[]): string[] {
    const out = new Set<string>();
    for (const p of paths) {
      const now = this.hash(p);
      const before = this.hashes.get(p);
      // A path seen for the first time counts when it exists (a new file); a vanished one counts once.
      if (this.hashes.has(p) ? before !== now : now !== undefined) out.add(p);
      if (now === undefined && !this.hashes.has(p)) {
        for (const [file, hash] of this.hashes) {
          if (hash !== undefined && file.startsWith(p + sep) && this.hash(file) === undefined) {
            out.add(file);
            this.hashes.set(file, undefined);
          }
        }
        continue; // not recorded: a folder's path is no file's
      }
      this.hashes.set(p, now);
    }
    return [...out].sort();
  }
}
