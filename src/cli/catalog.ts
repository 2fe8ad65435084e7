import type { Command } from 'commander';
import { OpGenError, UsageError } from '../errors.ts';
import type { CommandModule } from './command-module.ts';
import { contextFor, type CommandIo } from './context.ts';
import { reportGenerated, reportingProblems, reportJson } from './report-generated.ts';
import { withOutputFlags } from './run-generator.ts';

interface CatalogFlags {
  bundleImage?: string;
  template: string;
  granularity: string;
  out: string;
  check?: boolean;
  json?: boolean;
  bundleObjects?: boolean;
  deprecations?: string;
  from?: string;
}

/** `op-gen catalog` and `op-gen catalog validate` (docs/catalog.md). The catalog code loads only when run. */
export const catalogCommand: CommandModule = {
  register(parent: Command, io: CommandIo): void {
    const catalog = parent
      .command('catalog')
      .description(
        'write a file-based catalog (olm.package, olm.channel, olm.bundle) from the bundle folders of this and earlier releases',
      )
      .argument('<bundle-dir...>', 'bundle folders, one per release (any order)')
      .option(
        '--bundle-image <ref>',
        'bundle image of each release, {version} replaced, e.g. example.com/op-bundle:v{version}',
      )
      .option('--template <name>', "opm's template to follow: basic or semver", 'basic')
      .option('--granularity <minor|major>', 'semver: one channel per minor or per major version', 'minor')
      .option('--out <dir>', 'catalog folder (the file is <out>/<package>/catalog.yaml)', 'catalog')
      .option(
        '--from <template file>',
        "an opm template (olm.template.basic or olm.semver) to render; its bundle images are the folders' --bundle-image",
      )
      .option(
        '--deprecations <file>',
        "the package's olm.deprecations blob (YAML): deprecated bundles, channels or the package, each with a message",
      )
      .option(
        '--bundle-objects',
        "also carry each bundle's CRDs as olm.bundle.object properties (what bundle validate --previous <catalog> reads)",
      );
    withOutputFlags(catalog).action(async (dirs: string[], flags: CatalogFlags, command: Command) => {
      const ctx = contextFor(command, io);
      if (!flags.bundleImage)
        throw new UsageError(
          'catalog needs --bundle-image <ref with {version}>, e.g. example.com/my-operator-bundle:v{version}',
        );
      if (flags.template !== 'basic' && flags.template !== 'semver')
        throw new UsageError(`--template ${flags.template}: use basic or semver`);
      if (flags.granularity !== 'minor' && flags.granularity !== 'major')
        throw new UsageError(`--granularity ${flags.granularity}: use minor or major`);
      if (
        flags.from &&
        (command.getOptionValueSource('template') === 'cli' ||
          command.getOptionValueSource('granularity') === 'cli')
      )
        throw new UsageError(
          '--from takes the template and its channels from the file: give no --template or --granularity',
        );
      const check = flags.check === true;
      const { template, granularity } = flags;
      const bundleImage = flags.bundleImage;
      const result = await reportingProblems(
        ctx,
        flags.json ? { generator: 'catalog', check } : undefined,
        async () => {
          const { generateCatalog } = await import('../catalog/index.ts');
          return generateCatalog(ctx.cwd, {
            bundles: dirs,
            bundleImage,
            template,
            granularity,
            outDir: flags.out,
            check,
            ...(flags.bundleObjects ? { bundleObjects: true } : {}),
            ...(flags.deprecations ? { deprecations: flags.deprecations } : {}),
            ...(flags.from ? { from: flags.from } : {}),
          });
        },
      );
      reportGenerated(ctx, result, {
        check,
        json: flags.json === true,
        what: 'catalog',
        command: 'op-gen catalog',
      });
    });
    catalog
      .command('validate')
      .description("check a file-based catalog against operator-registry's declcfg rules")
      .argument('<file>', 'the catalog file (YAML)')
      .option('--json', 'print the problems as JSON on stdout')
      .action(async (file: string, flags: { json?: boolean }, command: Command) => {
        const ctx = contextFor(command, io);
        const { validateCatalogFile } = await import('../catalog/index.ts');
        const problems = validateCatalogFile(ctx.cwd, file);
        if (flags.json) reportJson(ctx, { ok: problems.length === 0, problems });
        else for (const p of problems) ctx.stdout.write(`ERROR ${p.message}\n`);
        if (problems.length > 0)
          throw new OpGenError(`catalog validation failed: ${problems.length} problem(s)`);
        if (!flags.json) ctx.stdout.write('catalog valid\n');
      });
  },
};
