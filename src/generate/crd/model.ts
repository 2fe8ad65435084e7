import { dirname, relative, sep } from 'node:path';
import type { ts as TS } from 'ts-morph';
import { OpGenError } from '../../errors.ts';
import { goFormLines, goFormProblems } from '../go-forms.ts';
import { ProblemsError, type ProblemCollector } from '../../shared/problems.ts';
import { assertSourcesCompile } from '../../source/ts-diagnostics.ts';
import { crdMarkers, type CrdMarker } from './markers.ts';
import { orphanDocComments, type RawTag, type SourceLocation } from '../../markers/index.ts';
import { readGroupVersion } from '../../source/discover.ts';
import { docOf, lineOf } from '../../source/doc.ts';
import { dns1035LabelErrors } from '../../k8s-names/dns.ts';
import { pluralize } from '../../k8s-names/pluralize.ts';
import { K8S_STUB_DIR, opGenTypesDir, opGenTypesEntry } from '../../source/api-program.ts';
import { sourcesFor, type ApiProgram, type SourceSet } from '../../source/source-set.ts';
import { SchemaBuilder, type BuiltinSchemas, type WalkFindings } from './schema-builder.ts';
import type { JSONSchemaProps } from '../../api-types/json-schema.ts';
import type { ApiModelKind } from '../../source/api-model.ts';
import { loadTypeScript } from '../../source/typescript.ts';
import { sourceError } from './walk-error.ts';

/** One kind in one version, as found in the API sources, with the doc comments of its fields. */
export type ApiKind = ApiModelKind;

/** A kind with everything `generate crd` needs to write its version of the CRD. */
export interface KindVersion extends ApiKind {
  readonly markers: readonly CrdMarker[];
  readonly schema: JSONSchemaProps;
  readonly shortNames: readonly string[];
  readonly categories: readonly string[];
}

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

const API_VERSION_DESC =
  'APIVersion defines the versioned schema of this representation of an object.\nServers should convert recognized schemas to the latest internal value, and\nmay reject unrecognized values.\nMore info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#resources';
const KIND_DESC =
  'Kind is a string value representing the REST resource this object represents.\nServers may infer this from the endpoint the client submits requests to.\nCannot be updated.\nIn CamelCase.\nMore info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds';

/** The description of a kind's `apiVersion` or `kind` field when its doc comment gives none. */
export function rootFieldDescription(name: 'apiVersion' | 'kind'): string {
  return name === 'kind' ? KIND_DESC : API_VERSION_DESC;
}

/** Loads the API sources and walks every kind: the shared core of loadApiModel and generateCrds. */
export async function walkApi(
  options: ApiModelOptions,
  walkOptions: { collectDocs: boolean },
): Promise<WalkResult> {
  const cwd = options.cwd;
  const sources = sourcesFor(options);
  const apiDir = sources.apiDir;
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
  const builder = new SchemaBuilder(ts, api.checker, cwd, opGenTypesDir(), builtins);
  if (walkOptions.collectDocs) builder.fieldDocs = [];
  const problems = builder.problems;

  const kinds: KindVersion[] = [];
  for (const folder of folders) {
    const gvFile = api.program.getSourceFile(folder.groupVersionFile);
    if (!gvFile) throw new OpGenError(`${display(folder.groupVersionFile)}: cannot be read`);
    const gv = problems.attempt(() => {
      const found = readGroupVersion(ts, gvFile, display(folder.groupVersionFile));
      const pkgDoc = docOf(ts, found.statement, gvFile, goFormLines);
      const pkgMarkers = crdMarkers.parseAll(
        pkgDoc.tags,
        'package',
        display(gvFile.fileName),
        pkgDoc.inline,
      ).markers;
      const goForm = goFormProblems(pkgDoc, display(gvFile.fileName));
      if (goForm.length > 0) throw new ProblemsError(goForm.map((text) => ({ text })));
      return { ...found, skip: pkgMarkers.some((m) => m.spec.name === 'skip') };
    }, undefined);
    if (!gv || gv.skip) continue;
    const { group, version } = gv;
    for (const fileName of folder.files) {
      const file = api.program.getSourceFile(fileName);
      if (!file) continue;
      for (const text of orphanMarkerComments(file.text, display(fileName))) problems.add(text);
      for (const node of [...file.statements, file.endOfFileToken]) {
        if (!ts.isInterfaceDeclaration(node) && !ts.isTypeAliasDeclaration(node)) {
          orphanKindMarker(builder, node, display(fileName), problems);
          continue;
        }
        const stmt = node;
        const doc = builder.doc(stmt);
        if (!doc.tags.some((t) => t.name.toLowerCase() === 'kind')) {
          // Not a kind: its markers are read where a kind uses it; Go-form lines are reported here,
          // so an unused type's are not lost.
          if (doc.goForm.length > 0 || goFormProblems(doc, '').length > 0)
            problems.attempt(() => builder.markers(stmt, 'type'), undefined);
          continue;
        }
        const location = { file: display(fileName), line: lineOf(stmt, file) };
        problems.attempt(() => {
          if (!stmt.modifiers?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword)) {
            throw sourceError(
              location,
              stmt.name.text,
              'is marked @kind but not exported',
              `Write \`export interface ${stmt.name.text}\``,
            );
          }
          if (stmt.typeParameters) {
            throw sourceError(
              location,
              stmt.name.text,
              'is a generic kind',
              'A kind must be a concrete type: instantiate the generic in a type alias',
            );
          }
          const kind = kindVersion(builder, api, stmt, {
            group,
            version,
            location,
            description: doc.description,
            tags: doc.tags,
          });
          if (kind) kinds.push(kind);
        }, undefined);
      }
    }
  }
  if (kinds.length === 0 && problems.size === 0) {
    throw new OpGenError(
      `${apiDir}: no kinds found. Mark the root type of each kind with @kind in its doc comment (see docs/generate-crd.md).`,
    );
  }
  return { kinds, problems, findings: builder.findings() };
}

/**
 * A `@kind` in a doc comment that documents something other than an interface or type alias (say a
 * stray `;` between the comment and `export interface`, or the end of the file) would silently lose
 * the kind: it is an error at the marker's line.
 */
function orphanKindMarker(
  builder: SchemaBuilder,
  node: TS.Node,
  file: string,
  problems: ProblemCollector,
): void {
  const tag = builder.doc(node).tags.find((t) => t.name.toLowerCase() === 'kind');
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

export interface KindSeed {
  readonly group: string;
  readonly version: string;
  readonly location: SourceLocation;
  readonly description: string;
  readonly tags: readonly RawTag[];
}

/** The resource names and scope of a kind: from its markers, checked as the API server would. */
export interface KindNames {
  readonly kind: string;
  readonly plural: string;
  readonly singular: string;
  readonly namespaced: boolean;
  readonly shortNames: readonly string[];
  readonly categories: readonly string[];
}

function kindVersion(
  builder: SchemaBuilder,
  api: ApiProgram,
  decl: TS.InterfaceDeclaration | TS.TypeAliasDeclaration,
  seed: KindSeed,
): KindVersion | undefined {
  const { markers } = builder.markers(decl, 'type');
  if (markers.some((m) => m.spec.name === 'skipversion')) return undefined;
  const names = kindNames(markers, decl.name.text, seed.location);
  const where = { path: names.kind, location: seed.location };
  const schema = builder.applyMarkers(rootSchema(builder, api, decl, names.kind, seed), markers, where);
  builder.origins.set(schema, where);
  const prefix = `${names.kind}.`;
  const fields = builder
    .takeFieldDocs()
    .map((f) => ({ ...f, path: f.path.startsWith(prefix) ? f.path.slice(prefix.length) : f.path }));
  return kindVersionOf(seed, names, markers, schema, fields);
}

/** A walked kind (both walks assemble it here): names, versions' flags from its markers, schema, docs. */
export function kindVersionOf(
  seed: KindSeed,
  names: KindNames,
  markers: readonly CrdMarker[],
  schema: JSONSchemaProps,
  fields: KindVersion['fields'],
): KindVersion {
  return {
    group: seed.group,
    version: seed.version,
    ...names,
    storage: markers.some((m) => m.spec.name === 'storageversion'),
    served: !markers.some((m) => m.spec.name === 'unservedversion'),
    description: seed.description,
    tags: seed.tags,
    fields,
    location: seed.location,
    markers,
    schema,
  };
}

/** Kind name, plural, singular, scope, short names and categories from `@kind`, `@resource`, `@plural`, .... */
export function kindNames(
  markers: readonly CrdMarker[],
  declName: string,
  location: SourceLocation,
): KindNames {
  const one = (name: string): CrdMarker | undefined => markers.find((m) => m.spec.name === name);
  const all = (name: string): CrdMarker[] => markers.filter((m) => m.spec.name === name);
  const resource = one('resource')?.args ?? {};
  const kind = (one('kind')?.value as string | undefined) || declName;
  if (!/^[A-Z][A-Za-z0-9]*$/.test(kind)) {
    throw sourceError(
      location,
      kind,
      'is not a valid kind name',
      'Kinds are CamelCase, starting with an upper-case letter',
    );
  }
  const singular =
    (one('singular')?.value as string | undefined) ??
    (resource.singular as string | undefined) ??
    kind.toLowerCase();
  const plural =
    (one('plural')?.value as string | undefined) ?? (resource.path as string | undefined) ?? pluralize(kind);
  for (const [what, value] of [
    ['plural', plural],
    ['singular', singular],
  ] as const) {
    const errors = dns1035LabelErrors(value);
    if (errors.length > 0) {
      throw sourceError(
        location,
        kind,
        `${what} "${value}" is not a DNS-1035 label: ${errors.join('; ')}`,
        `Fix @${what}`,
      );
    }
  }
  const scope =
    (one('scope')?.value as string | undefined) ?? (resource.scope as string | undefined) ?? 'Namespaced';
  return {
    kind,
    plural,
    singular,
    namespaced: scope === 'Namespaced',
    shortNames: [
      ...((resource.shortName as string[] | undefined) ?? []),
      ...all('shortName').flatMap((m) => m.value as string[]),
    ],
    categories: [
      ...((resource.categories as string[] | undefined) ?? []),
      ...all('categories').flatMap((m) => m.value as string[]),
    ],
  };
}

/** The kind's schema before its own markers: apiVersion, kind, metadata and every other field. */
function rootSchema(
  builder: SchemaBuilder,
  api: ApiProgram,
  decl: TS.InterfaceDeclaration | TS.TypeAliasDeclaration,
  kindName: string,
  seed: KindSeed,
): JSONSchemaProps {
  const { checker } = api;
  const type = checker.getTypeAtLocation(decl.name);
  const props = checker.getPropertiesOfType(type).filter((p) => !p.name.startsWith('__@'));
  if (!props.some((p) => p.name === 'spec' || p.name === 'status')) {
    throw sourceError(
      seed.location,
      kindName,
      'has neither `spec` nor `status`',
      'A kind has `apiVersion`, `kind`, `metadata: ObjectMeta`, `spec` and usually `status?`',
    );
  }
  const properties: Record<string, JSONSchemaProps> = {};
  const required: string[] = [];
  for (const prop of props) {
    const propDecl = prop.valueDeclaration ?? prop.declarations?.[0];
    if (prop.name === 'apiVersion' || prop.name === 'kind') {
      const doc = propDecl ? builder.doc(propDecl) : undefined;
      properties[prop.name] = {
        type: 'string',
        description: doc?.description || rootFieldDescription(prop.name),
      };
      continue;
    }
    if (prop.name === 'metadata') {
      checkObjectMeta(builder, api, prop, propDecl ? builder.locationOf(propDecl) : seed.location, kindName);
      properties.metadata = { type: 'object' };
      continue;
    }
    const field = builder.fieldSchema(prop, { path: kindName, location: seed.location });
    if (!field) continue;
    properties[prop.name] = field.schema;
    if (field.required) required.push(prop.name);
  }
  const schema: JSONSchemaProps = { type: 'object', properties };
  if (seed.description) schema.description = seed.description;
  if (required.length > 0) schema.required = required.sort();
  return schema;
}

/** A kind's `metadata` must be `ObjectMeta`: the API server owns its schema. */
function checkObjectMeta(
  builder: SchemaBuilder,
  api: ApiProgram,
  prop: TS.Symbol,
  location: SourceLocation,
  kindName: string,
): void {
  const { ts, checker } = api;
  const metaType = checker.getTypeOfSymbol(prop);
  const name = (metaType.aliasSymbol ?? metaType.getSymbol())?.name;
  const nonNull =
    metaType.flags & ts.TypeFlags.Union
      ? (metaType as TS.UnionType).types.find((t) => !(t.flags & ts.TypeFlags.Undefined))
      : metaType;
  if ((nonNull?.getSymbol()?.name ?? name) !== 'ObjectMeta') {
    throw sourceError(
      location,
      `${kindName}.metadata`,
      `has type \`${checker.typeToString(nonNull ?? metaType)}\``,
      "A kind's metadata is `ObjectMeta` (import type { ObjectMeta } from 'op-gen'); the API server owns its schema",
    );
  }
}
