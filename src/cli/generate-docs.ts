import { readProjectFile } from '../shared/project-file.ts';
import type { CommandModule } from './command-module.ts';
import { contextFor } from './context.ts';
import { reportGenerated } from './report-generated.ts';

/** `op-gen generate docs`: the API reference in Markdown, made from the generated CRDs. */
export const generateDocsCommand: CommandModule = {
  register(parent, io) {
    parent
      .command('docs')
      .description(
        'generate an API reference in Markdown, one page per group version (docs/api/<group>-<version>.md)',
      )
      .option('--api-dir <dir>', 'API source folder (default: apiDir from op-gen.yaml, else src/api)')
      .option('--out <dir>', 'output folder', 'docs/api')
      .option('--samples <dir>', 'sample objects shown as examples', 'config/samples')
      .option('--check', 'write nothing; exit 1 listing the files that would change (for CI)')
      .action(async (opts: { apiDir?: string; out: string; samples: string; check?: boolean }, command) => {
        const ctx = contextFor(command, io);
        const apiDir = opts.apiDir ?? readProjectFile(ctx.cwd)?.apiDir ?? 'src/api';
        const { generateDocs } = await import('../generate/docs/index.ts');
        const result = await generateDocs({
          cwd: ctx.cwd,
          apiDir,
          outDir: opts.out,
          samplesDir: opts.samples,
          check: opts.check === true,
        });
        reportGenerated(ctx, result, {
          check: opts.check === true,
          what: 'API reference',
          command: 'op-gen generate docs',
        });
      });
  },
};
