import type { CommandModule } from './command-module.ts';
import { contextFor } from './context.ts';
import { reportGenerated } from './report-generated.ts';

/**
 * `op-gen generate webhook`: config/webhook, config/certmanager and the CRD conversion patches from
 * the @webhook markers and op-gen.yaml. The generator loads only when run.
 */
export const generateWebhookCommand: CommandModule = {
  register(parent, io) {
    parent
      .command('webhook')
      .description(
        'generate config/webhook (webhook configurations, Service), config/certmanager and CRD conversion patches from @webhook markers and op-gen.yaml',
      )
      .option('--paths <dirs...>', 'source folders or files to scan for @webhook markers', ['src'])
      .option('--check', 'write nothing; exit 1 listing the files that would change (for CI)')
      .action(async (opts: { paths: string[]; check?: boolean }, command) => {
        const ctx = contextFor(command, io);
        const { generateWebhooks } = await import('../generate/webhook/index.ts');
        const result = generateWebhooks({ cwd: ctx.cwd, paths: opts.paths, check: opts.check === true });
        reportGenerated(ctx, result, {
          check: opts.check === true,
          what: 'webhook',
          command: 'op-gen generate webhook',
        });
      });
  },
};
