import type { Command } from 'commander';
import type { CommandModule } from './command-module.ts';
import { contextFor, type CommandIo } from './context.ts';
import { reportGenerated } from './report-generated.ts';

interface BuildFlags {
  entry: string;
  out: string;
  external: string[];
  check?: boolean;
}

/** `op-gen build`: the compiled operator bundled into dist/manager/, what the image runs. */
export const buildCommand: CommandModule = {
  register(parent: Command, io: CommandIo): void {
    parent
      .command('build')
      .description(
        'bundle the compiled operator (dist/main.js) and what it imports into dist/manager/ (main.mjs): what the image runs, in less memory than from node_modules',
      )
      .option('--entry <file>', "the compiled entry point (tsc's output)", 'dist/main.js')
      .option('--out <dir>', 'output folder', 'dist/manager')
      .option(
        '--external <package>',
        'leave a package out of the bundle (loaded from node_modules at run time, e.g. a native addon); repeatable',
        (value: string, previous: string[]) => [...previous, value],
        [] as string[],
      )
      .option('--check', 'write nothing; exit 1 when the bundle would change')
      .action(async (flags: BuildFlags, command: Command) => {
        const ctx = contextFor(command, io);
        const { buildManager } = await import('../image-bundle/index.ts');
        const result = await buildManager({
          cwd: ctx.cwd,
          entry: flags.entry,
          out: flags.out,
          external: flags.external,
          check: flags.check === true,
        });
        for (const w of result.warnings) ctx.stderr.write(`warning: ${w}\n`);
        if (!flags.check)
          ctx.stdout.write(
            `bundled ${flags.entry}: ${result.inputs} modules, ${(result.bytes / 1024).toFixed(0)} KiB in ${result.files.length} file(s)\n`,
          );
        reportGenerated(ctx, result, {
          check: flags.check === true,
          what: 'manager bundle',
          command: 'op-gen build',
        });
      });
  },
};
