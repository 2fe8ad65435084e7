import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, appendFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';

const dirs: string[] = [];
after(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const MAIN = new URL('../../../src/cli/main.ts', import.meta.url).pathname;
const FIXTURE = new URL('../../fixtures/rbac/memcached', import.meta.url).pathname;

/**
 * `op-gen <argv>` in a child process with a time bound: TypeScript 6.0's JSDoc parser never returns
 * on these files, and a test run in-process would hang instead of failing.
 */
function opGen(argv: readonly string[]): { status: number | null; stderr: string; timedOut: boolean } {
  const probe = `const m = await import(${JSON.stringify(MAIN)}); process.exitCode = await m.main(process.argv.slice(1));`;
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', probe, ...argv], {
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { status: r.status, stderr: r.stderr, timedOut: r.error !== undefined };
}

/** The memcached project with `tail` appended to one of its files. */
function projectEndingWith(file: string, tail: string): string {
  const root = mkdtempSync(join(tmpdir(), 'op-gen-unterminated-'));
  dirs.push(root);
  cpSync(FIXTURE, root, { recursive: true });
  appendFileSync(join(root, file), tail);
  return root;
}

const CONTROLLER = 'src/controllers/memcached-controller.ts';
const API = 'src/api/cache/v1alpha1/memcached.ts';

describe('a source file that ends inside a JSDoc comment (`/** @a--:`, no `*/`)', () => {
  for (const [command, file] of [
    ['rbac', CONTROLLER],
    ['webhook', CONTROLLER],
    ['rbac', API],
    ['crd', API],
  ] as const) {
    it(`generate ${command} reports it at its file:line, exit 1 (${file})`, () => {
      // the webhook marker makes `generate webhook` parse the file (its prefilter passes over files without one)
      const root = projectEndingWith(file, '\n/**\n * @webhook path=/x\n * @a--:');
      const r = opGen(['generate', command, '--cwd', root]);
      assert.equal(r.timedOut, false, `generate ${command} did not return within 60 s`);
      assert.equal(r.status, 1, r.stderr);
      assert.match(r.stderr, new RegExp(`${file.replace(/[.]/g, '\\.')}:\\d+:\\d+: '\\*/' expected`));
    });
  }
});
