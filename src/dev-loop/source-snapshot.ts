import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';

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

  /** The paths whose content differs from the recorded one (recording the new content). */
  changed(paths: readonly string[]): string[] {
    const out: string[] = [];
    for (const p of paths) {
      const now = this.hash(p);
      const before = this.hashes.get(p);
      // A path seen for the first time counts when it exists (a new file); a vanished one counts once.
      if (this.hashes.has(p) ? before !== now : now !== undefined) out.push(p);
      this.hashes.set(p, now);
    }
    return out;
  }
}
