import { resolve } from 'node:path';
import type { Command } from 'commander';
import { OpGenError, UsageError } from '../errors.ts';
import type { CommandModule } from './command-module.ts';
import { contextFor, type CommandIo } from './context.ts';

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** `op-gen generate types`: TypeScript types from CRDs (files, stdin or the cluster). */
export const generateTypesCommand: CommandModule = {
  register(parent: Command, io: CommandIo): void {
    parent
      .command('types')
      .description('generate TypeScript types from CustomResourceDefinitions (yours or third-party)')
      .option('--from <path>', 'a CRD file, a directory of CRD files, or - for stdin')
      .option('--from-cluster <crd-names...>', 'read CRDs by name from the current kubeconfig cluster')
      .option('--out <dir>', 'output folder', 'src/types')
      .option('--check', 'write nothing; exit 1 listing the files that would change (for CI)')
      .action(
        async (
          opts: { from?: string; fromCluster?: string[]; out: string; check?: boolean },
          command: Command,
        ) => {
          const ctx = contextFor(command, io);
          if (!opts.from && !opts.fromCluster)
            throw new UsageError('generate types needs --from <file|dir|-> or --from-cluster <crd-name...>');
          const { generateTypes, readCrds } = await import('../generate/types/index.ts');
          const crds = opts.from
            ? readCrds(
                opts.from === '-' ? '-' : resolve(ctx.cwd, opts.from),
                opts.from === '-' ? await readStdin() : undefined,
              )
            : [];
          if (opts.fromCluster) {
            const { readCrdsFromCluster } = await import('../generate/types/from-cluster.ts');
            crds.push(...(await readCrdsFromCluster(opts.fromCluster)));
          }
          const result = await generateTypes({
            cwd: ctx.cwd,
            crds,
            outDir: opts.out,
            check: opts.check === true,
          });
          if (opts.check) {
            if (result.changed.length > 0) {
              throw new OpGenError(
                `generated types are out of date: ${result.changed.join(', ')}. Run \`op-gen generate types\` and commit the result.`,
              );
            }
            ctx.stdout.write(`types up to date (${result.files.length} files)\n`);
            return;
          }
          for (const f of result.files)
            ctx.stdout.write(`${result.changed.includes(f) ? 'wrote' : 'unchanged'} ${f}\n`);
        },
      );
  },
};
