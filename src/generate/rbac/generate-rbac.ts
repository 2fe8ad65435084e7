import { existsSync, readdirSync } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';
import { OpGenError } from '../../errors.ts';
import { dns1123LabelErrors } from '../../k8s-names/dns.ts';
import type {
  GenerateOptions,
  Generator,
  GeneratorContext,
  GeneratorPlan,
} from '../../generation/contract.ts';
import { generatorContext } from '../../generation/context.ts';
import { runGenerator, type ResultOf } from '../../generation/run.ts';
import { ts } from '../../source/ts.ts';
import { ProblemCollector } from '../../shared/problems.ts';
import { assertSourcesCompile } from '../../source/ts-diagnostics.ts';
import { findBuilderUses, rulesForUses } from './infer-rules.ts';
import { renderRbacManifests } from './manifests.ts';
import { rolesFromRules, type RoleSpec } from './merge-rules.ts';
import { rbacMarkerRules } from './rbac-markers.ts';
import type { RbacRule } from './rule.ts';
import { StaticEvaluator } from './static-value.ts';
import { validateRule } from './validate-rule.ts';
import { markerNames } from '../generator-markers.ts';

export const DEFAULT_ROLE_NAME = 'manager-role';
export const DEFAULT_SERVICE_ACCOUNT = 'controller-manager';
export const DEFAULT_OUTPUT_DIR = 'config/rbac';
/** The sources `generate rbac` reads markers and builders from, relative to the project. */
const DEFAULT_PATHS: readonly string[] = ['src'];

export interface GenerateRbacOptions extends GenerateOptions {
  /** Source folders or files to scan, relative to cwd. Default `src`. */
  readonly paths?: readonly string[];
  /** Infer rules from `.for/.owns/.watches` (default true). */
  readonly infer?: boolean;
  readonly allowWildcards?: boolean;
  /** Overrides the project file's `rbac.roleName` (default `manager-role`). */
  readonly roleName?: string;
  /** Overrides the manager's namespace (default `<projectName>-system`, or `system` without a project). */
  readonly namespace?: string;
  readonly serviceAccount?: string;
}

export interface RbacPlan extends GeneratorPlan {
  readonly rules: readonly RbacRule[];
  readonly roles: readonly RoleSpec[];
}

/** `op-gen generate rbac`: config/rbac from `@rbac` markers and the controllers' builders. */
export const rbacGenerator: Generator<GenerateRbacOptions, RbacPlan> = {
  name: 'rbac',
  markers: markerNames('rbac'),
  sourcePaths: (options) => options.paths ?? DEFAULT_PATHS,
  plan: (ctx, options) => planRbacIn(ctx, options),
};

/** Reads the sources and computes every output file; writes nothing. */
export function planRbac(options: GenerateRbacOptions): RbacPlan {
  return planRbacIn(generatorContext(options), options);
}

/** Generates config/rbac atomically; with `check`, writes nothing and only reports what would change. */
export function generateRbac(options: GenerateRbacOptions): Promise<GenerateRbacResult> {
  return runGenerator(rbacGenerator, options);
}

export type GenerateRbacResult = ResultOf<RbacPlan>;

function planRbacIn(ctx: GeneratorContext, options: GenerateRbacOptions): RbacPlan {
  const project = ctx.project();
  const roleName = options.roleName ?? project?.rbac?.roleName ?? DEFAULT_ROLE_NAME;
  const namespace = options.namespace ?? (project ? `${project.projectName}-system` : 'system');
  const namespaceErrors = dns1123LabelErrors(namespace);
  if (namespaceErrors.length > 0) {
    throw new OpGenError(
      `--namespace ${namespace}: a namespace is a DNS-1123 label: ${namespaceErrors.join('; ')}`,
    );
  }
  const outputDir = resolve(options.cwd, options.outDir ?? DEFAULT_OUTPUT_DIR);
  const source = ctx.sources.projectProgram(options.paths ?? DEFAULT_PATHS);
  const evaluator = new StaticEvaluator(source.checker, (f) => relative(options.cwd, f).split(sep).join('/'));

  // A source that does not parse is never read as if it did (`.for(Kind))))` would still give rules);
  // the API sources, where kind descriptors come from, must also resolve every name they use.
  const display = (f: string): string => relative(options.cwd, f).split(sep).join('/');
  assertSourcesCompile(
    ts,
    source.program,
    source.files.map((f) => f.sourceFile),
    { names: false, display },
  );
  // The API sources (files beside a groupversion.ts) are read as the CRD walk reads them, in the same
  // program (source/source-set.ts).
  assertSourcesCompile(
    ts,
    source.program,
    source.apiFiles.flatMap((f) => source.program.getSourceFile(f) ?? []),
    { names: true, display },
  );

  const problems = new ProblemCollector();
  const rules: RbacRule[] = [];
  for (const file of source.files) {
    rules.push(...problems.attempt(() => rbacMarkerRules(file.sourceFile, file.display), []));
    if (options.infer !== false)
      rules.push(
        ...problems.attempt(
          () => rulesForUses(findBuilderUses(file.sourceFile, file.display, evaluator)),
          [],
        ),
      );
  }
  for (const rule of rules)
    problems.attempt(
      () => validateRule(rule, { allowWildcards: options.allowWildcards ?? false }),
      undefined,
    );
  problems.throwIfAny();

  const roles = rolesFromRules(rules, roleName);
  const manifests = renderRbacManifests({
    roles,
    serviceAccount: options.serviceAccount ?? DEFAULT_SERVICE_ACCOUNT,
    namespace,
    ...(project ? { projectName: project.projectName } : {}),
    extraResources: otherYamlFiles(outputDir),
  });
  return {
    rules,
    roles,
    files: manifests.map((m) => ({ path: join(outputDir, m.name), content: m.content })),
    owned: generatedFiles(outputDir),
  };
}

const GENERATED = new Set([
  'service_account.yaml',
  'role.yaml',
  'role_binding.yaml',
  'leader_election_role.yaml',
  'leader_election_role_binding.yaml',
  'metrics_auth_role.yaml',
  'metrics_auth_role_binding.yaml',
  'metrics_reader_role.yaml',
  'kustomization.yaml',
]);

/** The files of the output folder `generate rbac` writes. */
function generatedFiles(outputDir: string): string[] {
  if (!existsSync(outputDir)) return [];
  return readdirSync(outputDir)
    .filter((name) => GENERATED.has(name))
    .map((name) => join(outputDir, name))
    .sort();
}

/** YAML files someone else put in the output folder (e.g. editor/viewer roles from `create api`). */
function otherYamlFiles(outputDir: string): string[] {
  if (!existsSync(outputDir)) return [];
  return readdirSync(outputDir)
    .filter((name) => /\.ya?ml$/.test(name) && !GENERATED.has(name))
    .sort();
}
