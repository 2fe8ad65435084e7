import type { CommandModule } from './command-module.ts';
import { contextFor } from './context.ts';
import { runGenerator, withOutputFlags, type OutputFlags } from './run-generator.ts';

interface ClientFlags extends OutputFlags {
  apiDir?: string;
  out?: string;
}

/** `op-gen generate client`: a typed client module per served kind of the API folder. */
export const generateClientCommand: CommandModule = {
  register(parent, io) {
    withOutputFlags(
      parent
        .command('client')
        .description('generate typed clients (and informers/listers) for the kinds of the API types')
        .option('--api-dir <dir>', 'API source folder (default: apiDir from op-gen.yaml, else src/api)')
        .option('--out <dir>', 'output folder (default: src/clients)'),
    ).action(async (flags: ClientFlags, command) => {
      await runGenerator(
        contextFor(command, io),
        'client',
        {
          ...(flags.apiDir === undefined ? {} : { apiDir: flags.apiDir }),
          ...(flags.out === undefined ? {} : { outDir: flags.out }),
        },
        flags,
      );
    });
  },
};
