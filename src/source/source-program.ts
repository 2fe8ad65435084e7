import { readdirSync, statSync } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';
import type { ts as TS } from 'ts-morph';
import { ts } from './ts.ts';
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

/** A parsed program over the sources: only those files are loaded (no lib, no node_modules), so it is fast. */
export interface SourceProgram {
  readonly program: TS.Program;
  readonly checker: TS.TypeChecker;
  readonly files: readonly {
    readonly path: string;
    readonly display: string;
    readonly sourceFile: TS.SourceFile;
  }[];
}

export function loadSourceProgram(root: string, paths: readonly string[]): SourceProgram {
  const rootNames = listSourceFiles(root, paths);
  const program = ts.createProgram({
    rootNames,
    options: {
      noLib: true,
      noResolve: true,
      types: [],
      noEmit: true,
      allowJs: false,
      target: ts.ScriptTarget.ES2023,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      allowImportingTsExtensions: true,
    },
  });
  const checker = program.getTypeChecker();
  const files = rootNames.map((path) => {
    const sourceFile = program.getSourceFile(path);
    if (!sourceFile) throw new Error(`internal: ${path} is not in the program`);
    return { path, display: relative(root, path).split(sep).join('/'), sourceFile };
  });
  return { program, checker, files };
}
