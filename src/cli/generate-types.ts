import { UsageError } from '../errors.ts';
import type { CommandModule } from './command-module.ts';
import { contextFor } from './context.ts';
import { runGenerator, withOutputFlags, type OutputFlags } from './run-generator.ts';

const collect = (value: string, previous: string[] = []): string[] => [...previous, value];

interface TypesFlags extends OutputFlags {
  from?: string[];
  fromCluster?: string[];
  out?: string;
}

/** `op-gen generate types`: TypeScript types for any CRD (files, stdin or the current cluster). */
export const generateTypesCommand: CommandModule = {
  register(parent, io) {
    withOutputFlags(
      parent
        .command('types')
        .description('generate TypeScript types and kind descriptors for CRDs (yours or third-party ones)')
        .option('--from <path>', 'CRD YAML file, a folder of them, or - for stdin (repeatable)', collect)
        .option(
          '--from-cluster <crd-name>',
          'read the CRD (e.g. certificates.cert-manager.io) from the current kubeconfig (repeatable)',
          collect,
        )
        .option('--out <dir>', 'output folder (default: src/types)'),
    ).action(async (flags: TypesFlags, command) => {
      if (!flags.from && !flags.fromCluster) {
        throw new UsageError('pass --from <crd.yaml|dir|-> or --from-cluster <crd-name>');
      }
      await runGenerator(
        contextFor(command, io),
        'types',
        {
          from: flags.from ?? [],
          fromCluster: flags.fromCluster ?? [],
          ...(flags.out === undefined ? {} : { outDir: flags.out }),
        },
        flags,
      );
    });
  },
};
