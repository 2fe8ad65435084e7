import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const BIN = new URL('../../../bin/op-gen.js', import.meta.url).pathname;
const ROOT = new URL('../../../', import.meta.url).pathname;

export function opGen(
  cwd: string,
  ...args: string[]
): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [BIN, ...args], {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, CI: 'true' },
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

let template: string | undefined;

/** A scaffolded project (init + create api, which runs generate crd/rbac/client), copied fresh per call. */
export function sampleProject(): string {
  if (!template) {
    const dir = mkdtempSync(join(tmpdir(), 'op-gen-bundle-tpl-'));
    const project = join(dir, 'memcached-operator');
    const steps: string[][] = [
      [
        'init',
        project,
        '--domain',
        'example.com',
        '--name',
        'memcached-operator',
        '--skip-install',
        '--op-gen-path',
        ROOT,
        '--owner',
        'Example Maintainers',
      ],
      [
        'create',
        'api',
        '--group',
        'cache',
        '--version',
        'v1alpha1',
        '--kind',
        'Memcached',
        '--example',
        'deployment',
        '--cwd',
        project,
      ],
    ];
    for (const args of steps) {
      const r = opGen(dir, ...args);
      if (r.status !== 0) throw new Error(`op-gen ${args.join(' ')} failed:\n${r.stdout}${r.stderr}`);
    }
    template = project;
  }
  const copy = join(mkdtempSync(join(tmpdir(), 'op-gen-bundle-')), 'memcached-operator');
  cpSync(template, copy, { recursive: true });
  return copy;
}
