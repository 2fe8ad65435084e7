import { spawn } from 'node:child_process';
import { OpGenError } from '../errors.ts';

export interface InstallIo {
  readonly stdout: NodeJS.WritableStream;
  readonly stderr: NodeJS.WritableStream;
}

/** Runs `npm install` in the new project, streaming its output; a failure names the fix. */
export async function runNpmInstall(root: string, io: InstallIo): Promise<void> {
  io.stdout.write('Running npm install (skip with --skip-install)...\n');
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const child = spawn(npm, ['install', '--no-audit', '--no-fund'], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout.on('data', (chunk: Buffer) => io.stdout.write(chunk));
  child.stderr.on('data', (chunk: Buffer) => io.stderr.write(chunk));
  const code = await new Promise<number>((resolveCode, reject) => {
    child.on('error', reject);
    child.on('close', (exit) => resolveCode(exit ?? 1));
  }).catch((err: unknown) => {
    throw new OpGenError(
      `could not run npm in ${root}: ${(err as Error).message}. Install Node.js with npm, then run \`npm install\` there.`,
    );
  });
  if (code !== 0) {
    throw new OpGenError(
      `npm install failed in ${root} (exit ${code}). The project files are written; fix the cause above and run \`npm install\` there.`,
    );
  }
}
