import type { Command } from 'commander';
import { OpGenError } from '../errors.ts';
import { readProjectFile } from '../shared/project-file.ts';
import type { CommandModule } from './command-module.ts';
import { contextFor, type CommandIo } from './context.ts';

/** `op-gen generate client`: typed clients for the project's kinds. The generator loads only when run. */
export const generateClientCommand: CommandModule = {
  register(parent: Command, io: CommandIo): void {
    parent
      .command('client')
      .description('generate typed clients and cache listers for the API kinds (src/api/<group>/<version>/)')
      .option('--api-dir <dir>', 'API source folder (default: apiDir from op-gen.yaml, else src/api)')
      .option('--out <dir>', 'output folder', 'src/client')
      .option('--check', 'write nothing; exit 1 listing the files that would change (for CI)')
      .action(async (opts: { apiDir?: string; out: string; check?: boolean }, command: Command) => {
        const ctx = contextFor(command, io);
        const apiDir = opts.apiDir ?? readProjectFile(ctx.cwd)?.apiDir ?? 'src/api';
        const { generateClients } = await import('../generate/client/index.ts');
        const result = await generateClients({
          cwd: ctx.cwd,
          apiDir,
          outDir: opts.out,
          check: opts.check === true,
        });
        if (opts.check) {
          if (result.changed.length > 0) {
            throw new OpGenError(
              `generated clients are out of date: ${result.changed.join(', ')}. Run \`op-gen generate client\` and commit the result.`,
            );
          }
          ctx.stdout.write(`clients up to date (${result.files.length} files)\n`);
          return;
        }
        for (const f of result.files)
          ctx.stdout.write(`${result.changed.includes(f) ? 'wrote' : 'unchanged'} ${f}\n`);
      });
  },
};
