import { spawn } from 'node:child_process';
import { systemClock, type Clock } from './clock.ts';

export interface ExitStatus {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

/** A started manager: its process group can be signalled, and it tells when its leader exited. */
export interface ChildHandle {
  readonly pid: number | undefined;
  readonly exited: Promise<ExitStatus>;
  /** Signals every process of the child's process group; false once none is left. */
  signalGroup(signal: NodeJS.Signals | 0): boolean;
}

export type StartChild = () => ChildHandle;

/** A start script that is one plain command can be exec'd, so the shell does not sit between. */
function isSimpleCommand(script: string): boolean {
  return !/[;&|<>()$`\\\n"'*?]/.test(script) && !/^\s*exec\s/.test(script);
}

/**
 * Starts `script` (the project's `start` script, e.g. `node dist/main.js`) with `args` appended, in a
 * process group of its own, so stopping it reaches every process it started (`sh`, `node`, whatever the
 * script runs), and a Ctrl-C in the terminal reaches op-gen, which stops the manager in order.
 */
export function spawnScript(options: {
  readonly script: string;
  readonly args: readonly string[];
  readonly cwd: string;
  readonly env: NodeJS.ProcessEnv;
}): ChildHandle {
  const command = isSimpleCommand(options.script) ? `exec ${options.script} "$@"` : `${options.script} "$@"`;
  const child = spawn('sh', ['-c', command, 'sh', ...options.args], {
    cwd: options.cwd,
    env: options.env,
    detached: true,
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const exited = new Promise<ExitStatus>((resolve) => {
    child.once('exit', (code, signal) => resolve({ code, signal }));
    child.once('error', () => resolve({ code: 127, signal: null }));
  });
  return {
    pid: child.pid,
    exited,
    signalGroup(signal) {
      if (child.pid === undefined) return false;
      try {
        process.kill(-child.pid, signal);
        return true;
      } catch {
        return false; // ESRCH: the group is empty
      }
    },
  };
}

export interface ManagerProcessOptions {
  readonly start: StartChild;
  /** How long a stopping manager gets after SIGTERM before SIGKILL (default 10 s). */
  readonly stopTimeoutMs?: number;
  /** Called when the manager exits without being asked to. */
  readonly onExit?: (status: ExitStatus) => void;
  readonly clock?: Clock;
}

/** The manager as a child process: start, stop (SIGTERM, then SIGKILL after a grace period), restart. */
export class ManagerProcess {
  private readonly options: ManagerProcessOptions;
  private readonly clock: Clock;
  private child: ChildHandle | undefined;
  private stopping = false;

  constructor(options: ManagerProcessOptions) {
    this.options = options;
    this.clock = options.clock ?? systemClock;
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  get running(): boolean {
    return this.child !== undefined;
  }

  start(): void {
    if (this.child) throw new Error('the manager is already running');
    const child = this.options.start();
    this.child = child;
    this.stopping = false;
    void child.exited.then((status) => {
      if (this.child !== child) return;
      this.child = undefined;
      if (!this.stopping) {
        child.signalGroup('SIGKILL'); // whatever the script left behind
        this.options.onExit?.(status);
      }
    });
  }

  /** Stops the manager and everything in its process group; resolves when the manager has exited. */
  async stop(): Promise<ExitStatus | undefined> {
    const child = this.child;
    if (!child) return undefined;
    this.stopping = true;
    child.signalGroup('SIGTERM');
    let timer: unknown;
    const timedOut = new Promise<'timeout'>((resolve) => {
      timer = this.clock.setTimeout(() => resolve('timeout'), this.options.stopTimeoutMs ?? 10_000);
    });
    let status = await Promise.race([child.exited, timedOut]);
    this.clock.clearTimeout(timer);
    if (status === 'timeout') {
      child.signalGroup('SIGKILL');
      status = await child.exited;
    }
    // The leader is gone; nothing else of the group may outlive it.
    child.signalGroup('SIGKILL');
    if (this.child === child) this.child = undefined;
    return status;
  }

  async restart(): Promise<void> {
    await this.stop();
    this.start();
  }
}
