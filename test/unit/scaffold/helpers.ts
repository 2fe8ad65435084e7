import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, sep } from 'node:path';
import { Writable } from 'node:stream';
import { main } from '../../../src/cli/main.ts';

export function capture(): { stream: Writable; text: () => string } {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      chunks.push(chunk.toString());
      done();
    },
  });
  return { stream, text: () => chunks.join('') };
}

export const quietIo = (): { stdout: Writable; stderr: Writable } => ({
  stdout: capture().stream,
  stderr: capture().stream,
});

export async function run(
  cwd: string,
  ...argv: string[]
): Promise<{ code: number; out: string; err: string }> {
  const out = capture();
  const err = capture();
  const code = await main(argv, { stdout: out.stream, stderr: err.stream, cwd });
  return { code, out: out.text(), err: err.text() };
}

/** A fresh temp dir, removed by the returned cleanup. */
export function tempDir(prefix = 'op-gen-scaffold-'): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Every file under dir, relative, sorted, with `/` separators. */
export function listFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { recursive: true })) {
    const path = join(dir, String(entry));
    if (statSync(path).isFile()) out.push(relative(dir, path).split(sep).join('/'));
  }
  return out.sort();
}

/** path -> content of every file under dir: compares whole trees (nothing written, nothing changed). */
export function snapshot(dir: string): Map<string, string> {
  return new Map(listFiles(dir).map((f) => [f, readFileSync(join(dir, f), 'utf8')]));
}
