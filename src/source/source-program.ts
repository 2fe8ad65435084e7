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
  const options: TS.CompilerOptions = {
    noLib: true,
    noResolve: true,
    types: [],
    noEmit: true,
    allowJs: false,
    target: ts.ScriptTarget.ES2023,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    allowImportingTsExtensions: true,
  };
  const host = ts.createCompilerHost(options);
  // op-gen reads comments itself (source/jsdoc-comments.ts), never TypeScript's JSDoc nodes; and
  // TypeScript 6.0's JSDoc parser never returns on a file that ends inside a JSDoc comment after a
  // tag like `@a-b:`. Unparsed, such a file is only a syntax error ("'*/' expected") at its line.
  host.jsDocParsingMode = ts.JSDocParsingMode.ParseNone;
  const program = ts.createProgram({ rootNames, options, host });
  const checker = program.getTypeChecker();
  const files = rootNames.map((path) => {
    const sourceFile = program.getSourceFile(path);
    if (!sourceFile) throw new Error(`internal: ${path} is not in the program`);
    return { path, display: relative(root, path).split(sep).join('/'), sourceFile };
  });
  return { program, checker, files };
}
