import { Command } from 'commander';
import { opGenVersion } from '../version.ts';
import { generateCommands, topLevelCommands } from './commands.ts';
import type { CommandIo } from './context.ts';

export function createProgram(io: CommandIo): Command {
  const program = new Command('op-gen')
    .description('The Kubernetes operator toolkit for TypeScript')
    .version(opGenVersion(), '-v, --version', 'print the op-gen version')
    .option('--cwd <dir>', 'run as if op-gen was started in <dir>')
    .showHelpAfterError('(run op-gen --help for usage)')
    .showSuggestionAfterError(true)
    .configureOutput({
      writeOut: (s) => io.stdout.write(s),
      writeErr: (s) => io.stderr.write(s),
    })
    .exitOverride();

  for (const command of topLevelCommands) command.register(program, io);

  const generate = program
    .command('generate')
    .alias('gen')
    .description('generate CRDs, RBAC, typed clients or types from the project sources');
  for (const command of generateCommands) command.register(generate, io);

  // Subcommands inherit output, suggestions and exit handling.
  const inherit = (cmd: Command): void => {
    for (const sub of cmd.commands) {
      sub.copyInheritedSettings(cmd);
      inherit(sub);
    }
  };
  inherit(program);
  return program;
}
