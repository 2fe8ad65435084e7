import { join } from 'node:path';
import ts from 'typescript';

const repo = join(import.meta.dirname, '..', '..', '..');

export interface Diagnostic {
  readonly file: string;
  readonly line: number;
  readonly code: number;
  readonly message: string;
}

/**
 * Type-checks `files` with the project's strict settings, `op-gen` and `op-gen/runtime` mapped to the
 * sources (as a package consumer would see them after a build). Returns every diagnostic.
 */
export function createProgram(files: readonly string[]): ts.Program {
  const options: ts.CompilerOptions = {
    target: ts.ScriptTarget.ES2023,
    lib: ['lib.es2023.d.ts'],
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    strict: true,
    noUncheckedIndexedAccess: true,
    erasableSyntaxOnly: true,
    verbatimModuleSyntax: true,
    allowImportingTsExtensions: true,
    noEmit: true,
    skipLibCheck: true,
    types: ['node'],
    typeRoots: [join(repo, 'node_modules', '@types')],
    paths: {
      'op-gen': [join(repo, 'src', 'index.ts')],
      'op-gen/runtime': [join(repo, 'src', 'runtime', 'index.ts')],
    },
  };
  return ts.createProgram({ rootNames: [...files], options });
}

export function typeCheck(files: readonly string[]): Diagnostic[] {
  return ts.getPreEmitDiagnostics(createProgram(files)).map((d) => {
    const pos = d.file && d.start !== undefined ? d.file.getLineAndCharacterOfPosition(d.start) : undefined;
    return {
      file: d.file?.fileName ?? '',
      line: (pos?.line ?? -1) + 1,
      code: d.code,
      message: ts.flattenDiagnosticMessageText(d.messageText, '\n'),
    };
  });
}
