import { OpGenError } from '../errors.ts';
import type { CommandModule } from './command-module.ts';
import { contextFor } from './context.ts';

interface CrdDiffFlags {
  base?: string;
  dir?: string;
  generate?: boolean;
  apiDir?: string;
  acknowledgements?: string;
  json?: boolean;
}

/**
 * `op-gen crd diff`: the changes between two sets of CRDs, judged as OLM's upgrade preflight and
 * crdify judge them; exit 1 on a breaking change that is not acknowledged.
 */
export const crdCommand: CommandModule = {
  register(parent, io) {
    const crd = parent.command('crd').description('work with the generated CustomResourceDefinitions');
    crd
      .command('diff')
      .description(
        'report breaking, risky and safe changes between two CRD files or folders, or against a git ref (--base)',
      )
      .argument('[old]', 'the old CRDs: a YAML file or a folder of them')
      .argument('[new]', 'the new CRDs: a YAML file or a folder of them')
      .option('--base <git-ref>', 'compare the CRDs in --dir with those committed at <git-ref>')
      .option('--dir <dir>', 'the generated CRDs (with --base or --generate)', 'config/crd/bases')
      .option('--generate', 'the new side is generated from the API sources now (writes nothing)')
      .option(
        '--api-dir <dir>',
        'API source folder for --generate (default: apiDir from op-gen.yaml, else src/api)',
      )
      .option(
        '--acknowledgements <file>',
        'breaking changes accepted on purpose (default: .op-gen/crd-diff.yaml if present)',
      )
      .option('--json', 'print the report as JSON')
      .action(
        async (oldPath: string | undefined, newPath: string | undefined, opts: CrdDiffFlags, command) => {
          const ctx = contextFor(command, io);
          const { crdDiff, renderJson, renderText } = await import('../crd-diff/index.ts');
          const { readProjectFile } = await import('../project/project-file.ts');
          const apiDir = opts.apiDir ?? (opts.generate ? readProjectFile(ctx.cwd)?.apiDir : undefined);
          const report = await crdDiff({
            cwd: ctx.cwd,
            ...(oldPath === undefined ? {} : { old: oldPath }),
            ...(newPath === undefined ? {} : { new: newPath }),
            ...(opts.base === undefined ? {} : { base: opts.base }),
            ...(opts.dir === undefined ? {} : { dir: opts.dir }),
            ...(opts.generate ? { generate: true } : {}),
            ...(apiDir === undefined ? {} : { apiDir }),
            ...(opts.acknowledgements === undefined ? {} : { acknowledgements: opts.acknowledgements }),
          });
          ctx.stdout.write(opts.json ? renderJson(report) : renderText(report));
          if (report.failed) {
            const open = report.counts.breaking - report.counts.acknowledged;
            throw new OpGenError(
              `${open} breaking change(s) not acknowledged. Keep the old behaviour, serve a new version, or acknowledge each in .op-gen/crd-diff.yaml with a reason (see docs/crd-diff.md).`,
            );
          }
        },
      );
  },
};
