import {
  cpSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { Writable } from 'node:stream';
import { main } from '../../../src/cli/main.ts';
import { createApi } from '../../../src/scaffold/create-api.ts';
import { initProject } from '../../../src/scaffold/init.ts';

/** The Memcached API file of the scaffolded project, relative to its root. */
export const TYPES = 'src/api/cache/v1alpha1/memcached.ts';
export const CONTROLLER = 'src/controllers/memcached.controller.ts';

function sink(): { stream: Writable; text: () => string } {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      chunks.push(chunk.toString());
      done();
    },
  });
  return { stream, text: () => chunks.join('') };
}

/** A project as `op-gen init` + `op-gen create api --kind Memcached` write it (no npm install, no generate). */
export async function scaffoldTemplate(): Promise<{ dir: string; cleanup: () => void }> {
  const dir = mkdtempSync(join(tmpdir(), 'op-gen-broken-'));
  const root = join(dir, 'template');
  const io = { stdout: sink().stream, stderr: sink().stream };
  await initProject({ dir: root, domain: 'example.com', name: 'demo', skipInstall: true }, io);
  await createApi(
    {
      dir: root,
      group: 'cache',
      version: 'v1alpha1',
      kind: 'Memcached',
      example: 'deployment',
      skipGenerate: true,
    },
    { ...io, generators: [] },
  );
  return { dir: root, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** A copy of the template to break; `edit` rewrites files (path → new content). */
export function copyProject(
  template: string,
  name: string,
  edit: Record<string, (text: string) => string> = {},
): string {
  const dir = join(template, '..', name);
  rmSync(dir, { recursive: true, force: true });
  cpSync(template, dir, { recursive: true });
  for (const [file, change] of Object.entries(edit)) {
    const path = join(dir, file);
    writeFileSync(path, change(readFileSync(path, 'utf8')));
  }
  return dir;
}

/** Every file under `dir` with its content (to prove a failing run wrote nothing). */
export function snapshot(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (d: string): void => {
    for (const name of readdirSync(d)) {
      const p = join(d, name);
      if (statSync(p).isDirectory()) walk(p);
      else out.set(relative(dir, p), readFileSync(p, 'utf8'));
    }
  };
  if (existsSync(dir)) walk(dir);
  return out;
}

export async function run(
  cwd: string,
  ...argv: string[]
): Promise<{ code: number; out: string; err: string }> {
  const out = sink();
  const err = sink();
  const code = await main(argv, { stdout: out.stream, stderr: err.stream, cwd });
  return { code, out: out.text(), err: err.text() };
}
