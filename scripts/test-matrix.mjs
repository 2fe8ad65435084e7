#!/usr/bin/env node
// Runs the control-plane suites (test/integration) once per Kubernetes release, each against the real
// kube-apiserver + etcd of that release (built through setup:envtest when missing). Not part of CI (time).
//
//   npm run test:matrix                  1.35 and 1.37 (the oldest and newest supported releases)
//   npm run test:matrix -- 1.36          the releases named
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const versions = JSON.parse(readFileSync(join(root, 'tools', 'envtest', 'versions.json'), 'utf8'));
const supported = Object.keys(versions.releases);
const sorted = [...supported].sort((a, b) => Number(a.split('.')[1]) - Number(b.split('.')[1]));
const requested = process.argv.slice(2);
const releases = requested.length > 0 ? requested : [...new Set([sorted[0], sorted.at(-1)])];

for (const r of releases) {
  if (!supported.includes(r)) {
    process.stderr.write(
      `test:matrix: Kubernetes ${r} is not supported; supported releases: ${supported.join(', ')}\n`,
    );
    process.exit(2);
  }
}

// A fixed binary folder would run every release on the same binaries: the matrix uses op-gen's cache.
const env = { ...process.env };
for (const name of ['KUBEBUILDER_ASSETS', 'OP_GEN_ENVTEST_DIR']) {
  if (env[name]) {
    process.stdout.write(`test:matrix: ignoring ${name}=${env[name]} (each release uses its own binaries)\n`);
    delete env[name];
  }
}

function run(command, args, extraEnv = {}) {
  const started = Date.now();
  const r = spawnSync(command, args, { cwd: root, stdio: 'inherit', env: { ...env, ...extraEnv } });
  return { ok: r.status === 0, secs: Math.round((Date.now() - started) / 1000) };
}

if (!run('npm', ['run', 'build']).ok) {
  process.stderr.write('test:matrix: npm run build failed\n');
  process.exit(1);
}

const results = [];
for (const minor of releases) {
  const release = versions.releases[minor];
  process.stdout.write(
    `\n== test:matrix: Kubernetes ${minor} (v${release.kubernetes}, etcd v${release.etcd})\n`,
  );
  const setup = run('node', [join('scripts', 'setup-envtest.mjs'), '--k8s-version', minor]);
  if (!setup.ok) {
    results.push({ minor, release, ok: false, what: 'setup:envtest failed' });
    continue;
  }
  // CI=1: a test that cannot find the binaries fails instead of skipping.
  const tests = run('node', ['--test', '--test-concurrency=1', 'test/integration/**/*.test.ts'], {
    OP_GEN_K8S_VERSION: minor,
    CI: '1',
  });
  results.push({
    minor,
    release,
    ok: tests.ok,
    what: `${tests.ok ? 'passed' : 'FAILED'} in ${tests.secs} s`,
  });
}

process.stdout.write('\n== test:matrix results\n');
for (const r of results) process.stdout.write(`  Kubernetes v${r.release.kubernetes}: ${r.what}\n`);
process.exit(results.every((r) => r.ok) ? 0 : 1);
