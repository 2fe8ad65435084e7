import { Command } from './commander.ts';
import { opGenVersion } from '../version.ts';
import type { CommandModule } from './command-module.ts';
import type { CommandIo } from './context.ts';
import { generateCommands } from './generate-commands.ts';
import { withProjectGenerators } from './generate-project.ts';

/**
 * The op-gen program: `topLevel` commands (commands.ts's list for the CLI; none when `create api`
 * runs a generator in a program of its own) and every `generate` subcommand.
 */
export function createProgram(io: CommandIo, topLevel: readonly CommandModule[]): Command {
  const program = new Command('op-gen')
    .description('The Kubernetes operator toolkit for TypeScript')
    .version(opGenVersion(), '-v, --version', 'print the op-gen version')
    .option('--cwd <dir>', 'run as if op-gen was started in <dir>')
    // Program options end at the subcommand, so subcommands may have their own --version (create api, bundle).
    .enablePositionalOptions()
    .showHelpAfterError('(run op-gen --help for usage)')
    .showSuggestionAfterError(true)
    .configureOutput({
      writeOut: (s) => io.stdout.write(s),
      writeErr: (s) => io.stderr.write(s),
    })
    .exitOverride();

  for (const command of topLevel) command.register(program, io);

  const generate = program
    .command('generate')
    .alias('gen')
    .description(
      'generate CRDs, RBAC, typed clients or types from the project sources; with no subcommand: crd, rbac and client',
    );
  withProjectGenerators(generate, io);
  for (const command of generateCommands) command.register(generate, io);

  // Subcommands inherit output, suggestions and exit handling.
  const inherit = (cmd: Command, path: string): void => {
    for (const sub of cmd.commands) {
      sub.copyInheritedSettings(cmd);
      const subPath = `${path} ${sub.name()}`;
      // A usage error points at the help of the command that was misused.
      sub.showHelpAfterError(`(run ${subPath} --help for usage)`);
      // --cwd stays usable after the subcommand name (`op-gen generate crd --cwd dir`).
      if (!sub.options.some((o) => o.long === '--cwd'))
        sub.option('--cwd <dir>', 'run as if op-gen was started in <dir>');
      inherit(sub, subPath);
    }
  };
  inherit(program, 'op-gen');
  // `op-gen generate` runs the project's generators; a word after it that names no subcommand is
  // an unknown command (the action says so), not an argument. Set after `inherit`, which would copy
  // it to the subcommands.
  generate.allowExcessArguments();
  return program;
}
