import { resolve } from 'node:path';
import type { Command } from 'commander';

/** What every command gets: where it runs and where it writes. */
export interface CommandContext {
  readonly cwd: string;
  readonly stdout: NodeJS.WritableStream;
  readonly stderr: NodeJS.WritableStream;
}

export interface CommandIo {
  readonly stdout: NodeJS.WritableStream;
  readonly stderr: NodeJS.WritableStream;
  readonly cwd: string;
}

/** Resolves the global --cwd option for the command being run. */
export function contextFor(command: Command, io: CommandIo): CommandContext {
  const opts = command.optsWithGlobals<{ cwd?: string }>();
  return { cwd: resolve(io.cwd, opts.cwd ?? '.'), stdout: io.stdout, stderr: io.stderr };
}
