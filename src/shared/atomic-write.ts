import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

export interface OutputFile {
  readonly path: string;
  readonly content: string;
  /** File mode for new files, e.g. 0o755 for scripts. */
  readonly mode?: number;
}

/**
 * Writes all files or none: each goes to a temp sibling first, and only when every temp file is
 * written are they renamed into place. On an error the temp files are removed and no target is touched.
 * Returns the paths whose content changed.
 */
export function writeFilesAtomically(files: readonly OutputFile[]): string[] {
  const changed = changedFiles(files);
  const staged: { tmp: string; path: string }[] = [];
  const createdDirs: string[] = [];
  try {
    for (const file of files) {
      if (!changed.includes(file.path)) continue;
      const dir = dirname(file.path);
      // mkdirSync returns the first folder it had to create: removing that one removes all it made.
      const created = mkdirSync(dir, { recursive: true });
      if (created !== undefined) createdDirs.push(created);
      staged.push({ tmp: writeTempSibling(file), path: file.path });
    }
  } catch (err) {
    for (const { tmp } of staged) rmSync(tmp, { force: true });
    for (const dir of createdDirs.reverse()) rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  for (const { tmp, path } of staged) renameSync(tmp, path);
  return changed;
}

/** Temp files this process has named: with its pid, what makes each name its own. */
let tempCount = 0;
/** How many taken names a write skips before it gives up (another writer would need as many files). */
const MAX_TEMP_ATTEMPTS = 100;

/**
 * Writes `file`'s content to a new sibling, `<path>.op-gen-<pid>-<count>-<time>.tmp`, and returns
 * its path. The exclusive flag (`wx`) makes the name safe: a name some other writer holds (another
 * process with the same pid in another container, a file a crashed run left behind) fails with
 * EEXIST, and the next count is tried, so no two writers ever share a temp file. (A random suffix
 * from node:crypto did this before without the flag; loading node:crypto cost `generate crd` ~2 MB
 * of resident memory.)
 */
function writeTempSibling(file: OutputFile): string {
  for (let attempt = 1; ; attempt++) {
    const tmp = `${file.path}.op-gen-${process.pid}-${(tempCount++).toString(36)}-${Date.now().toString(36)}.tmp`;
    try {
      writeFileSync(tmp, file.content, { flag: 'wx', mode: file.mode });
      return tmp;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST' || attempt === MAX_TEMP_ATTEMPTS) throw err;
    }
  }
}

/** The paths whose content on disk differs from `files` (missing files included): for `--check`. */
export function changedFiles(files: readonly OutputFile[]): string[] {
  return files
    .filter((file) => !existsSync(file.path) || readFileSync(file.path, 'utf8') !== file.content)
    .map((file) => file.path);
}
