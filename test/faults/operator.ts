/**
 * The operator under fault: a project scaffolded by `op-gen init` + `op-gen create api --example
 * deployment` (Memcached, the scaffold's Deployment example), run as a separate process with `node src/main.ts` on the built
 * op-gen runtime (node_modules/op-gen is a link to the op-gen checkout). Its JSON log goes to a file
 * the test reads (leader acquisition and release, shutdown).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { closeSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from '../../src/testing/free-port.ts';
import { trackProcess } from '../../src/testing/process-registry.ts';

export const OP_GEN_ROOT = fileURLToPath(new URL('../../', import.meta.url));

export interface ScaffoldedProject {
  readonly dir: string;
  readonly crd: string;
  remove(): void;
}

/**
 * Scaffolds the Memcached operator with the op-gen checkout at `root` (default: this one; the bench
 * passes another checkout to measure a before/after), without npm install. `controller`: the flags of
 * `create api` that choose the controller (default the hand-written Deployment example; the
 * dependents scenarios pass `--dependents configmap,deployment,service`).
 */
export function scaffoldOperator(
  root = process.env.OP_GEN_FAULTS_ROOT ?? OP_GEN_ROOT,
  controller: readonly string[] = ['--example', 'deployment'],
): ScaffoldedProject {
  const work = mkdtempSync(join(tmpdir(), 'op-gen-faults-'));
  const dir = join(work, 'memcached-operator');
  const bin = join(root, 'bin/op-gen.js');
  const run = (args: string[], cwd: string): void => {
    const r = spawnSync(process.execPath, [bin, ...args], { cwd, encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`op-gen ${args.join(' ')} failed:\n${r.stdout}${r.stderr}`);
  };
  run(['init', dir, '--domain', 'example.com', '--skip-install'], work);
  run(
    ['create', 'api', '--group', 'cache', '--version', 'v1alpha1', '--kind', 'Memcached', ...controller],
    dir,
  );
  mkdirSync(join(dir, 'node_modules'), { recursive: true });
  symlinkSync(root, join(dir, 'node_modules/op-gen'));
  return {
    dir,
    crd: readFileSync(join(dir, 'config/crd/bases/cache.example.com_memcacheds.yaml'), 'utf8'),
    remove: () => rmSync(work, { recursive: true, force: true }),
  };
}

export interface LogLine {
  readonly ts: string;
  readonly level: string;
  readonly msg: string;
  readonly [key: string]: unknown;
}

/** One running operator process. */
export class OperatorProcess {
  readonly name: string;
  readonly child: ChildProcess;
  readonly metricsPort: number;
  private readonly logFile: string;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>;

  private constructor(name: string, child: ChildProcess, logFile: string, metricsPort: number) {
    this.name = name;
    this.child = child;
    this.logFile = logFile;
    this.metricsPort = metricsPort;
    this.exited = new Promise((resolve) =>
      child.once('exit', (code, signal) => resolve({ code, signal, at: Date.now() })),
    );
  }

  static async start(
    project: ScaffoldedProject,
    options: {
      name: string;
      namespace: string;
      kubeconfig: string;
      leaderElect?: boolean;
      /** POD_NAMESPACE (where its Lease lives); default `namespace`. */
      podNamespace?: string;
      /** More flags, e.g. `--graceful-shutdown-timeout=3`. */
      extraArgs?: readonly string[];
      /** The program and its first arguments; default the scaffolded project's `node src/main.ts`. */
      command?: readonly string[];
    },
  ): Promise<OperatorProcess> {
    const metricsPort = await freePort();
    const logFile = join(project.dir, `${options.name}.log`);
    // A fresh log per start: a name reused in a later run must not find the earlier run's lines.
    const fd = openSync(logFile, 'w');
    const [cmd, ...first] = options.command ?? [process.execPath, 'src/main.ts'];
    const args = [
      ...first,
      `--metrics-bind-address=127.0.0.1:${metricsPort}`,
      '--metrics-secure=false',
      '--health-probe-bind-address=0',
      `--watch-namespace=${options.namespace}`,
      `--log-level=${process.env.OP_GEN_FAULTS_LOG_LEVEL ?? 'info'}`,
      ...(options.leaderElect ? ['--leader-elect'] : []),
      ...(options.extraArgs ?? []),
    ];
    const child = spawn(cmd!, args, {
      cwd: project.dir,
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '',
        KUBECONFIG: options.kubeconfig,
        POD_NAMESPACE: options.podNamespace ?? options.namespace,
      },
      stdio: ['ignore', fd, fd],
    });
    closeSync(fd);
    trackProcess(child);
    return new OperatorProcess(options.name, child, logFile, metricsPort);
  }

  get running(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  signal(sig: NodeJS.Signals): void {
    if (this.running) this.child.kill(sig);
  }

  /** The JSON lines of its log so far (other lines, e.g. a crash's stack, are kept as msg). */
  log(): LogLine[] {
    let text: string;
    try {
      text = readFileSync(this.logFile, 'utf8');
    } catch {
      return [];
    }
    return text
      .split('\n')
      .filter((l) => l.trim() !== '')
      .map((l) => {
        try {
          return JSON.parse(l) as LogLine;
        } catch {
          return { ts: '', level: 'raw', msg: l };
        }
      });
  }

  /** The time (ms since epoch) of the first log line with this message, if any. */
  loggedAt(msg: string): number | undefined {
    const line = this.log().find((l) => l.msg === msg);
    return line ? Date.parse(line.ts) : undefined;
  }

  logTail(lines = 40): string {
    return this.log()
      .slice(-lines)
      .map((l) => JSON.stringify(l))
      .join('\n');
  }

  /** Its /metrics text (undefined if unreachable). */
  private metricsText(): Promise<string | undefined> {
    return new Promise<string | undefined>((resolve) => {
      const req = request(`http://127.0.0.1:${this.metricsPort}/metrics`, { timeout: 2_000 }, (res) => {
        let body = '';
        res.on('data', (d: Buffer) => (body += d.toString()));
        res.on('end', () => resolve(body));
      });
      req.on('timeout', () => req.destroy());
      req.on('error', () => resolve(undefined));
      req.end();
    });
  }

  /** A Prometheus sample summed over its label sets, from /metrics (undefined if unreachable). */
  async metric(name: string, labelFilter = ''): Promise<number | undefined> {
    return (await this.metrics([name], labelFilter))?.[name];
  }

  /** Several samples (each summed over its label sets) from one read of /metrics: a consistent view. */
  async metrics(names: readonly string[], labelFilter = ''): Promise<Record<string, number> | undefined> {
    const text = await this.metricsText();
    if (text === undefined) return undefined;
    const sums: Record<string, number> = Object.fromEntries(names.map((n) => [n, 0]));
    for (const line of text.split('\n')) {
      for (const name of names) {
        if (!line.startsWith(name)) continue;
        const rest = line.slice(name.length);
        if (!rest.startsWith('{') && !rest.startsWith(' ')) continue;
        if (labelFilter && !line.includes(labelFilter)) continue;
        sums[name]! += Number(line.split(' ').at(-1));
      }
    }
    return sums;
  }

  /** SIGTERM, then SIGKILL after `graceMs` if it is still running. */
  async stop(graceMs = 35_000): Promise<void> {
    if (!this.running) return;
    this.signal('SIGCONT');
    this.signal('SIGTERM');
    const timer = setTimeout(() => this.signal('SIGKILL'), graceMs);
    await this.exited;
    clearTimeout(timer);
  }
}
