import type { Command } from 'commander';
import { OpGenError } from '../errors.ts';
import { AFTER_CREATE_WEBHOOK } from '../generate/generator-names.ts';
import { generatorsFor } from './create-api.ts';
import type { CommandModule } from './command-module.ts';
import { contextFor } from './context.ts';

interface CreateWebhookFlags {
  group?: string;
  version?: string;
  kind?: string;
  defaulting?: boolean;
  programmaticValidation?: boolean;
  conversion?: boolean;
  spoke?: string[];
  force?: boolean;
  skipGenerate?: boolean;
  check?: boolean;
}

/** `op-gen create webhook`: defaulting, validation and conversion handlers for a kind (operator-sdk's flags). */
export const createWebhookCommand: CommandModule = {
  register(parent, io) {
    const create =
      parent.commands.find((c) => c.name() === 'create') ??
      parent.command('create').description('add a resource to the project');
    create
      .command('webhook')
      .description(
        'add defaulting, validation or conversion webhooks for a kind: handlers and tests in src/webhooks, registration, config; then run generate webhook',
      )
      .option('--group <group>', 'API group without the domain (e.g. cache)')
      .option('--version <version>', 'the version the webhooks serve; with --conversion, the hub')
      .option('--kind <Kind>', 'kind, in PascalCase (e.g. Memcached)')
      .option('--defaulting', 'a defaulting (mutating) webhook')
      .option('--programmatic-validation', 'a validating webhook')
      .option('--conversion', 'a conversion webhook: --version is the hub, --spoke the other versions')
      .option(
        '--spoke <versions>',
        'with --conversion: the versions converted to and from the hub, comma-separated',
        (value: string, previous: string[] = []) => [
          ...previous,
          ...value
            .split(',')
            .map((v) => v.trim())
            .filter(Boolean),
        ],
      )
      .option('--force', 'write handlers again that exist already (their changes are replaced)')
      .option('--skip-generate', 'do not run op-gen generate webhook afterwards')
      .option('--check', 'write nothing; list the files it would create or change; exit 1 when there is one')
      .action(async (flags: CreateWebhookFlags, command: Command) => {
        const ctx = contextFor(command, io);
        const { createWebhook } = await import('../scaffold/create-webhook.ts');
        const result = await createWebhook(
          {
            dir: ctx.cwd,
            ...(flags.group !== undefined ? { group: flags.group } : {}),
            ...(flags.version !== undefined ? { version: flags.version } : {}),
            ...(flags.kind !== undefined ? { kind: flags.kind } : {}),
            defaulting: flags.defaulting === true,
            validation: flags.programmaticValidation === true,
            conversion: flags.conversion === true,
            spokes: flags.spoke ?? [],
            force: flags.force === true,
            skipGenerate: flags.skipGenerate === true,
            check: flags.check === true,
          },
          {
            stdout: ctx.stdout,
            stderr: ctx.stderr,
            generators: generatorsFor(ctx, AFTER_CREATE_WEBHOOK),
          },
        );
        if (result.outOfDate.length > 0)
          throw new OpGenError(`create webhook --check: ${result.outOfDate.length} file(s) would change`);
      });
  },
};
