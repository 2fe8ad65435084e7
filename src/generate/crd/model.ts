import { dirname, relative, sep } from 'node:path';
import type { ts as TS } from 'ts-morph';
import { OpGenError } from '../../errors.ts';
import { goFormLines, goFormProblems } from '../go-forms.ts';
import { ProblemsError, type ProblemCollector } from '../../shared/problems.ts';
import { assertSourcesCompile } from '../../source/ts-diagnostics.ts';
import { crdMarkers } from './markers.ts';
import { orphanDocComments, type DocComment } from '../../markers/index.ts';
import { readGroupVersion } from '../../source/discover.ts';
import { docOf, lineOf } from '../../source/doc.ts';
import { K8S_STUB_DIR, opGenTypesDir, opGenTypesEntry } from '../../source/api-program.ts';
import { sourcesFor, type SourceSet } from '../../source/source-set.ts';
import { SchemaBuilder, type BuiltinSchemas, type WalkFindings } from './schema-builder.ts';
import type { ApiModelKind } from '../../source/api-model.ts';
import type { ModelKind } from '../../source/type-model.ts';
import { loadTypeScript } from '../../source/typescript.ts';
import type { CheckerTypes } from './checker-types.ts';
import { buildKinds, type KindVersion } from './kind-schema.ts';

/** One kind in one version, as found in the API sources, with the doc comments of its fields. */
export type ApiKind = ApiModelKind;

export type { KindVersion } from './kind-schema.ts';

export interface ApiModelOptions {
  /** Project root. */
  readonly cwd: string;
  /** API source folder relative to cwd (default `src/api`). */
  readonly apiDir?: string;
  /** The run's sources (generation/context.ts); default: loaded for this walk. */
  readonly sources?: SourceSet;
}

export interface WalkResult {
  /** The kinds walked without a problem (with problems, the run fails once every check has run). */
  readonly kinds: KindVersion[];
  /** Every problem found so far; generate crd adds its structural and CEL problems and then throws. */
  readonly problems: ProblemCollector;
  /** What the walk collected for the checks after it (origins, CEL rules, failed fields, embedded types). */
  readonly findings: WalkFindings;
}

/** What a front end read: every kind's model, and a builder holding the problems of the reading. */
export interface ApiTypes {
  readonly kinds: readonly ModelKind[];
  readonly builder: SchemaBuilder;
}

/** The type checker's front end: loads the API sources and walks every kind (loadApiModel, generateCrds). */
export async function walkApi(
  options: ApiModelOptions,
  walkOptions: { collectDocs: boolean },
): Promise<WalkResult> {
  const walked = buildWalk(await readCheckerTypes(options), walkOptions);
  if (walked.kinds.length === 0 && walked.problems.size === 0) {
    throw new OpGenError(
      `${sourcesFor(options).apiDir}: no kinds found. Mark the root type of each kind with @kind in its doc comment (see docs/generate-crd.md).`,
    );
  }
  return walked;
}

/** The schemas of what a front end read (one builder for both front ends). */
export function buildWalk(types: ApiTypes, walkOptions: { collectDocs: boolean }): WalkResult {
  const { builder } = types;
  if (walkOptions.collectDocs) builder.fieldDocs = [];
  const kinds = buildKinds(builder, types.kinds);
  return { kinds, problems: builder.problems, findings: builder.findings() };
}

/** Loads the API sources with the type checker and reads every kind into the type model. */
export async function readCheckerTypes(options: ApiModelOptions): Promise<ApiTypes> {
  const cwd = options.cwd;
  const sources = sourcesFor(options);
  const folders = sources.apiFolders();
  const ts = loadTypeScript();
  const api = sources.apiProgram();
  const display = (f: string): string => relative(cwd, f) || f;
  // A source that does not parse, or names a type or module that does not exist, is never walked:
  // the compiler's own messages say what is wrong, where a walk would report the fallout (`any`).
  assertSourcesCompile(
    ts,
    api.program,
    api.apiSources.filter((f) => isUserSource(f.fileName)),
    { names: true, display },
  );
  const usesBuiltins = api.program
    .getSourceFiles()
    .some((f) => f.fileName.startsWith(K8S_STUB_DIR) && f.text.length > 0);
  // Without the data module, the first field using a built-in type is the error (with its file:line).
  const builtins: BuiltinSchemas | undefined = usesBuiltins
    ? await import('./builtin-schemas.ts')
    : undefined; // the schema data loads only when used
  const builder = new SchemaBuilder(builtins);
  // Loaded here: the syntax reader (syntax-walk.ts) reads most APIs, and then this is not needed.
  const { CheckerTypes } = await import('./checker-types.ts');
  const types = new CheckerTypes(ts, api.checker, cwd, opGenTypesDir());
  const problems = builder.problems;
  const kinds: ModelKind[] = [];
  for (const folder of folders) {
    const gvFile = api.program.getSourceFile(folder.groupVersionFile);
    if (!gvFile) throw new OpGenError(`${display(folder.groupVersionFile)}: cannot be read`);
    const gv = problems.attempt(
      () => groupVersionOf(ts, gvFile, display(folder.groupVersionFile)),
      undefined,
    );
    if (!gv || gv.skip) continue;
    for (const fileName of folder.files) {
      const file = api.program.getSourceFile(fileName);
      if (file) kinds.push(...fileKinds(ts, types, builder, file, gv));
    }
  }
  return { kinds, builder };
}

/** A version folder's group and version, and whether `@skip` is on its package comment. */
function groupVersionOf(
  ts: typeof TS,
  gvFile: TS.SourceFile,
  shown: string,
): { group: string; version: string; skip: boolean } {
  const found = readGroupVersion(ts, gvFile, shown);
  const pkgDoc = docOf(ts, found.statement, gvFile, goFormLines);
  const pkgMarkers = crdMarkers.parseAll(pkgDoc.tags, 'package', shown, pkgDoc.inline).markers;
  const goForm = goFormProblems(pkgDoc, shown);
  if (goForm.length > 0) throw new ProblemsError(goForm.map((text) => ({ text })));
  return { ...found, skip: pkgMarkers.some((m) => m.spec.name === 'skip') };
}

/** The kinds of one file; the problems of its doc comments that belong to no kind go to the builder. */
function fileKinds(
  ts: typeof TS,
  types: CheckerTypes,
  builder: SchemaBuilder,
  file: TS.SourceFile,
  gv: { group: string; version: string },
): ModelKind[] {
  const problems = builder.problems;
  const shown = types.display(file.fileName);
  for (const text of orphanMarkerComments(file.text, shown)) problems.add(text);
  const kinds: ModelKind[] = [];
  for (const node of [...file.statements, file.endOfFileToken]) {
    if (!ts.isInterfaceDeclaration(node) && !ts.isTypeAliasDeclaration(node)) {
      orphanKindMarker(types.doc(node), shown, problems);
      continue;
    }
    const doc = types.doc(node);
    if (!doc.tags.some((t) => t.name.toLowerCase() === 'kind')) {
      // Not a kind: its markers are read where a kind uses it; Go-form lines are reported here,
      // so an unused type's are not lost.
      if (doc.goForm.length > 0 || goFormProblems(doc, '').length > 0)
        problems.attempt(() => builder.markers(types.documented(node), 'type'), undefined);
      continue;
    }
    kinds.push(types.kind(node, { ...gv, location: { file: shown, line: lineOf(node, file) } }));
  }
  return kinds;
}

/**
 * A `@kind` in a doc comment that documents something other than an interface or type alias (say a
 * stray `;` between the comment and `export interface`, or the end of the file) would silently lose
 * the kind: it is an error at the marker's line.
 */
function orphanKindMarker(doc: DocComment, file: string, problems: ProblemCollector): void {
  const tag = doc.tags.find((t) => t.name.toLowerCase() === 'kind');
  if (!tag) return;
  problems.add(
    `${file}:${tag.line}: @kind is in a doc comment that documents no interface or type alias, so no kind is generated from it. Put the comment right above \`export interface <Kind> {\` with nothing in between.`,
  );
}

/**
 * The problems of doc comments holding markers that TypeScript attaches to no declaration (both
 * front ends: the syntax walk declines on any, so the messages are these).
 */
export function orphanMarkerComments(text: string, file: string): string[] {
  return orphanDocComments(text)
    .filter((c) => c.tags.some((t) => crdMarkers.knows(t)))
    .map(
      (c) =>
        `${file}:${c.line}: a doc comment holding ${c.tags
          .filter((t) => crdMarkers.knows(t))
          .map((t) => `@${t}`)
          .join(
            ', ',
          )} documents no declaration (it follows code on its line, or nothing follows it), so TypeScript attaches it to nothing and its markers would be lost. Put the comment on its own line right above the field or type it is for`,
    );
}

/** A source file of the project (not a stub, not op-gen's own sources or helper types, not a dependency). */
function isUserSource(fileName: string): boolean {
  return (
    !fileName.startsWith('/__op-gen__/') &&
    !fileName.startsWith(`${dirname(opGenTypesEntry())}${sep}`) &&
    !fileName.includes('/node_modules/')
  );
}
