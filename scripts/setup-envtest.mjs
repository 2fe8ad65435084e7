#!/usr/bin/env node
// Builds the real control plane used by op-gen's tests (kube-apiserver + etcd) from Go modules
// into .cache/envtest/<k8s-version>/. Idempotent: binaries already there are reused.
// With KUBEBUILDER_ASSETS set (controller-runtime's convention) nothing is built.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, renameSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const K8S_VERSION = '1.34.3';
export const ETCD_VERSION = '3.6.6';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const toolsDir = join(root, 'tools', 'envtest');
// Shared by every checkout on the machine, so a fresh clone (CI) reuses what an earlier one built.
const cacheDir =
  process.env.OP_GEN_ENVTEST_DIR ??
  join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'op-gen', 'envtest', `v${K8S_VERSION}`);

function fail(message) {
  process.stderr.write(`setup:envtest: ${message}\n`);
  process.exit(1);
}

if (process.env.KUBEBUILDER_ASSETS) {
  const dir = process.env.KUBEBUILDER_ASSETS;
  const missing = ['kube-apiserver', 'etcd'].filter((b) => !existsSync(join(dir, b)));
  if (missing.length > 0) {
    fail(
      `KUBEBUILDER_ASSETS=${dir} lacks ${missing.join(' and ')}. Point it at a directory holding both binaries, or unset it to build them from Go modules.`,
    );
  }
  process.stdout.write(`setup:envtest: using binaries in KUBEBUILDER_ASSETS=${dir}; nothing built\n`);
  process.exit(0);
}

const go = spawnSync('go', ['version'], { encoding: 'utf8' });
if (go.error || go.status !== 0) {
  fail(
    'the Go toolchain (`go`) is not on PATH. It is needed once to build kube-apiserver and etcd from Go modules.\n' +
      '  Install Go >= 1.25, or set KUBEBUILDER_ASSETS to a directory that already holds kube-apiserver and etcd binaries.',
  );
}

mkdirSync(cacheDir, { recursive: true });
const [major, minor] = K8S_VERSION.split('.');
const targets = [
  {
    name: 'etcd',
    module: join(toolsDir, 'etcd'),
    pkg: 'go.etcd.io/etcd/server/v3',
    ldflags: '-s -w',
  },
  {
    name: 'kube-apiserver',
    module: join(toolsDir, 'kube-apiserver'),
    pkg: 'k8s.io/kubernetes/cmd/kube-apiserver',
    ldflags: [
      '-s -w',
      `-X k8s.io/component-base/version.gitVersion=v${K8S_VERSION}`,
      `-X k8s.io/component-base/version.gitMajor=${major}`,
      `-X k8s.io/component-base/version.gitMinor=${minor}`,
      '-X k8s.io/component-base/version.gitTreeState=clean',
    ].join(' '),
  },
];

for (const t of targets) {
  const out = join(cacheDir, t.name);
  if (existsSync(out)) {
    process.stdout.write(`setup:envtest: ${t.name} present at ${out}; reused\n`);
    continue;
  }
  const started = Date.now();
  process.stdout.write(`setup:envtest: building ${t.name} (${t.pkg}) ...\n`);
  const tmp = `${out}.tmp-${process.pid}`;
  try {
    execFileSync('go', ['build', '-trimpath', '-ldflags', t.ldflags, '-o', tmp, t.pkg], {
      cwd: t.module,
      stdio: ['ignore', 'inherit', 'inherit'],
      env: { ...process.env, CGO_ENABLED: '0' },
    });
  } catch {
    fail(`building ${t.name} failed (see the Go output above). Module: ${t.module}`);
  }
  renameSync(tmp, out);
  const secs = ((Date.now() - started) / 1000).toFixed(1);
  const mb = (statSync(out).size / 1e6).toFixed(0);
  process.stdout.write(`setup:envtest: built ${t.name} in ${secs} s (${mb} MB) -> ${out}\n`);
}
process.stdout.write(`setup:envtest: control plane binaries ready in ${cacheDir}\n`);
