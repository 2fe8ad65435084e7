import type { CommandModule } from './command-module.ts';
import { contextFor } from './context.ts';
import { runGenerator, withOutputFlags, type OutputFlags } from './run-generator.ts';

/**
 * `op-gen generate webhook`: config/webhook, config/certmanager and the CRD conversion patches from
 * the @webhook markers and op-gen.yaml. The generator loads only when run.
 */
export const generateWebhookCommand: CommandModule = {
  register(parent, io) {
    withOutputFlags(
      parent
        .command('webhook')
        .description(
          'generate config/webhook (webhook configurations, Service), config/certmanager and CRD conversion patches from @webhook markers and op-gen.yaml',
        )
        .option('--paths <dirs...>', 'source folders or files to scan for @webhook markers', ['src']),
    ).action(async (flags: OutputFlags & { paths: string[] }, command) => {
      await runGenerator(contextFor(command, io), 'webhook', { paths: flags.paths }, flags);
    });
  },
};
