import { relative } from 'node:path';
import { OpGenError, UsageError } from '../errors.ts';
import type { CommandModule } from './command-module.ts';
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
          const shown = (p: string): string =>
            relative(ctx.cwd, p).startsWith('..') ? p : relative(ctx.cwd, p);
          if (opts.check) {
            if (result.changed.length > 0) {
              throw new OpGenError(
                `${result.changed.length} type file(s) out of date:\n${result.changed.map((f) => `  ${shown(f)}`).join('\n')}\nRun \`op-gen generate types\` and commit the result.`,
              );
            }
            ctx.stdout.write(`${result.files.length} type file(s) up to date\n`);
            return;
          }
          for (const f of result.files)
            ctx.stdout.write(
              `${result.changed.includes(f.path) ? 'wrote    ' : 'unchanged'} ${shown(f.path)}\n`,
            );
        },
      );
  },
};
