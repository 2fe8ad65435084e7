import { UsageError } from '../errors.ts';
import type { CommandModule } from './command-module.ts';
import { reportGenerated } from './report-generated.ts';
import { contextFor } from './context.ts';

const collect = (value: string, previous: string[] = []): string[] => [...previous, value];

/** `op-gen generate types`: TypeScript types for any CRD (files, stdin or the current cluster). */
export const generateTypesCommand: CommandModule = {
  register(parent, io) {
    parent
      .command('types')
      .description('generate TypeScript types and kind descriptors for CRDs (yours or third-party ones)')
      .option('--from <path>', 'CRD YAML file, a folder of them, or - for stdin (repeatable)', collect)
      .option(
        '--from-cluster <crd-name>',
        'read the CRD (e.g. certificates.cert-manager.io) from the current kubeconfig (repeatable)',
        collect,
      )
      .option('--out <dir>', 'output folder', 'src/types')
      .option('--check', 'write nothing; exit 1 listing the files that would change (for CI)')
      .action(
        async (opts: { from?: string[]; fromCluster?: string[]; out: string; check?: boolean }, command) => {
          const ctx = contextFor(command, io);
          if (!opts.from && !opts.fromCluster) {
            throw new UsageError('pass --from <crd.yaml|dir|-> or --from-cluster <crd-name>');
          }
          const { generateTypes } = await import('../generate/types/index.ts');
          const result = await generateTypes({
            cwd: ctx.cwd,
            from: opts.from ?? [],
            fromCluster: opts.fromCluster ?? [],
            out: opts.out,
            check: opts.check === true,
          });
          reportGenerated(
            ctx,
            { files: result.files.map((f) => f.path), changed: result.changed },
            { check: opts.check === true, what: 'type', command: 'op-gen generate types' },
          );
        },
      );
  },
};
