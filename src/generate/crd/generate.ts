import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseDocument } from 'yaml';
import { OpGenError } from '../../errors.ts';
import type { ProblemCollector } from '../../shared/problems.ts';
import type { OutputFile } from '../../shared/atomic-write.ts';
import { crdMarkers } from '../../markers/crd.ts';
import type { GenerateOptions, Generator, GeneratorContext, GeneratorPlan } from '../contract.ts';
import { runGenerator, type ResultOf } from '../run.ts';
import { sortKeysDeep, toYaml } from '../../shared/yaml.ts';
import { assembleCrds, VERSION_ANNOTATION, type CustomResourceDefinition } from './assemble.ts';
import { walkApi } from './model.ts';
import type { SchemaBuilder } from './schema-builder.ts';
import type { JSONSchemaProps } from '../../api-types/json-schema.ts';
import { checkStructural } from './structural.ts';

export interface GenerateCrdsOptions extends GenerateOptions {
  /** Cut descriptions longer than this (0 drops them). */
  readonly maxDescLen?: number;
}

export interface CrdPlan extends GeneratorPlan {
  readonly crds: readonly CustomResourceDefinition[];
}

export type GenerateCrdsResult = ResultOf<CrdPlan>;

/** Output folder of `generate crd`, relative to the project. */
export const DEFAULT_CRD_DIR = 'config/crd/bases';

/** `op-gen generate crd`: one CRD per group+kind, `<outDir>/<group>_<plural>.yaml`. */
export const crdGenerator: Generator<GenerateCrdsOptions, CrdPlan> = {
  name: 'crd',
  get markers() {
    return [...new Set(crdMarkers.specs.map((m) => m.name))];
  },
  plan: planCrds,
};

/** Generates one CRD per group+kind; writes all files atomically (or, with `check`, none). */
export function generateCrds(options: GenerateCrdsOptions): Promise<GenerateCrdsResult> {
  return runGenerator(crdGenerator, options);
}

async function planCrds(ctx: GeneratorContext, options: GenerateCrdsOptions): Promise<CrdPlan> {
  if (options.maxDescLen !== undefined && (!Number.isInteger(options.maxDescLen) || options.maxDescLen < 0)) {
    throw new OpGenError(`--max-desc-len must be a whole number >= 0, got ${options.maxDescLen}`, {
      exitCode: 2,
    });
  }
  const { kinds, builder, problems } = await walkApi(
    { cwd: ctx.cwd, apiDir: ctx.apiDir },
    { collectDocs: false },
  );
  for (const k of kinds) {
    problems.attempt(
      () => checkStructural(k.schema, k.kind, builder.origins, k.location, builder.failed),
      undefined,
    );
  }
  await checkCelRules(builder, problems);
  problems.throwIfAny();
  const crds = assembleCrds(kinds, { maxDescLen: options.maxDescLen });
  const outDir = resolve(ctx.cwd, options.outDir ?? DEFAULT_CRD_DIR);
  const files: OutputFile[] = crds.map((crd) => ({
    path: join(outDir, `${crd.spec.group}_${crd.spec.names.plural}.yaml`),
    content: `---\n${toYaml(sortKeysDeep(crd))}`,
  }));
  return { files, owned: generatedCrdFiles(outDir, new Set(crds.map((c) => c.spec.group))), crds };
}

/**
 * CRD files in the output folder that op-gen wrote (they carry its version annotation) for one of
 * `groups`. Those the API no longer has (a removed or renamed kind, a changed plural) are stale; files
 * of other groups (another API folder may write them here) and files op-gen did not write are never
 * touched.
 */
function generatedCrdFiles(dir: string, groups: ReadonlySet<string>): string[] {
  if (!existsSync(dir)) return [];
  // A cheap first cut by file name (`<group>_<plural>.yaml`); the CRD's own group decides below.
  return readdirSync(dir)
    .filter((f) => /\.ya?ml$/.test(f) && groups.has(f.split('_')[0] ?? ''))
    .map((f) => join(dir, f))
    .filter((p) => {
      const doc = parseDocument(readFileSync(p, 'utf8'));
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
