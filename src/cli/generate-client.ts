import { readProjectFile } from '../shared/project-file.ts';
import type { CommandModule } from './command-module.ts';
import { reportGenerated } from './report-generated.ts';
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
        reportGenerated(
          ctx,
          { files: result.files.map((f) => f.path), changed: result.changed, removed: result.removed },
          { check: opts.check === true, what: 'client', command: 'op-gen generate client' },
        );
      });
  },
};
