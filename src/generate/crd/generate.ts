import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { OpGenError } from '../../errors.ts';
import type { ProblemCollector } from '../../shared/problems.ts';
import type { OutputFile } from '../../shared/atomic-write.ts';
import { toSortedYaml } from '../../shared/yaml.ts';
import { yamlPackage } from '../../shared/yaml-package.ts';
import { unresolvedAliasOffset } from '../../shared/yaml-documents.ts';
import { markerNames } from '../generator-markers.ts';
import type {
  GenerateOptions,
  Generator,
  GeneratorContext,
  GeneratorPlan,
} from '../../generation/contract.ts';
import { runGenerator, type ResultOf } from '../../generation/run.ts';
import { assembleCrds, VERSION_ANNOTATION, type CustomResourceDefinition } from './assemble.ts';
import { walkApi, type KindVersion, type WalkResult } from './model.ts';
import { syntaxWalk, type CrdFrontEnd } from './front-end.ts';
import {
  crdBytes,
  fitDescriptions,
  sizeVerdict,
  type CrdSize,
  type DescriptionLimit,
} from './size-budget.ts';
import type { WalkFindings } from './schema-builder.ts';
import type { JSONSchemaProps } from '../../api-types/json-schema.ts';
import { checkStructural } from './structural.ts';
import { withEmbeddedObjectMeta } from './embedded-object-meta.ts';

export interface GenerateCrdsOptions extends GenerateOptions {
  /**
   * Cut descriptions longer than this (0 drops them); `auto`: only when a CRD is over 256 KiB, those
   * of embedded Kubernetes types first, then the others, until it fits (size-budget.ts).
   */
  readonly maxDescLen?: DescriptionLimit;
  /**
   * controller-gen's `crd:generateEmbeddedObjectMeta=true` (embedded-object-meta.ts); default: the
   * project file's `crd.generateEmbeddedObjectMeta`, else false.
   */
  readonly generateEmbeddedObjectMeta?: boolean;
}

export interface CrdPlan extends GeneratorPlan {
  readonly crds: readonly CustomResourceDefinition[];
  /** Each CRD's size as compact JSON (and, with `auto`, what was trimmed), in the order of `crds`. */
  readonly sizes: readonly CrdSize[];
  /** CRDs past the 256 KiB last-applied annotation limit (client-side apply fails on them). */
  readonly warnings: readonly string[];
}

export type GenerateCrdsResult = ResultOf<CrdPlan>;

/** Output folder of `generate crd`, relative to the project. */
export const DEFAULT_CRD_DIR = 'config/crd/bases';

/** The CRD generator reading the API sources with `front` (tests force one to compare them). */
function crdGeneratorWith(front: CrdFrontEnd): Generator<GenerateCrdsOptions, CrdPlan> {
  return {
    name: 'crd',
    get markers() {
      return markerNames('crd');
    },
    plan: (ctx, options) => planCrds(ctx, options, front),
  };
}

/** `op-gen generate crd`: one CRD per group+kind, `<outDir>/<group>_<plural>.yaml`. */
export const crdGenerator: Generator<GenerateCrdsOptions, CrdPlan> = crdGeneratorWith('auto');

/** Generates one CRD per group+kind; writes all files atomically (or, with `check`, none). */
export function generateCrds(options: GenerateCrdsOptions): Promise<GenerateCrdsResult> {
  return runGenerator(crdGenerator, options);
}

/** generateCrds with a chosen front end (for the tests that compare the two; not exported by index.ts). */
export function generateCrdsWith(
  front: CrdFrontEnd,
  options: GenerateCrdsOptions,
): Promise<GenerateCrdsResult> {
  return runGenerator(crdGeneratorWith(front), options);
}

async function planCrds(
  ctx: GeneratorContext,
  options: GenerateCrdsOptions,
  front: CrdFrontEnd,
): Promise<CrdPlan> {
  const limit = options.maxDescLen;
  if (limit !== undefined && limit !== 'auto' && (!Number.isInteger(limit) || limit < 0)) {
    throw new OpGenError(`--max-description-length must be a whole number >= 0 or auto, got ${limit}`, {
      exitCode: 2,
    });
  }
  const source = { cwd: ctx.cwd, apiDir: ctx.apiDir, sources: ctx.sources };
  const walked = await syntaxWalk(source, front);
  if (walked) {
    try {
      return await planFrom(ctx, options, walked);
    } catch (err) {
      // A problem is reported as the type checker's walk finds it (same messages, same locations).
      if (front === 'syntax') throw err;
    }
  }
  return planFrom(ctx, options, await walkApi(source, { collectDocs: false }));
}

/** The CRDs of a walk: the checks after it, assembly, the size budget, the files. */
async function planFrom(
  ctx: GeneratorContext,
  options: GenerateCrdsOptions,
  walked: WalkResult,
): Promise<CrdPlan> {
  const limit = options.maxDescLen;
  const { problems } = walked;

  const embedded =
    options.generateEmbeddedObjectMeta ?? ctx.project()?.crd?.generateEmbeddedObjectMeta ?? false;
  const { kinds, findings } = embedded ? withEmbeddedObjectMeta(walked.kinds, walked.findings) : walked;
  for (const k of kinds) {
    problems.attempt(
      () => checkStructural(k.schema, k.kind, findings.origins, k.location, findings.failed),
      undefined,
    );
  }
  await checkCelRules(findings, problems);
  problems.throwIfAny();
  await checkCelCosts(kinds, findings, problems);
  problems.throwIfAny();
  const assembled = assembleCrds(kinds, typeof limit === 'number' ? { maxDescLen: limit } : {});
  const budget = sizeBudget(assembled, kinds, limit === 'auto' ? findings.embeddedK8s : undefined, problems);
  problems.throwIfAny();
  const crds = budget.crds;
  const outDir = resolve(ctx.cwd, options.outDir ?? DEFAULT_CRD_DIR);
  const files: OutputFile[] = crds.map((crd) => ({
    path: join(outDir, `${crd.spec.group}_${crd.spec.names.plural}.yaml`),
    content: `---\n${toSortedYaml(crd)}`,
  }));
  return {
    files,
    owned: generatedCrdFiles(
      outDir,
      new Set(crds.map((c) => c.spec.group)),
      new Set(files.map((f) => f.path)),
    ),
    crds,
    sizes: budget.sizes,
    // A type used by several fields is checked once per use: its warning is said once.
    warnings: [...new Set([...findings.warnings, ...budget.warnings])],
  };
}
/**
 * Measures every CRD; with `embedded` (the automatic mode) trims descriptions of those over 256 KiB;
 * a CRD over the API server's request limit is a problem (nothing is written).
 */
function sizeBudget(
  assembled: readonly CustomResourceDefinition[],
  kinds: readonly KindVersion[],
  embedded: WalkFindings['embeddedK8s'] | undefined,
  problems: ProblemCollector,
): { crds: CustomResourceDefinition[]; sizes: CrdSize[]; warnings: string[] } {
  const crds: CustomResourceDefinition[] = [];
  const sizes: CrdSize[] = [];
  const warnings: string[] = [];
  for (const crd of assembled) {
    const fitted = embedded
      ? fitDescriptions(crd, embedded)
      : { crd, size: { name: crd.metadata.name, bytes: crdBytes(crd) } };
    crds.push(fitted.crd);
    sizes.push(fitted.size);
    const verdict = sizeVerdict(fitted.size);
    const kind = kinds.find((k) => k.group === crd.spec.group && k.kind === crd.spec.names.kind);
    const at = kind ? `${kind.location.file}:${kind.location.line}: ` : '';
    if (verdict.problem) problems.add(`${at}${verdict.problem}`);
    if (verdict.warning) warnings.push(`${at}${verdict.warning}`);
  }
  return { crds, sizes, warnings };
}

/**
 * CRD files in the output folder that op-gen wrote (they carry its version annotation) for one of
 * `groups`. Those the API no longer has (a removed or renamed kind, a changed plural) are stale; files
 * of other groups (another API folder may write them here) and files op-gen did not write are never
 * touched. A file this run writes anyway is not read (a regeneration parsed every CRD it was about to
 * overwrite: ~0.4 s of CPU on 100 kinds); only the other candidates are.
 */
function generatedCrdFiles(dir: string, groups: ReadonlySet<string>, planned: ReadonlySet<string>): string[] {
  if (!existsSync(dir)) return [];
  // A cheap first cut by file name (`<group>_<plural>.yaml`); the CRD's own group decides below.
  return readdirSync(dir)
    .filter((f) => /\.ya?ml$/.test(f) && groups.has(f.split('_')[0] ?? ''))
    .map((f) => join(dir, f))
    .filter((p) => {
      if (planned.has(p)) return true;
      const doc = yamlPackage().parseDocument(readFileSync(p, 'utf8'));
      // A file that does not parse (or has an alias without its anchor) is not one op-gen wrote.
      if (doc.errors.length > 0 || unresolvedAliasOffset(doc) !== undefined) return false;
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
async function checkCelRules(findings: WalkFindings, collector: ProblemCollector): Promise<void> {
  const pendingRules = findings.celRules.filter((r) => !containsFailed(r.self, findings.failed));
  const first = pendingRules[0];
  if (!first) return;
  // The CEL library loads only when a rule is there to check.
  const checker = await import('./cel-check.ts');
  for (const pending of pendingRules) {
    // A kind's own rules (path: the kind's name) have self at the resource's root.
    const problems = await checker.checkCelRule(pending.rule, pending.self, {
      resourceRoot: !/[.[]/.test(pending.path),
    });
    if (problems.length > 0) {
      const { file, line } = pending.location;
      collector.add(
        `${file}:${line}: ${pending.path}: CEL rule "${pending.rule}": ${problems.map((p) => (p.column ? `${p.message} (column ${p.column} of the rule)` : p.message)).join('; ')}. Fix the rule (self is ${pending.path}).`,
      );
    }
  }
}

function containsFailed(schema: JSONSchemaProps, failed: WalkFindings['failed']): boolean {
  if (failed.has(schema)) return true;
  const children = [
    ...Object.values(schema.properties ?? {}),
    ...(schema.items && !Array.isArray(schema.items) ? [schema.items] : []),
    ...(typeof schema.additionalProperties === 'object' ? [schema.additionalProperties] : []),
  ];
  return children.some((c) => containsFailed(c, failed));
}

/**
 * The API server's static cost limits on CEL rules, checked at generate time (cel-cost.ts): a rule
 * whose estimated cost times its cardinality exceeds the per-rule limit, or a version whose rules
 * together exceed the per-CRD limit, is a problem naming the bounds to add.
 */
async function checkCelCosts(
  kinds: readonly KindVersion[],
  findings: WalkFindings,
  collector: ProblemCollector,
): Promise<void> {
  if (findings.celRules.length === 0) return;
  const cost = await import('./cel-cost.ts');
  for (const k of kinds) {
    const costs = cost.ruleCosts(k.schema, k.kind);
    for (const c of costs) {
      if (c.total <= cost.PER_RULE_COST_LIMIT) continue;
      collector.add(`${ruleLocation(findings, c.path, c.rule, k)}: ${c.path}: ${cost.costProblem(c)}`);
    }
    const sum = costs.reduce((n, c) => n + c.total, 0);
    // A rule over its own limit is already reported (and is most of the sum).
    const reported = costs.some((c) => c.total > cost.PER_RULE_COST_LIMIT);
    if (sum > cost.PER_CRD_COST_LIMIT && !reported) {
      collector.add(
        `${k.location.file}:${k.location.line}: ${k.kind} (${k.version}): ${cost.totalCostProblem(costs, sum)}`,
      );
    }
  }
}

/** file:line of the marker that wrote `rule` at `path` (else of the kind). */
function ruleLocation(findings: WalkFindings, path: string, rule: string, k: KindVersion): string {
  const pending =
    findings.celRules.find((r) => r.path === path && r.rule === rule) ??
    findings.celRules.find((r) => r.rule === rule);
  const at = pending?.location ?? k.location;
  return `${at.file}:${at.line}`;
}
