/**
 * The sources of one generation run, loaded on first use and shared by every generator of the run
 * (controller-tools' `loader.LoadRoots`, which genall hands to every generator): the API's version
 * folders, the syntax reader's parsed files (decl-syntax), and one TypeScript program with its
 * checker over the API sources and, when a generator reads them, the project's other sources. The
 * one place op-gen creates a compiler program: `programsCreated()` counts them, so a test can say a
 * run loads its sources once.
 */
import { existsSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import type { ts as TS } from 'ts-morph';
import { DEFAULT_API_DIR } from '../project/project-file.ts';
import { formatDiagnostics } from './ts-diagnostics.ts';
import type { Problem } from '../shared/problems.ts';
import { apiCompilerHost, type HostCache } from './api-program.ts';
import { DeclProgram } from './decl-syntax/program.ts';
import { findVersionFolders, type VersionFolder } from './discover.ts';
import { listSourceFiles } from './source-files.ts';
import { loadTypeScript } from './typescript.ts';

let created = 0;

/** How many compiler programs this process has created (every one is created here). */
export function programsCreated(): number {
  return created;
}

function createProgram(ts: typeof TS, options: TS.CreateProgramOptions): TS.Program {
  created++;
  return ts.createProgram(options);
}

/** A program over the sources and its checker. */
export interface ApiProgram {
  readonly ts: typeof TS;
  readonly program: TS.Program;
  readonly checker: TS.TypeChecker;
  /** The API sources and every file they import (op-gen's stubs and declarations included). */
  readonly apiSources: readonly TS.SourceFile[];
}

/** A project source file in the program, with the path shown for it (relative to the project, `/`). */
export interface ProjectSource {
  readonly path: string;
  readonly display: string;
  readonly sourceFile: TS.SourceFile;
}

/** The project's sources under `paths` in the program: what `generate rbac` reads. */
export interface ProjectProgram extends ApiProgram {
  readonly files: readonly ProjectSource[];
  /** Those of `files` in a version folder (beside a groupversion.ts): API sources, wherever they are. */
  readonly apiFiles: readonly string[];
}

export class SourceSet {
  readonly cwd: string;
  readonly apiDir: string;
  #folders: { value: VersionFolder[] } | { error: unknown } | undefined;
  readonly #decl = new Map<string, DeclProgram>();
  readonly #cache: HostCache = { texts: new Map(), parsed: new Map() };
  #program: { api: ReadonlySet<string>; project: ReadonlySet<string>; loaded: ApiProgram } | undefined;
  #expected: string[] = [];

  /** `apiDir`: relative to `cwd`, already resolved (generation/context.ts). */
  constructor(cwd: string, apiDir: string) {
    this.cwd = cwd;
    this.apiDir = apiDir;
  }

  /**
   * Source folders a later generator of the run reads (`generate rbac`'s paths): the first program
   * loaded includes them, so the API walk and the RBAC read share it instead of loading two.
   */
  expect(paths: readonly string[]): void {
    this.#expected.push(...paths);
  }

  /** The API's version folders (`<apiDir>/<group>/<version>/` with a groupversion.ts); throws as findVersionFolders. */
  apiFolders(): VersionFolder[] {
    this.#folders ??= (() => {
      try {
        return { value: findVersionFolders(this.cwd, this.apiDir) };
      } catch (error) {
        return { error };
      }
    })();
    if ('error' in this.#folders) throw this.#folders.error;
    return this.#folders.value;
  }

  /** The syntax reader over the API (decl-syntax), each file parsed once for the run. */
  declProgram(opGenMeta: string): DeclProgram {
    let program = this.#decl.get(opGenMeta);
    if (!program) {
      program = new DeclProgram(opGenMeta);
      this.#decl.set(opGenMeta, program);
    }
    return program;
  }

  /** The compiler program over the API sources (what the CRD walk and the API model read). */
  apiProgram(): ApiProgram {
    return this.#load(
      this.apiFolders().flatMap((f) => f.files),
      [],
    );
  }

  /**
   * The compiler program over the project's sources under `paths` (`generate rbac`: `src`); their API
   * sources (files beside a groupversion.ts) are read as the API program reads them. It is the run's
   * one program when it is the first loaded or the context expected these folders (`expect`); else a
   * second program, which parses no file again.
   */
  projectProgram(paths: readonly string[]): ProjectProgram {
    const project = listSourceFiles(this.cwd, paths);
    const apiFiles = inVersionFolders(project);
    const loaded = this.#load(apiFiles, project);
    const display = (f: string): string => relative(this.cwd, f).split(sep).join('/');
    const files = project.map((path) => {
      const sourceFile = loaded.program.getSourceFile(path);
      if (!sourceFile) throw new Error(`internal: ${path} is not in the program`);
      return { path, display: display(path), sourceFile };
    });
    return { ...loaded, files, apiFiles };
  }

  /** The loaded program when it has these roots (as API sources or not), else a new one with them all. */
  #expectedFiles(): string[] {
    try {
      return listSourceFiles(this.cwd, this.#expected);
    } catch {
      return [];
    }
  }

  #load(api: readonly string[], project: readonly string[]): ApiProgram {
    const current = this.#program;
    if (current && api.every((f) => current.api.has(f)) && project.every((f) => current.project.has(f)))
      return current.loaded;
    if (!current && this.#expected.length > 0) {
      // The project's sources a later generator reads: their API files count as API sources (as there).
      // A folder that is not there is that generator's error to report, when it runs.
      const expected = this.#expectedFiles();
      api = [...api, ...inVersionFolders(expected)];
      project = [...project, ...expected];
    }
    const apiRoots = [...new Set([...(current?.api ?? []), ...api])];
    const projectRoots = [...new Set([...(current?.project ?? []), ...project])];
    const ts = loadTypeScript();
    const { host, options, rootNames, apiClosure } = apiCompilerHost(
      ts,
      this.cwd,
      { api: apiRoots, project: projectRoots },
      this.#cache,
    );
    const program = createProgram(ts, { rootNames, options, host });
    const loaded: ApiProgram = {
      ts,
      program,
      checker: program.getTypeChecker(),
      apiSources: program.getSourceFiles().filter((f) => apiClosure.has(f.fileName)),
    };
    this.#program = {
      api: new Set(apiRoots),
      project: new Set(projectRoots),
      loaded,
    };
    return loaded;
  }
}

/** The files beside a groupversion.ts: API sources, wherever they are. */
function inVersionFolders(files: readonly string[]): string[] {
  return files.filter((f) => existsSync(join(dirname(f), 'groupversion.ts')));
}

/** The run's sources when a context gave them, else a set of the caller's own (a library call on its own). */
export function sourcesFor(options: {
  readonly cwd: string;
  readonly apiDir?: string;
  readonly sources?: SourceSet;
}): SourceSet {
  return options.sources ?? new SourceSet(options.cwd, options.apiDir ?? DEFAULT_API_DIR);
}

/**
 * The syntax errors of files parsed on their own (`ts.createSourceFile`, no program), by file, for
 * readers that need only a file's comments or shape, such as the webhook markers: a file that does
 * not parse is never read as if it did (an unterminated string would hide every marker after it).
 * The program built here only hands the parsed files back (no lib, no imports resolved, no checker).
 */
export function parseProblems(
  ts: typeof TS,
  files: readonly TS.SourceFile[],
  display: (fileName: string) => string,
): Map<TS.SourceFile, Problem[]> {
  const out = new Map<TS.SourceFile, Problem[]>();
  if (files.length === 0) return out;
  const byName = new Map(files.map((f) => [f.fileName, f]));
  const options: TS.CompilerOptions = { noLib: true, noResolve: true, types: [] };
  const host: TS.CompilerHost = {
    getSourceFile: (fileName) => byName.get(fileName),
    getDefaultLibFileName: () => 'lib.d.ts',
    writeFile: () => undefined,
    getCurrentDirectory: () => '/',
    getCanonicalFileName: (fileName) => fileName,
    useCaseSensitiveFileNames: () => true,
    getNewLine: () => '\n',
    fileExists: (fileName) => byName.has(fileName),
    readFile: () => undefined,
  };
  const program = createProgram(ts, { rootNames: [...byName.keys()], options, host });
  for (const file of files) {
    const problems = formatDiagnostics(ts, program.getSyntacticDiagnostics(file), display);
    if (problems.length > 0) out.set(file, problems);
  }
  return out;
}
