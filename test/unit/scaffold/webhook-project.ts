import assert from 'node:assert/strict';
import { cpSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { run } from './helpers.ts';

let template: string | undefined;

/**
 * A scaffolded project with admission and conversion webhooks (init, create api v1 and v2, create
 * webhook), copied fresh per call.
 */
export async function webhookProject(): Promise<string> {
  if (!template) {
    const dir = mkdtempSync(join(tmpdir(), 'op-gen-webhook-tpl-'));
    const root = join(dir, 'demo');
    const steps = [
      ['init', root, '--domain', 'example.com', '--name', 'demo', '--skip-install', '--owner', 'Example'],
      ['create', 'api', '--group', 'cache', '--version', 'v1', '--kind', 'Memcached', '--cwd', root],
      ['create', 'api', '--group', 'cache', '--version', 'v2', '--kind', 'Memcached', '--cwd', root],
      [
        'create',
        'webhook',
        '--group',
        'cache',
        '--version',
        'v1',
        '--kind',
        'Memcached',
        '--defaulting',
        '--programmatic-validation',
        '--conversion',
        '--spoke',
        'v2',
        '--cwd',
        root,
      ],
    ];
    for (const args of steps) {
      const r = await run(dir, ...args);
      assert.equal(r.code, 0, `op-gen ${args.join(' ')}: ${r.out}${r.err}`);
    }
    template = root;
  }
  const copy = join(mkdtempSync(join(tmpdir(), 'op-gen-webhook-project-')), 'demo');
  cpSync(template, copy, { recursive: true });
  return copy;
}
