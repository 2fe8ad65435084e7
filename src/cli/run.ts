import { InvalidArgumentError } from './commander.ts';
import type { CommandModule } from './command-module.ts';
import { contextFor } from './context.ts';

function milliseconds(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0)
    throw new InvalidArgumentError('expected a whole number of milliseconds >= 0');
  return n;
}

function port(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > 65535) throw new InvalidArgumentError('expected a port, 1-65535');
  return n;
}

interface RunFlags {
  readonly debounce: number;
  readonly webhookHost: string;
  readonly webhookPort: number;
  readonly cleanup?: boolean;
}

/** How often op-gen run started by an npm script checks that the script's shell is still there. */
const PARENT_CHECK_MS = 250;

/**
 * Resolves on the first SIGINT or SIGTERM (Ctrl-C in the terminal, `kill`), or, when an npm script
 * started op-gen run (`npx op-gen run`, a `dev` script without `exec`), when the shell npm started
 * it in is gone. npm passes SIGTERM and SIGINT to that shell only; `sh` (dash) does not replace itself
 * by its one command, dies of SIGTERM without passing it on, and op-gen run and the manager were left
 * running under PID 1. A changed parent pid is how a process learns that its parent exited. Outside
 * npm a new parent means nothing (`nohup op-gen run &` outlives its shell on purpose). `dispose` stops
 * listening.
 */
export function stopSignal(env: NodeJS.ProcessEnv): {
  requested: Promise<string>;
  dispose(): void;
} {
  let on: (signal: NodeJS.Signals) => void = () => undefined;
  let parentCheck: NodeJS.Timeout | undefined;
  const dispose = (): void => {
    process.off('SIGINT', on);
    process.off('SIGTERM', on);
    clearInterval(parentCheck);
  };
  const requested = new Promise<string>((resolve) => {
    on = (signal) => {
      dispose();
      resolve(signal);
    };
    process.on('SIGINT', on);
    process.on('SIGTERM', on);
    const parent = process.ppid;
    if (env.npm_lifecycle_event !== undefined && parent > 1) {
      parentCheck = setInterval(() => {
        if (process.ppid === parent) return;
        dispose();
        resolve("the npm script's shell exited");
      }, PARENT_CHECK_MS);
      parentCheck.unref();
    }
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
      .option(
        '--webhook-host <host>',
        'where the API server reaches this machine for webhooks (the certificate is made for it)',
        '127.0.0.1',
      )
      .option('--webhook-port <port>', "the manager's webhook server port", port, 9443)
      .option(
        '--cleanup',
        'only put back what a killed op-gen run changed in the cluster (.op-gen/run-state.json), then exit',
      )
      .action(async (managerArgs: string[], opts: RunFlags, command) => {
        const ctx = contextFor(command, io);
        const { runDevLoop } = await import('../dev-loop/run.ts');
        const stop = stopSignal(process.env);
        try {
          await runDevLoop({
            cwd: ctx.cwd,
            stdout: ctx.stdout,
            managerArgs,
            debounceMs: opts.debounce,
            stopRequested: stop.requested,
            webhookHost: opts.webhookHost,
            webhookPort: opts.webhookPort,
            cleanupOnly: opts.cleanup === true,
          });
        } finally {
          stop.dispose();
        }
      });
  },
};
