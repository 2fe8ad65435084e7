import { resolve } from 'node:path';
import type { Command } from 'commander';
import type { CommandModule } from './command-module.ts';
import { contextFor } from './context.ts';

interface UpgradeFlags {
  from?: string;
  dryRun?: boolean;
}

/** `op-gen upgrade`: the newer scaffold's changes merged into the project (see docs/upgrade.md). */
export const upgradeCommand: CommandModule = {
  register(parent, io) {
    parent
      .command('upgrade')
      .description(
        'take the scaffold changes of this op-gen: replay the recorded init/create commands with the old and this op-gen and merge three ways (git merge-file)',
      )
      .option(
        '--from <path>',
        'the op-gen the project was made with: a checkout (built), an installed op-gen folder or op-gen-<version>.tgz from npm pack',
      )
      .option('--dry-run', 'print what would be updated, added, deleted and conflicted; write nothing')
      .action(async (flags: UpgradeFlags, command: Command) => {
        const ctx = contextFor(command, io);
        const { upgradeProject } = await import('../scaffold/upgrade.ts');
        upgradeProject(
          {
            dir: ctx.cwd,
            ...(flags.from !== undefined ? { from: resolve(ctx.cwd, flags.from) } : {}),
            ...(flags.dryRun ? { dryRun: true } : {}),
          },
          { stdout: ctx.stdout },
        );
      });
  },
};
