import { InvalidArgumentError } from 'commander';
import type { CommandModule } from './command-module.ts';
import { contextFor } from './context.ts';

function milliseconds(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new InvalidArgumentError('expected a whole number of milliseconds >= 0');
  return n;
}

/** Resolves on the first SIGINT or SIGTERM (Ctrl-C in the terminal, `kill`), then stops listening. */
function stopSignal(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    const on = (signal: NodeJS.Signals): void => {
      process.off('SIGINT', on);
      process.off('SIGTERM', on);
      resolve(signal);
    };
    process.on('SIGINT', on);
    process.on('SIGTERM', on);
  });
}

/** `op-gen run`: the developer loop (docs/run.md). The loop loads only when run. */
export const runCommand: CommandModule = {
  register(parent, io) {
    parent
      .command('run')
      .description(
        'generate, install the CRDs into the current kubeconfig cluster, build and run the manager locally; again on every change under src/',
      )
      .argument('[manager-args...]', 'arguments for the manager, after -- (e.g. -- --metrics-bind-address=0)')
      .option('--debounce <ms>', 'quiet time after the last change before a round starts', milliseconds, 100)
      .action(async (managerArgs: string[], opts: { debounce: number }, command) => {
        const ctx = contextFor(command, io);
        const { runDevLoop } = await import('../dev-loop/run.ts');
        await runDevLoop({
          cwd: ctx.cwd,
          stdout: ctx.stdout,
          managerArgs,
          debounceMs: opts.debounce,
          stopRequested: stopSignal(),
        });
      });
  },
};
