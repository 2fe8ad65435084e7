import { relative } from 'node:path';
import { OpGenError } from '../errors.ts';
import { readProjectFile } from '../shared/project-file.ts';
import type { CommandModule } from './command-module.ts';
import { contextFor } from './context.ts';

/** `op-gen generate client`: a typed client module per served kind of the API folder. */
export const generateClientCommand: CommandModule = {
  register(parent, io) {
    parent
      .command('client')
      .description('generate typed clients (and informers/listers) for the kinds of the API types')
      .option('--api-dir <dir>', 'API source folder (default: apiDir from op-gen.yaml, else src/api)')
      .option('--out <dir>', 'output folder', 'src/clients')
      .option('--check', 'write nothing; exit 1 listing the files that would change (for CI)')
      .action(async (opts: { apiDir?: string; out: string; check?: boolean }, command) => {
        const ctx = contextFor(command, io);
        const apiDir = opts.apiDir ?? readProjectFile(ctx.cwd)?.apiDir ?? 'src/api';
        const { generateClients } = await import('../generate/client/index.ts');
        const result = await generateClients({
          cwd: ctx.cwd,
          apiDir,
          out: opts.out,
          check: opts.check === true,
        });
        const shown = (p: string): string =>
          relative(ctx.cwd, p).startsWith('..') ? p : relative(ctx.cwd, p);
        if (opts.check) {
          if (result.changed.length > 0) {
            throw new OpGenError(
              `${result.changed.length} client file(s) out of date:\n${result.changed.map((f) => `  ${shown(f)}`).join('\n')}\nRun \`op-gen generate client\` and commit the result.`,
            );
          }
          ctx.stdout.write(`${result.files.length} client file(s) up to date\n`);
          return;
        }
        for (const f of result.files)
          ctx.stdout.write(
            `${result.changed.includes(f.path) ? 'wrote    ' : 'unchanged'} ${shown(f.path)}\n`,
          );
      });
  },
};
