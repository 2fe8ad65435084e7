import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { OpGenError } from '../../errors.ts';
import type { ProblemCollector } from '../../shared/problems.ts';
import { writeOutput, type OutputFile } from '../../shared/atomic-write.ts';
import { toSortedYaml } from '../../shared/yaml.ts';
import { yamlPackage } from '../../shared/yaml-package.ts';
import { assembleCrds, VERSION_ANNOTATION, type CustomResourceDefinition } from './assemble.ts';
import { walkApi } from './model.ts';
import type { SchemaBuilder } from './schema-builder.ts';
import type { JSONSchemaProps } from '../../api-types/json-schema.ts';
import { checkStructural } from './structural.ts';

export interface GenerateCrdsOptions {
  /** Project root. */
  readonly cwd: string;
  /** API source folder, relative to cwd (default `src/api`). */
  readonly apiDir?: string;
  /** Output folder, relative to cwd (default `config/crd/bases`). */
  readonly outDir?: string;
  /** Write nothing; report the files that would change. */
  readonly check?: boolean;
  /** Cut descriptions longer than this (0 drops them). */
  readonly maxDescLen?: number;
}

export interface GenerateCrdsResult {
  /** Every CRD file, relative to cwd. */
  readonly files: readonly string[];
  /** The files whose content changed (with `check`: would change), relative to cwd; stale ones too. */
  readonly changed: readonly string[];
  /** Stale CRD files removed (with `check`: none removed, they are in `changed`), relative to cwd. */
  readonly removed: readonly string[];
  readonly crds: readonly CustomResourceDefinition[];
}

/** Generates one CRD per group+kind; writes all files atomically (or, with `check`, none). */
export async function generateCrds(options: GenerateCrdsOptions): Promise<GenerateCrdsResult> {
  const { cwd } = options;
  const outDir = options.outDir ?? 'config/crd/bases';
  if (options.maxDescLen !== undefined && (!Number.isInteger(options.maxDescLen) || options.maxDescLen < 0)) {
    throw new OpGenError(`--max-desc-len must be a whole number >= 0, got ${options.maxDescLen}`, {
      exitCode: 2,
    });
  }
  const { kinds, builder, problems } = await walkApi(options, { collectDocs: false });
  for (const k of kinds) {
    problems.attempt(
      () => checkStructural(k.schema, k.kind, builder.origins, k.location, builder.failed),
      undefined,
    );
  }
  await checkCelRules(builder, problems);
  problems.throwIfAny();
  const crds = assembleCrds(kinds, { maxDescLen: options.maxDescLen });
  const files: OutputFile[] = crds.map((crd) => ({
    path: join(resolve(cwd, outDir), `${crd.spec.group}_${crd.spec.names.plural}.yaml`),
    content: `---\n${toSortedYaml(crd)}`,
  }));
  const stale = staleCrdFiles(
    resolve(cwd, outDir),
    new Set(files.map((f) => f.path)),
    new Set(crds.map((c) => c.spec.group)),
  );
  const { changed, removed } = writeOutput(files, stale, options.check === true);
  const rel = (p: string): string => relative(cwd, p);
  return { files: files.map((f) => rel(f.path)), changed: changed.map(rel), removed: removed.map(rel), crds };
}

/**
 * CRD files in the output folder that op-gen wrote (they carry its version annotation) for a kind of
 * one of `groups` that the API no longer has: a removed or renamed kind, a changed plural. Files of
 * other groups (another API folder may write them here) and files op-gen did not write are never
 * touched.
 */
function staleCrdFiles(dir: string, wanted: ReadonlySet<string>, groups: ReadonlySet<string>): string[] {
  if (!existsSync(dir)) return [];
  // A cheap first cut by file name (`<group>_<plural>.yaml`); the CRD's own group decides below.
  return readdirSync(dir)
    .filter((f) => /\.ya?ml$/.test(f) && groups.has(f.split('_')[0] ?? ''))
    .map((f) => join(dir, f))
    .filter((p) => !wanted.has(p))
    .filter((p) => {
      const doc = yamlPackage().parseDocument(readFileSync(p, 'utf8'));
      if (doc.errors.length > 0) return false;
      const crd = doc.toJS() as {
        kind?: unknown;
        metadata?: { annotations?: Record<string, unknown> };
        spec?: { group?: unknown };
      } | null;
      return (
        crd?.kind === 'CustomResourceDefinition' &&
        typeof crd.spec?.group === 'string' &&
        groups.has(crd.spec.group) &&
        crd.metadata?.annotations?.[VERSION_ANNOTATION] !== undefined
      );
    })
    .sort();
}

/** Checks every CEL rule (rules over a field that had a problem are skipped: its problem is reported). */
async function checkCelRules(builder: SchemaBuilder, collector: ProblemCollector): Promise<void> {
  const pendingRules = builder.celRules.filter((r) => !containsFailed(r.self, builder.failed));
  const first = pendingRules[0];
  if (!first) return;
  // The CEL library loads only when a rule is there to check.
  const checker = await import('./cel-check.ts');
  for (const pending of pendingRules) {
    const problems = await checker.checkCelRule(pending.rule, pending.self);
    if (problems.length > 0) {
      const { file, line } = pending.location;
      collector.add(
        `${file}:${line}: ${pending.path}: CEL rule "${pending.rule}": ${problems.map((p) => (p.column ? `${p.message} (column ${p.column} of the rule)` : p.message)).join('; ')}. Fix the rule (self is ${pending.path}).`,
      );
    }
  }
}

function containsFailed(schema: JSONSchemaProps, failed: WeakSet<JSONSchemaProps>): boolean {
  if (failed.has(schema)) return true;
  const children = [
    ...Object.values(schema.properties ?? {}),
    ...(schema.items && !Array.isArray(schema.items) ? [schema.items] : []),
    ...(typeof schema.additionalProperties === 'object' ? [schema.additionalProperties] : []),
  ];
  return children.some((c) => containsFailed(c, failed));
}
