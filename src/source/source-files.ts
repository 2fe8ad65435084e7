import { readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { OpGenError } from '../errors.ts';

const SKIP_DIRS = new Set(['node_modules', 'dist', '.git']);

function isSource(name: string): boolean {
  return /\.(m|c)?ts$/.test(name) && !/\.d\.(m|c)?ts$/.test(name) && !/\.(test|spec)\.(m|c)?ts$/.test(name);
}

/** The TypeScript sources under `dirs` (tests, declarations, node_modules and dist left out), sorted. */
export function listSourceFiles(root: string, dirs: readonly string[]): string[] {
  const out: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) {
        if (!SKIP_DIRS.has(entry.name)) walk(path);
      } else if (entry.isFile() && isSource(entry.name)) {
        out.push(path);
      }
    }
  };
  for (const dir of dirs) {
    const abs = resolve(root, dir);
    let isDir: boolean;
    try {
      isDir = statSync(abs).isDirectory();
    } catch {
      throw new OpGenError(`${abs}: no such directory. Pass --paths <dir> with your controllers' sources.`);
    }
    if (isDir) walk(abs);
    else if (isSource(abs)) out.push(abs);
  }
  return [...new Set(out)].sort();
}
