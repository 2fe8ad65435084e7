import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { controlPlaneSkip } from '../../../src/testing/index.ts';
import { tempDir } from '../../unit/scaffold/helpers.ts';

/**
 * docs/tutorial-cronjob.md as a reader follows it: its blocks marked ```sh tutorial run in order
 * (the first in a temp dir, the rest in the project it creates), its ```<lang> file=<path> blocks
 * are written into the project where they appear. `npx op-gen` is this checkout (built), `init` gets
 * `--skip-install --op-gen-path <checkout>` and the project links this checkout's node_modules
 * instead of an npm install. `npm run test:integration` (a block of the tutorial) runs only with a
 * control plane. The `npm run cluster` / `npm run dev` steps are not run here: they are covered by
 * test/integration/dev-loop/dev-cluster.test.ts and webhooks.test.ts.
 */

const OP_GEN_ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const TUTORIAL = join(OP_GEN_ROOT, 'docs/tutorial-cronjob.md');

type TutorialStep =
  | { readonly kind: 'sh'; readonly line: number; readonly script: string }
  | { readonly kind: 'file'; readonly line: number; readonly path: string; readonly content: string };

/** The marked blocks of a Markdown text, in order; other fenced blocks are left out. */
function tutorialSteps(markdown: string): TutorialStep[] {
  const steps: TutorialStep[] = [];
  const lines = markdown.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(\S*)\s*(.*)$/.exec(lines[i] ?? '');
    if (!open) continue;
    const start = i;
    const body: string[] = [];
    for (i++; i < lines.length && lines[i] !== '```'; i++) body.push(lines[i] ?? '');
    assert.ok(i < lines.length, `docs/tutorial-cronjob.md:${start + 1}: the block is not closed`);
    const info = open[2] ?? '';
    const file = /(?:^|\s)file=(\S+)/.exec(info);
    if (file?.[1] !== undefined) {
      steps.push({ kind: 'file', line: start + 1, path: file[1], content: `${body.join('\n')}\n` });
    } else if (open[1] === 'sh' && /(?:^|\s)tutorial(?:\s|$)/.test(info)) {
      steps.push({ kind: 'sh', line: start + 1, script: body.join('\n') });
    }
  }
  return steps;
}

/** Runs a script with bash (`set -e`); `npx op-gen` is this checkout. */
function bash(
  cwd: string,
  script: string,
  skipIntegration: boolean,
): Promise<{ code: number; output: string }> {
  // A nested `node --test` skips its files when it sees the outer run's marker.
  const { NODE_TEST_CONTEXT: _nested, ...env } = process.env;
  const prelude = [
    'set -euo pipefail',
    'npx() { if [ "$1" = op-gen ]; then shift; op-gen "$@"; else command npx "$@"; fi; }',
    ...(skipIntegration
      ? [
          'npm() { if [ "$*" = "run test:integration" ]; then echo "(skipped: no control plane)"; else command npm "$@"; fi; }',
        ]
      : []),
  ].join('\n');
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-c', `${prelude}\n${script}`], {
      cwd,
      env: { ...env, npm_config_offline: 'true', npm_config_update_notifier: 'false' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? 1, output }));
  });
}

describe('docs/tutorial-cronjob.md, followed step by step', { timeout: 600_000 }, () => {
  const tmp = tempDir('op-gen-tutorial-');
  after(tmp.cleanup);

  it('parses its steps: sh blocks and files, the init first', () => {
    const steps = tutorialSteps(readFileSync(TUTORIAL, 'utf8'));
    const first = steps[0];
    assert.ok(
      first?.kind === 'sh' && /npx op-gen init cronjob /.test(first.script),
      'the first step is init',
    );
    const files = steps.flatMap((s) => (s.kind === 'file' ? [s.path] : []));
    for (const path of [
      'src/api/batch/v1/cron-job.ts',
      'src/api/batch/v2/cron-job.ts',
      'src/webhooks/batch/v1/cron-job.webhook.ts',
      'src/webhooks/batch/v1/cron-job.conversion.ts',
    ])
      assert.ok(files.includes(path), path);
  });

  it('every step passes: generate, typecheck, lint, tests, bundle', async () => {
    assert.ok(
      existsSync(join(OP_GEN_ROOT, 'dist/cli/main.js')),
      'op-gen is not built: run `npm run build` first',
    );
    // `op-gen` on PATH: this checkout, with init installing nothing and depending on the checkout.
    const bin = join(tmp.dir, 'bin');
    mkdirSync(bin);
    writeFileSync(
      join(bin, 'op-gen'),
      '#!/usr/bin/env bash\n' +
        `if [ "\${1:-}" = init ]; then set -- "$@" --skip-install --op-gen-path ${JSON.stringify(OP_GEN_ROOT)}; fi\n` +
        `exec ${JSON.stringify(process.execPath)} ${JSON.stringify(join(OP_GEN_ROOT, 'bin/op-gen.js'))} "$@"\n`,
    );
    chmodSync(join(bin, 'op-gen'), 0o755);
    process.env.PATH = `${bin}:${dirname(process.execPath)}:${process.env.PATH ?? ''}`;

    const skipIntegration = controlPlaneSkip() !== false;
    const project = join(tmp.dir, 'cronjob');
    const steps = tutorialSteps(readFileSync(TUTORIAL, 'utf8'));
    for (const [i, step] of steps.entries()) {
      const where = `docs/tutorial-cronjob.md:${step.line}`;
      if (step.kind === 'file') {
        mkdirSync(dirname(join(project, step.path)), { recursive: true });
        writeFileSync(join(project, step.path), step.content);
        continue;
      }
      const r = await bash(i === 0 ? tmp.dir : project, step.script, skipIntegration);
      assert.equal(r.code, 0, `${where}:\n${step.script}\n---\n${r.output}`);
      if (step.script.includes('npm run test:integration') && !skipIntegration) {
        // The webhooks' generated tests ran on the control plane with the tutorial's handlers.
        for (const suite of [
          'CronJob webhooks against a real API server',
          'CronJob conversion webhook against a real API server',
          'CronJob controller against a real control plane',
        ])
          assert.match(r.output, new RegExp(`✔ ${suite} \\(`), `${where}: ${suite}\n${r.output}`);
      }
      if (i === 0) {
        // What `npm install` would have done: this checkout's packages, and op-gen itself.
        const modules = join(project, 'node_modules');
        mkdirSync(modules, { recursive: true });
        for (const entry of readdirSync(join(OP_GEN_ROOT, 'node_modules')))
          symlinkSync(join(OP_GEN_ROOT, 'node_modules', entry), join(modules, entry));
        symlinkSync(OP_GEN_ROOT, join(modules, 'op-gen'));
      }
    }
    assert.ok(existsSync(join(project, 'bundle/manifests/cronjob.clusterserviceversion.yaml')), 'the bundle');
    const crd = readFileSync(
      join(project, 'config/crd/bases/batch.tutorial.kubebuilder.io_cronjobs.yaml'),
      'utf8',
    );
    for (const expected of ['- Allow', 'jobTemplate:', 'lastScheduleTime:', 'name: v2'])
      assert.ok(crd.includes(expected), `the CRD has ${expected}`);
  });
});
