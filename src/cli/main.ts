import { CommanderError } from './commander.ts';
import { OpGenError } from '../errors.ts';
import type { CommandIo } from './context.ts';
import { describeEnvironmentError } from './environment-error.ts';
import { topLevelCommands } from './commands.ts';
import { createProgram } from './program.ts';

/** Commander error codes that mean "wrong use of the CLI": exit 2. */
const USAGE_CODES = new Set([
  'commander.unknownCommand',
  'commander.unknownOption',
  'commander.missingArgument',
  'commander.optionMissingArgument',
  'commander.missingMandatoryOptionValue',
  'commander.excessArguments',
  'commander.invalidArgument',
  'commander.conflictingOption',
]);

/**
 * `op-gen help generate crd` is `op-gen generate crd --help`: commander's help command reads only its
 * first operand and would print `generate`'s help.
 */
function helpAsFlag(argv: readonly string[]): string[] {
  if (argv[0] === 'help' && argv.length > 2 && argv.slice(1).every((a) => !a.startsWith('-'))) {
    return [...argv.slice(1), '--help'];
  }
  return [...argv];
}

/** Runs the CLI and returns the exit code; never calls process.exit itself. */
export async function main(argv: readonly string[], io: Partial<CommandIo> = {}): Promise<number> {
  const fullIo: CommandIo = {
    stdout: io.stdout ?? process.stdout,
    stderr: io.stderr ?? process.stderr,
    cwd: io.cwd ?? process.cwd(),
  };
  const program = createProgram(fullIo, topLevelCommands);
  try {
    await program.parseAsync(helpAsFlag(argv), { from: 'user' });
    return 0;
  } catch (err) {
    if (err instanceof CommanderError) {
      if (err.exitCode === 0) return 0; // --help, --version
      // A command group run without a subcommand prints its help as an error: a usage error too.
      return USAGE_CODES.has(err.code) || err.code === 'commander.help' ? 2 : err.exitCode || 1;
    }
    if (err instanceof OpGenError) {
      fullIo.stderr.write(`op-gen: ${err.message}\n`);
      return err.exitCode;
    }
    const environment = describeEnvironmentError(err, fullIo.cwd);
    if (environment !== undefined) {
      fullIo.stderr.write(`op-gen: ${environment}\n`);
      return 1;
    }
    fullIo.stderr.write(
      `op-gen: internal error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
    );
    return 70;
  }
}
