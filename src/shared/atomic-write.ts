import { randomBytes } from 'node:crypto';
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
      const tmp = `${file.path}.op-gen-${randomBytes(4).toString('hex')}.tmp`;
      writeFileSync(tmp, file.content, file.mode === undefined ? undefined : { mode: file.mode });
      staged.push({ tmp, path: file.path });
    }
  } catch (err) {
    for (const { tmp } of staged) rmSync(tmp, { force: true });
    for (const dir of createdDirs.reverse()) rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  for (const { tmp, path } of staged) renameSync(tmp, path);
  return changed;
}

/** The paths whose content on disk differs from `files` (missing files included): for `--check`. */
export function changedFiles(files: readonly OutputFile[]): string[] {
  return files
    .filter((file) => !existsSync(file.path) || readFileSync(file.path, 'utf8') !== file.content)
    .map((file) => file.path);
}
