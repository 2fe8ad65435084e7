import { InvalidArgumentError } from 'commander';
import type { CommandModule } from './command-module.ts';
import { contextFor } from './context.ts';

function milliseconds(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0)
    throw new InvalidArgumentError('expected a whole number of milliseconds >= 0');
  return n;
}

/** Resolves on the first SIGINT or SIGTERM (Ctrl-C in the terminal, `kill`); `dispose` stops listening. */
function stopSignal(): { requested: Promise<NodeJS.Signals>; dispose(): void } {
  let on: (signal: NodeJS.Signals) => void = () => undefined;
  const dispose = (): void => {
    process.off('SIGINT', on);
    process.off('SIGTERM', on);
  };
  const requested = new Promise<NodeJS.Signals>((resolve) => {
    on = (signal) => {
      dispose();
      resolve(signal);
    };
    process.on('SIGINT', on);
    process.on('SIGTERM', on);
  });
  return { requested, dispose };
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
        const stop = stopSignal();
        try {
          await runDevLoop({
            cwd: ctx.cwd,
            stdout: ctx.stdout,
            managerArgs,
            debounceMs: opts.debounce,
            stopRequested: stop.requested,
          });
        } finally {
          stop.dispose();
        }
      });
  },
};
