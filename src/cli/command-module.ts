import type { Command } from 'commander';
import type { CommandIo } from './context.ts';

/**
 * One CLI command, plugged in by adding it to commands.ts.
 * `parent` is the program or, for `generate <x>`, the `generate` command.
 */
export interface CommandModule {
  register(parent: Command, io: CommandIo): void;
}
