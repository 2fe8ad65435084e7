import type { Command } from 'commander';
import { OpGenError } from '../errors.ts';
import { projectGenerators } from '../generate/generator-names.ts';
import { contextFor, type CommandIo } from './context.ts';
import { reportResult } from './run-generator.ts';

/**
 * `op-gen generate` with no subcommand (the scaffold's `npm run generate`): the project's generators
 * (`crd`, `rbac`, `client`, and `webhook` once op-gen.yaml records webhooks) in one process and one
 * context, so the sources load once.
 * A generator that fails stops the run (the ones before it have written); with `--check`, every
 * generator runs and the files out of date of all of them are reported together.
 */
export function withProjectGenerators(generate: Command, io: CommandIo): void {
  generate
    .option('--check', 'write nothing; exit 1 listing the files that would change (for CI)')
    .action(async (flags: { check?: boolean }, command: Command) => {
      // `op-gen generate frobnicate`: commander's unknown-command error, with its suggestion.
      if (command.args.length > 0) (command as Command & { unknownCommand(): never }).unknownCommand();
      const ctx = contextFor(command, io);
      const check = flags.check === true;
      const [{ generate: run, runContext }, { generatorContext }] = await Promise.all([
        import('../generate/registry.ts'),
        import('../generation/context.ts'),
      ]);
      // The run's context reads op-gen.yaml once: for the generator list and for the generators.
      const context = generatorContext({ cwd: ctx.cwd });
      const names = projectGenerators(context.project());
      const shared = await runContext(names, { cwd: ctx.cwd }, context);
      const outOfDate: string[] = [];
      for (const name of names) {
        const result = await run(name, { cwd: ctx.cwd, check }, shared);
        try {
          reportResult(ctx, name, result, { check });
        } catch (err) {
          if (!(err instanceof OpGenError)) throw err;
          outOfDate.push(err.message);
        }
      }
      if (outOfDate.length > 0) throw new OpGenError(outOfDate.join('\n'));
    });
}
