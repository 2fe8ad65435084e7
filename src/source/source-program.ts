import { relative, sep } from 'node:path';
import type { ts as TS } from 'ts-morph';
import { ts } from './ts.ts';
import { listSourceFiles } from './source-files.ts';

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
