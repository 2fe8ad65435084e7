import type { Command } from 'commander';
import { OpGenError, UsageError } from '../errors.ts';
import type { CommandModule } from './command-module.ts';
import { contextFor, type CommandContext, type CommandIo } from './context.ts';
import { reportGenerated, reportingProblems, reportJson } from './report-generated.ts';
import { rendererOf, withRendererFlag } from './renderer-flag.ts';
import { withOutputFlags } from './run-generator.ts';

interface BundleFlags {
  version?: string;
  channels: string;
  defaultChannel?: string;
  package?: string;
  image?: string;
  replaces?: string;
  skipRange?: string;
  skips?: string;
  out: string;
  createdAt?: string;
  renderer: string;
  check?: boolean;
  json?: boolean;
}

interface ValidateFlags {
  optionalSuite?: string;
  olmV1?: boolean;
  previous?: string;
  previousBundle?: string;
  acknowledgements?: string;
  json?: boolean;
}

/** A comma-separated flag as a list (blanks dropped). */
function list(s: string | undefined): string[] {
  return (s ?? '')
    .split(',')
    .map((x) => x.trim())
    .filter((x) => x !== '');
}

/** `op-gen bundle`: flags to BundleOptions, then generateBundle and the report. */
async function runBundle(ctx: CommandContext, flags: BundleFlags): Promise<void> {
  const { defaultBundleVersion, generateBundle } = await import('../bundle/index.ts');
  const version = flags.version ?? defaultBundleVersion(ctx.cwd);
  if (!version)
    throw new UsageError(
      'bundle needs --version <semver> (or a version in package.json), e.g. --version 0.1.0',
    );
  const check = flags.check === true;
  const renderer = rendererOf(flags.renderer);
  const result = await reportingProblems(ctx, flags.json ? { generator: 'bundle', check } : undefined, () =>
    generateBundle(ctx.cwd, {
      version,
      channels: list(flags.channels),
      ...(flags.defaultChannel ? { defaultChannel: flags.defaultChannel } : {}),
      ...(flags.package ? { packageName: flags.package } : {}),
      ...(flags.image ? { image: flags.image } : {}),
      ...(flags.replaces ? { replaces: flags.replaces } : {}),
      ...(flags.skipRange ? { skipRange: flags.skipRange } : {}),
      ...(flags.skips ? { skips: list(flags.skips) } : {}),
      outDir: flags.out,
      renderer,
      ...(flags.createdAt ? { createdAt: flags.createdAt } : {}),
      check,
    }),
  );
  for (const w of result.warnings) ctx.stderr.write(`warning: ${w}\n`);
  reportGenerated(
    ctx,
    result,
    { check, json: flags.json === true, what: 'bundle', command: 'op-gen bundle' },
    { warnings: result.warnings },
  );
}

/** `op-gen bundle validate [dir]`: flag combinations checked, then validateRelease and the report. */
async function runValidate(
  ctx: CommandContext,
  dir: string | undefined,
  flags: ValidateFlags,
): Promise<void> {
  if (flags.optionalSuite && flags.optionalSuite !== 'operatorhub')
    throw new UsageError(`--optional-suite ${flags.optionalSuite}: the only optional suite is operatorhub`);
  if (flags.acknowledgements && !flags.previous)
    throw new UsageError('--acknowledgements goes with --previous <bundle dir or catalog>');
  if (flags.previousBundle && !flags.previous)
    throw new UsageError('--previous-bundle goes with --previous <catalog>');
  const { validateRelease } = await import('../bundle/index.ts');
  const { findings, errors, warnings } = await validateRelease(
    {
      cwd: ctx.cwd,
      ...(dir === undefined ? {} : { dir }),
      ...(flags.optionalSuite ? { optionalSuites: [flags.optionalSuite] } : {}),
      ...(flags.olmV1 ? { olmV1: true } : {}),
      ...(flags.previous ? { previous: flags.previous } : {}),
      ...(flags.previousBundle ? { previousBundle: flags.previousBundle } : {}),
      ...(flags.acknowledgements ? { acknowledgements: flags.acknowledgements } : {}),
    },
    // catalog/ loads only for a catalog as --previous.
    async (cwd, catalog, bundle) =>
      (await import('../catalog/index.ts')).previousFromCatalog(cwd, catalog, bundle),
  );
  if (flags.json) reportJson(ctx, { ok: errors === 0, errors, warnings, findings });
  else
    for (const f of findings)
      ctx.stdout.write(`${f.severity === 'error' ? 'ERROR  ' : 'WARNING'} [${f.rule}] ${f.message}\n`);
  if (errors > 0)
    throw new OpGenError(`bundle validation failed: ${errors} error(s), ${warnings} warning(s)`);
  if (!flags.json) ctx.stdout.write(`bundle valid: 0 errors, ${warnings} warning(s)\n`);
}

/** `op-gen bundle` and `op-gen bundle validate`. The bundle code loads only when run. */
export const bundleCommand: CommandModule = {
  register(parent: Command, io: CommandIo): void {
    const bundle = parent
      .command('bundle')
      .description(
        'write an OLM bundle (CSV, CRDs, annotations, bundle.Dockerfile, scorecard config) from config/',
      )
      .option(
        '--version <semver>',
        "the operator version (the CSV is <package>.v<version>); default: package.json's",
      )
      .option('--channels <list>', 'comma-separated channels', 'alpha')
      .option('--default-channel <name>', 'the default channel (one of --channels)')
      .option('--package <name>', 'package name (default: the project name)')
      .option('--image <image>', "the operator image (default: the manager Deployment's)")
      .option('--replaces <csv>', 'the CSV this version upgrades from, e.g. my-operator.v0.1.0')
      .option('--skip-range <range>', 'olm.skipRange, e.g. ">=0.1.0 <0.2.0"')
      .option('--skips <list>', 'comma-separated CSV names this version skips')
      .option('--out <dir>', 'bundle folder', 'bundle')
      .option('--created-at <time>', 'RFC 3339 createdAt (default: now), for reproducible bundles');
    withOutputFlags(withRendererFlag(bundle, 'op-gen')).action((flags: BundleFlags, command: Command) =>
      runBundle(contextFor(command, io), flags),
    );
    bundle
      .command('validate [dir]')
      .description("check a bundle against the operator-framework validators' rules (default dir: bundle)")
      .option('--optional-suite <name>', 'also run an optional suite: operatorhub')
      .option(
        '--olm-v1',
        'fail on what OLM v1 (ClusterExtension) refuses or ignores (by default those are warnings)',
      )
      .option(
        '--previous <bundle dir or catalog>',
        "the previous release's bundle folder, or a file-based catalog (its default channel's head): fail on a breaking change to its CRDs (crd diff) not acknowledged",
      )
      .option(
        '--previous-bundle <name>',
        'with a catalog as --previous: the bundle to compare with, instead of the default channel head',
      )
      .option(
        '--acknowledgements <file>',
        'with --previous: breaking changes accepted on purpose (default: .op-gen/crd-diff.yaml if present)',
      )
      .option('--json', 'print the findings as JSON on stdout')
      .action((dir: string | undefined, flags: ValidateFlags, command: Command) =>
        runValidate(contextFor(command, io), dir, flags),
      );
  },
};
