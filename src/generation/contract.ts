/**
 * The contract every generator keeps (controller-tools' genall is the model): a generator plans its
 * output from the project and its options, and `emit` (emit.ts) writes it, checks it or removes what
 * is stale, the same way for all of them. The registry (registry.ts) lists the generators.
 */
import type { OutputFile } from '../shared/atomic-write.ts';
import type { ProjectFile } from '../project/project-file.ts';
import type { SourceSet } from '../source/source-set.ts';

/** Options every generator takes; each generator adds its own. */
export interface GenerateOptions {
  /** Project root (holds op-gen.yaml). */
  readonly cwd: string;
  /** API source folder, relative to cwd. Default: op-gen.yaml's apiDir, else `src/api`. */
  readonly apiDir?: string;
  /** Output folder, relative to cwd (each generator has its own default). */
  readonly outDir?: string;
  /** Write nothing; report the files that would change and the stale files that would go. */
  readonly check?: boolean;
}

/** The project as every generator sees it: the project's defaults, resolved once (context.ts). */
export interface GeneratorContext {
  readonly cwd: string;
  /** The API source folder relative to cwd: the option, else op-gen.yaml's apiDir, else `src/api`. */
  readonly apiDir: string;
  /** op-gen.yaml, read on first use (`undefined` outside an op-gen project). */
  project(): ProjectFile | undefined;
  /**
   * The run's sources (the API folders, the syntax reader, the compiler program and checker), loaded
   * on first use and shared by every generator the context is given to (run.ts's `runGenerators`).
   */
  readonly sources: SourceSet;
}

/** What a generator would write; nothing is written yet. */
export interface GeneratorPlan {
  /** Every file of the output, absolute paths, in the order they are reported. */
  readonly files: readonly OutputFile[];
  /**
   * Files on disk this generator wrote earlier (recognised by its header or annotation), absolute
   * paths. Those the plan no longer has are stale: `emit` removes them after writing.
   */
  readonly owned: readonly string[];
  /** Folders emptied by removing stale files are removed up to (not including) this one. */
  readonly outDir?: string;
}

export interface Generator<Options extends GenerateOptions, Plan extends GeneratorPlan = GeneratorPlan> {
  /** `op-gen generate <name>`. */
  readonly name: string;
  /** The JSDoc markers it reads (`@rbac`, `@webhook`, the CRD markers); none for generators reading YAML. */
  readonly markers: readonly string[];
  /**
   * The project's source folders it reads besides the API folder (`generate rbac`: `src`): a run of
   * several generators loads them with the API sources, one program for all (context.ts).
   */
  sourcePaths?(options: Options): readonly string[];
  /** Reads the sources and computes every output file; writes nothing; throws every problem at once. */
  plan(ctx: GeneratorContext, options: Options): Plan | Promise<Plan>;
}

/** The one result shape of every generator (and `op-gen bundle`); paths relative to cwd. */
export interface GenerateResult {
  readonly generator: string;
  readonly check: boolean;
  /** Every file of the output. */
  readonly files: readonly string[];
  /** Files whose content changed: written (with `check`: that would be written). */
  readonly written: readonly string[];
  /** Files already up to date. */
  readonly unchanged: readonly string[];
  /** Generated files the output no longer has: removed (with `check`: that would be removed). */
  readonly stale: readonly string[];
  /** Stale files removed (none with `check`). */
  readonly removed: readonly string[];
}

/** With `check`: the files out of date (to write or to remove). */
export function outOfDate(result: GenerateResult): string[] {
  return [...result.written, ...result.stale];
}
