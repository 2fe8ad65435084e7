import { existsSync, statSync } from 'node:fs';
import { dirname, isAbsolute, relative } from 'node:path';

/** The file-system errors that are the environment's fault (a path, permissions, a full disk), not op-gen's. */
const REASONS: Readonly<Record<string, string>> = {
  ENOENT: 'no such file or directory',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  EROFS: 'read-only file system',
  ENOSPC: 'no space left on device',
  EISDIR: 'is a directory',
  EEXIST: 'already exists',
  ENAMETOOLONG: 'file name too long',
  ELOOP: 'too many symbolic links',
  EMFILE: 'too many open files',
};

const WRITES = new Set([
  'mkdir',
  'rename',
  'write',
  'unlink',
  'rmdir',
  'rm',
  'copyfile',
  'symlink',
  'chmod',
  'utime',
]);

interface SystemError {
  readonly code: string;
  readonly syscall?: string;
  readonly path?: string;
  readonly dest?: string;
}

function isSystemError(err: unknown): err is SystemError {
  return (
    err instanceof Error &&
    typeof (err as { code?: unknown }).code === 'string' &&
    typeof (err as { syscall?: unknown }).syscall === 'string'
  );
}

/** The deepest ancestor of `path` that exists and is not a directory: what ENOTDIR is about. */
function fileInTheWay(path: string): string | undefined {
  for (let p = dirname(path); p !== dirname(p); p = dirname(p)) {
    if (existsSync(p)) return statSync(p).isDirectory() ? undefined : p;
  }
  return undefined;
}

/**
 * One line for a file-system error the user must fix (`cannot write README.md/x/a.yaml: README.md is
 * not a directory`), or undefined when `err` is not one. Paths are shown relative to `cwd`.
 */
export function describeEnvironmentError(err: unknown, cwd: string): string | undefined {
  if (!isSystemError(err) || err.path === undefined) return undefined;
  const show = (p: string): string => {
    const rel = relative(cwd, p);
    return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel) ? rel : p;
  };
  // A temp sibling of an atomic write names the file it stands for.
  const target = (err.dest ?? err.path).replace(/\.op-gen-[0-9a-f]+\.tmp$/, '');
  const verb = WRITES.has(err.syscall ?? '') ? 'write' : err.syscall === 'open' ? 'open' : 'read';
  if (err.code === 'ENOTDIR') {
    const file = fileInTheWay(target);
    return `cannot ${verb} ${show(target)}: ${file === undefined ? 'a part of the path is not a directory' : `${show(file)} is not a directory`}`;
  }
  const reason = REASONS[err.code];
  if (reason === undefined) return undefined;
  return `cannot ${verb} ${show(target)}: ${reason}`;
}
