import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, sep } from 'node:path';
import { Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
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

/** This checkout's root (op-gen's sources, node_modules, the TypeScript 7 compiler the scaffold builds with). */
const OP_GEN_ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/**
 * Type-checks a generated project with its own tsconfig, `op-gen` mapped to this working tree's
 * sources instead of an install; fails the test with the compiler's output.
 */
export function typecheckAgainstSources(root: string): void {
  writeFileSync(
    join(root, 'tsconfig.check.json'),
    JSON.stringify({
      extends: './tsconfig.json',
      compilerOptions: {
        rootDir: OP_GEN_ROOT,
        paths: {
          'op-gen': [join(OP_GEN_ROOT, 'src/index.ts')],
          'op-gen/runtime': [join(OP_GEN_ROOT, 'src/runtime/index.ts')],
          'op-gen/testing': [join(OP_GEN_ROOT, 'src/testing/index.ts')],
        },
        typeRoots: [join(OP_GEN_ROOT, 'node_modules/@types')],
      },
    }),
  );
  const tsc = spawnSync(
    process.execPath,
    [join(OP_GEN_ROOT, 'node_modules/typescript7/bin/tsc'), '-p', 'tsconfig.check.json', '--noEmit'],
    { cwd: root, encoding: 'utf8' },
  );
  assert.equal(tsc.status, 0, `tsc failed on the generated project:\n${tsc.stdout}${tsc.stderr}`);
}
