import assert from 'node:assert/strict';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { createApi } from '../../../src/scaffold/create-api.ts';
import { initProject } from '../../../src/scaffold/init.ts';
import { controlPlaneSkip, startControlPlane, type ControlPlane } from '../../../src/testing/index.ts';

/**
 * SIGTERM and SIGINT to `op-gen run`, `npm run dev` (the scaffold's script) and `npx op-gen run` stop
 * the whole process tree: the command, npm and its shell, op-gen run, the manager and its process
 * group. Each command runs as a user starts it (real npm and npx, the real shell), in a process group
 * of its own (detached) so nothing can escape the test's cleanup; the test collects every process of
 * the tree once the manager runs, signals the top process only (as `kill <pid>` does), waits for it to
 * exit, then checks every process it collected is gone.
 */

const OP_GEN_ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const OP_GEN_BIN = join(OP_GEN_ROOT, 'bin/op-gen.js');

const quiet = (): Writable => new Writable({ write: (_c, _e, done) => done() });

/**
 * node_modules of the project: op-gen's packages and op-gen itself, with a .bin of its own that has
 * `op-gen` in it (what npm install makes), so `npm run dev` and `npx op-gen` find it offline.
 */
function linkNodeModules(project: string): void {
  const target = join(project, 'node_modules');
  mkdirSync(join(target, '.bin'), { recursive: true });
  for (const entry of readdirSync(join(OP_GEN_ROOT, 'node_modules'))) {
    if (entry !== '.bin') symlinkSync(join(OP_GEN_ROOT, 'node_modules', entry), join(target, entry));
  }
  for (const bin of readdirSync(join(OP_GEN_ROOT, 'node_modules', '.bin'))) {
    symlinkSync(join(OP_GEN_ROOT, 'node_modules', '.bin', bin), join(target, '.bin', bin));
  }
  symlinkSync(OP_GEN_ROOT, join(target, 'op-gen'));
  symlinkSync(OP_GEN_BIN, join(target, '.bin', 'op-gen'));
}

interface Proc {
  readonly pid: number;
  readonly ppid: number;
  readonly pgid: number;
  readonly args: string;
}

function processes(): Proc[] {
  return execFileSync('ps', ['-e', '-o', 'pid=,ppid=,pgid=,args='], { encoding: 'utf8' })
    .split('\n')
    .map((l) => l.trim().match(/^(\d+)\s+(\d+)\s+(\d+)\s+(.*)$/))
    .filter((m): m is RegExpMatchArray => m !== null)
    .map((m) => ({ pid: Number(m[1]), ppid: Number(m[2]), pgid: Number(m[3]), args: m[4]! }));
}

/** The descendants of `top` and every member of their process groups (the manager has one of its own). */
function tree(top: number): Proc[] {
  const all = processes();
  const found = new Map<number, Proc>();
  let grew = true;
  while (grew) {
    grew = false;
    const groups = new Set([top, ...[...found.values()].map((p) => p.pgid)]);
    for (const p of all) {
      if (found.has(p.pid)) continue;
      if (p.pid === top || found.has(p.ppid) || groups.has(p.pgid)) {
        found.set(p.pid, p);
        grew = true;
      }
    }
  }
  return [...found.values()];
}

/** Alive and not a zombie (an exited process whose parent has not reaped it runs nothing). */
function running(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}

describe('signals stop the whole tree of op-gen run', { timeout: 600_000, skip: controlPlaneSkip() }, () => {
  const work = mkdtempSync(join(tmpdir(), 'op-gen-signals-'));
  const project = join(work, 'memcached-operator');
  let cp: ControlPlane | undefined;
  const started: ChildProcess[] = [];
  const seen = new Set<number>();

  before(async () => {
    assert.ok(
      existsSync(join(OP_GEN_ROOT, 'dist/cli/main.js')),
      'op-gen is not built: run `npm run build` first',
    );
    const io = { stdout: quiet(), stderr: quiet() };
    const plane = startControlPlane();
    await initProject({ dir: project, domain: 'example.com', skipInstall: true, opGenPath: OP_GEN_ROOT }, io);
    await createApi(
      { dir: project, group: 'cache', version: 'v1alpha1', kind: 'Memcached', skipGenerate: true },
      io,
    );
    linkNodeModules(project);
    cp = await plane;
  });

  after(async () => {
    // Whatever a failed case left: its detached group and every process collected from it.
    for (const child of started) {
      try {
        if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
      } catch {
        // gone
      }
    }
    for (const pid of seen) {
      try {
        if (running(pid)) process.kill(pid, 'SIGKILL');
      } catch {
        // gone
      }
    }
    await cp?.stop();
    rmSync(work, { recursive: true, force: true });
  });

  /** The environment a user's shell would give: no npm variables of the test runner's own npm. */
  const env = (): NodeJS.ProcessEnv => {
    const clean = Object.fromEntries(
      Object.entries(process.env).filter(([k]) => !k.startsWith('npm_') && k !== 'NODE_TEST_CONTEXT'),
    );
    return {
      ...clean,
      PATH: [dirname(process.execPath), process.env.PATH ?? ''].join(delimiter),
      KUBECONFIG: cp!.kubeconfigPath,
      CI: 'true',
      npm_config_offline: 'true',
      npm_config_update_notifier: 'false',
      npm_config_audit: 'false',
      npm_config_fund: 'false',
    };
  };

  const managerArgs = ['--metrics-bind-address=0', '--health-probe-bind-address=0'];
  const commands: Record<string, readonly [string, readonly string[]]> = {
    'op-gen run': [process.execPath, [OP_GEN_BIN, 'run', '--', ...managerArgs]],
    'npm run dev': ['npm', ['run', 'dev', '--', '--', ...managerArgs]],
    'npx op-gen run': ['npx', ['op-gen', 'run', '--', ...managerArgs]],
  };

  /**
   * Starts `command`, waits for its manager, signals it (the top process, or with `group` its whole
   * process group, as a terminal's Ctrl-C does), and checks that every process of its tree is gone.
   */
  const stopsEverything = async (command: string, signal: NodeJS.Signals, group = false): Promise<void> => {
    const [cmd, args] = commands[command]!;
    const child = spawn(cmd, args, {
      cwd: project,
      env: env(),
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    started.push(child);
    let output = '';
    child.stdout?.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr?.on('data', (d: Buffer) => (output += d.toString()));
    const exited = new Promise<string>((resolve) =>
      child.once('exit', (code, sig) => resolve(sig ?? `code ${code}`)),
    );
    const deadline = Date.now() + 180_000;
    const managerLine = /started the manager \(pid (\d+)\)/;
    while (!managerLine.test(output) && Date.now() < deadline) {
      if (child.exitCode !== null) assert.fail(`${command} exited before starting the manager:\n${output}`);
      await sleep(100);
    }
    const manager = output.match(managerLine);
    assert.ok(manager, `${command}: no manager within 180 s:\n${output}`);
    const managerPid = Number(manager[1]);
    const procs = tree(child.pid!);
    for (const p of procs) seen.add(p.pid);
    assert.ok(
      procs.some((p) => p.pid === managerPid),
      `${command}: the manager ${managerPid} is in the tree: ${JSON.stringify(procs)}`,
    );
    const listing = (): string =>
      procs.map((p) => `${p.pid} (${running(p.pid) ? 'running' : 'gone'}) ${p.args}`).join('\n');

    process.kill(group ? -child.pid! : child.pid!, signal);
    const how = await Promise.race([exited, sleep(60_000).then(() => 'still running after 60 s')]);
    assert.doesNotMatch(how, /still running/, `${command} after ${signal}:\n${listing()}\n${output}`);
    // What exits after the top process has been re-parented (to PID 1 or a subreaper): wait a bounded
    // time for it, then name it.
    const left = (): Proc[] => procs.filter((p) => running(p.pid));
    const until = Date.now() + 30_000;
    while (left().length > 0 && Date.now() < until) await sleep(100);
    assert.deepEqual(
      left().map((p) => `${p.pid} ${p.args}`),
      [],
      `${command}: left running after ${signal} (${how}):\n${listing()}\n${output}`,
    );
    assert.match(output, /op-gen run: stopping \(/, `${command}: op-gen run stopped in order:\n${output}`);
    console.log(`# ${command}, ${signal}${group ? ' to the group' : ''}: ${procs.length} processes, ${how}`);
  };

  for (const command of ['op-gen run', 'npm run dev']) {
    for (const signal of ['SIGTERM', 'SIGINT'] as const) {
      it(`${signal} to ${command} stops it, the manager and everything between`, () =>
        stopsEverything(command, signal));
    }
  }
  it('SIGTERM to npx op-gen run stops it, the manager and everything between', () =>
    stopsEverything('npx op-gen run', 'SIGTERM'));
  it('SIGINT to the process group of npx op-gen run (Ctrl-C) stops everything', () =>
    stopsEverything('npx op-gen run', 'SIGINT', true));
});
