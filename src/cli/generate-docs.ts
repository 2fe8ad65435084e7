import type { CommandModule } from './command-module.ts';
import { contextFor } from './context.ts';
import { runGenerator, withOutputFlags, type OutputFlags } from './run-generator.ts';

interface DocsFlags extends OutputFlags {
  apiDir?: string;
  out?: string;
  samples?: string;
}

/** `op-gen generate docs`: the API reference in Markdown, made from the generated CRDs. */
export const generateDocsCommand: CommandModule = {
  register(parent, io) {
    withOutputFlags(
      parent
        .command('docs')
        .description(
          'generate an API reference in Markdown, one page per group version (docs/api/<group>-<version>.md)',
        )
        .option('--api-dir <dir>', 'API source folder (default: apiDir from op-gen.yaml, else src/api)')
        .option('--out <dir>', 'output folder (default: docs/api)')
        .option('--samples <dir>', 'sample objects shown as examples (default: config/samples)'),
    ).action(async (flags: DocsFlags, command) => {
      await runGenerator(
        contextFor(command, io),
        'docs',
        {
          ...(flags.apiDir === undefined ? {} : { apiDir: flags.apiDir }),
          ...(flags.out === undefined ? {} : { outDir: flags.out }),
          ...(flags.samples === undefined ? {} : { samplesDir: flags.samples }),
        },
        flags,
      );
    });
  },
};
