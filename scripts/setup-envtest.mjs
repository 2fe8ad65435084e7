#!/usr/bin/env node
// Builds the real control plane used by op-gen's tests (kube-apiserver + etcd) from the Go modules
// under tools/envtest/v<minor>/ into ~/.cache/op-gen/envtest/v<k8s-version>/ (or $OP_GEN_ENVTEST_DIR).
// Then the test-only tools kustomize and helm (tools/kustomize, tools/helm) into ~/.cache/op-gen/bin.
// Idempotent: binaries already there are reused. With KUBEBUILDER_ASSETS set only the tools are built.
//
//   npm run setup:envtest                          the default release (tools/envtest/versions.json)
//   npm run setup:envtest -- --k8s-version 1.35    another supported release (or OP_GEN_K8S_VERSION=1.35)
import { spawn, spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { availableParallelism, homedir, loadavg, totalmem } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const toolsDir = join(root, 'tools', 'envtest');
const versions = JSON.parse(readFileSync(join(toolsDir, 'versions.json'), 'utf8'));
// The cold build figures the README states (seconds, fresh 2-core machine, empty Go caches): the
// progress lines quote them, and .ci/run's check-build-times compares the recorded builds with them.
const coldSeconds = JSON.parse(readFileSync(join(toolsDir, 'cold-build-seconds.json'), 'utf8')).seconds;
/** What a build of `name` takes: the README's cold figure, and seconds with a warm Go build cache. */
function expected(name, note = '') {
  const [low, high] = coldSeconds[name];
  const range = low === high ? `~${low} s` : `${low}-${high} s`;
  return `${range} cold on 2 cores${note} (fresh machine, empty Go caches; longer on a busy machine), seconds with a warm Go build cache`;
}

function fail(message) {
  process.stderr.write(`setup:envtest: ${message}\n`);
  process.exit(1);
}

function requestedMinor() {
  const args = process.argv.slice(2);
  let minor = process.env.OP_GEN_K8S_VERSION || versions.default;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === '--k8s-version') minor = args[++i] ?? '';
    else if (arg.startsWith('--k8s-version=')) minor = arg.slice('--k8s-version='.length);
    else if (arg === '--help' || arg === '-h') {
      process.stdout.write(
        `usage: npm run setup:envtest [-- --k8s-version ${Object.keys(versions.releases).join('|')}]\n`,
      );
      process.exit(0);
    } else fail(`unknown argument ${arg}; usage: npm run setup:envtest [-- --k8s-version <minor>]`);
  }
  // Accept 1.37 and 1.37.2 (the patch must be the one tools/envtest pins).
  const short = minor.replace(/^v/, '').split('.').slice(0, 2).join('.');
  const release = versions.releases[short];
  if (!release || (minor.split('.').length > 2 && minor.replace(/^v/, '') !== release.kubernetes)) {
    const supported = Object.entries(versions.releases)
      .map(([m, r]) => `${m} (v${r.kubernetes})`)
      .join(', ');
    fail(`Kubernetes ${minor} is not supported; supported releases: ${supported}`);
  }
  return { minor: short, ...release };
}

const release = requestedMinor();

/**
 * Each build's duration goes to build-times.json beside the control plane folders (the envtest cache,
 * or $OP_GEN_ENVTEST_DIR), with what decides whether the README's cold figures apply to it: the state
 * of Go's caches when this run started (`cold`: build and module caches both empty), the cores, and the
 * mean load average per core while it built. scripts/check-build-times.ts (.ci/run) judges them.
 */
const buildTimesFile = join(
  process.env.OP_GEN_ENVTEST_DIR ??
    join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'op-gen', 'envtest'),
  'build-times.json',
);
let goCachesAtStart;
/** Go's build and module caches as this run found them, before its first build: cold, modules-cached or warm. */
function goCaches() {
  if (goCachesAtStart) return goCachesAtStart;
  const env = spawnSync('go', ['env', 'GOCACHE', 'GOMODCACHE'], { encoding: 'utf8' });
  const [gocache = '', gomodcache = ''] = env.status === 0 ? env.stdout.split('\n') : [];
  const entries = (dir) => {
    try {
      return readdirSync(dir);
    } catch {
      return [];
    }
  };
  // Go creates GOCACHE's 256 two-hex-digit folders on first use; empty ones hold nothing built.
  const buildEmpty =
    gocache !== '' &&
    entries(gocache).every((e) => !/^[0-9a-f]{2}$/.test(e) || entries(join(gocache, e)).length === 0);
  const modulesEmpty = gomodcache !== '' && entries(join(gomodcache, 'cache', 'download')).length === 0;
  goCachesAtStart = buildEmpty ? (modulesEmpty ? 'cold' : 'modules-cached') : 'warm';
  return goCachesAtStart;
}

/** Appends one build to build-times.json (the last 50 kept); a cache that cannot be written is only noted. */
function recordBuild(record) {
  try {
    let builds = [];
    if (existsSync(buildTimesFile)) builds = JSON.parse(readFileSync(buildTimesFile, 'utf8')).builds ?? [];
    builds = [...builds, record].slice(-50);
    mkdirSync(dirname(buildTimesFile), { recursive: true });
    const tmp = `${buildTimesFile}.tmp-${process.pid}`;
    writeFileSync(tmp, `${JSON.stringify({ builds }, null, 2)}\n`);
    renameSync(tmp, buildTimesFile);
  } catch (err) {
    process.stdout.write(`setup:envtest: build time not recorded in ${buildTimesFile}: ${err.message}\n`);
  }
}

// Test-only tools, built once into ~/.cache/op-gen/bin (or $OP_GEN_TOOLS_DIR) from the Go modules
// pinned under tools/<name>/: kustomize (the oracle op-gen's kustomize renderer is compared with)
// and helm (lint, template and install of the chart `op-gen generate helm` writes).
const toolsBinDir =
  process.env.OP_GEN_TOOLS_DIR ??
  join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'op-gen', 'bin');
const tools = [
  {
    name: 'kustomize',
    version: 'v5.8.2',
    module: join(root, 'tools', 'kustomize'),
    pkg: 'sigs.k8s.io/kustomize/kustomize/v5',
    ldflags: '-s -w',
    expected: expected('kustomize', ', ~6 s right after kube-apiserver (they share most packages)'),
  },
  {
    name: 'helm',
    version: 'v4.3.1',
    module: join(root, 'tools', 'helm'),
    pkg: 'helm.sh/helm/v4/cmd/helm',
    ldflags: '-s -w -X helm.sh/helm/v4/internal/version.version=v4.3.1',
    expected: expected('helm'),
  },
];

/**
 * Builds the missing tools (then exits when `exitAfter`); every tool present is reused. They are op-gen's
 * own test oracles: an installed op-gen (whose package leaves tools/kustomize and tools/helm out) builds
 * only the control plane a project's tests need.
 */
async function buildTools(exitAfter) {
  if (!tools.every((t) => existsSync(join(t.module, 'go.mod')))) {
    process.stdout.write(
      `setup:envtest: ${tools.map((t) => t.name).join(' and ')} are op-gen's own test tools, not built outside its checkout\n`,
    );
    if (exitAfter) process.exit(0);
    return;
  }
  const missing = tools.filter((t) => !existsSync(join(toolsBinDir, t.name)));
  if (missing.length === 0) {
    process.stdout.write(
      `setup:envtest: test tools (${tools.map((t) => t.name).join(', ')}) present in ${toolsBinDir}; reused\n`,
    );
  } else {
    const go = spawnSync('go', ['version'], { encoding: 'utf8' });
    if (go.error || go.status !== 0)
      fail(
        'the Go toolchain (`go`) is not on PATH. It is needed once to build the test tools (kustomize, helm) from Go modules.',
      );
    mkdirSync(toolsBinDir, { recursive: true });
    for (const t of missing) await buildOne(t, join(toolsBinDir, t.name));
  }
  if (exitAfter) process.exit(0);
}

/**
 * Progress of the builds (src/shared/progress.ts): an updating line on a terminal, a plain line every
 * 30 s elsewhere (CI logs). An installed op-gen has it compiled in dist/; a working tree runs the source.
 */
async function loadProgress() {
  for (const candidate of ['../dist/shared/progress.js', '../src/shared/progress.ts']) {
    if (!existsSync(fileURLToPath(new URL(candidate, import.meta.url)))) continue;
    try {
      return (await import(candidate)).createProgress;
    } catch {
      // a source file where type stripping is off: try the next
    }
  }
  return undefined;
}
const createProgress = await loadProgress();
const progress = createProgress
  ? createProgress({ stream: process.stdout, prefix: 'setup:envtest' })
  : {
      start: (step, detail) =>
        process.stdout.write(`setup:envtest: ${step}${detail ? ` (${detail})` : ''} ...\n`),
      update: () => undefined,
      succeed: (message) => process.stdout.write(`setup:envtest: ${message}\n`),
      fail: (message) => process.stdout.write(`setup:envtest: ${message}\n`),
      interactive: false,
    };

if (process.env.KUBEBUILDER_ASSETS) {
  const dir = process.env.KUBEBUILDER_ASSETS;
  const missing = ['kube-apiserver', 'etcd'].filter((b) => !existsSync(join(dir, b)));
  if (missing.length > 0) {
    fail(
      `KUBEBUILDER_ASSETS=${dir} lacks ${missing.join(' and ')}. Point it at a directory holding both binaries, or unset it to build them from Go modules.`,
    );
  }
  process.stdout.write(`setup:envtest: using binaries in KUBEBUILDER_ASSETS=${dir}; nothing built\n`);
  await buildTools(true);
}

const cacheDir =
  process.env.OP_GEN_ENVTEST_DIR ??
  join(
    process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'),
    'op-gen',
    'envtest',
    `v${release.kubernetes}`,
  );

const targets = [
  {
    name: 'etcd',
    version: release.etcd,
    module: join(toolsDir, `v${release.minor}`, 'etcd'),
    pkg: 'go.etcd.io/etcd/server/v3',
    ldflags: '-s -w',
    expected: expected('etcd'),
  },
  {
    name: 'kube-apiserver',
    version: release.kubernetes,
    module: join(toolsDir, `v${release.minor}`, 'kube-apiserver'),
    pkg: 'k8s.io/kubernetes/cmd/kube-apiserver',
    ldflags: [
      '-s -w',
      `-X k8s.io/component-base/version.gitVersion=v${release.kubernetes}`,
      `-X k8s.io/component-base/version.gitMajor=1`,
      `-X k8s.io/component-base/version.gitMinor=${release.minor.split('.')[1]}`,
      '-X k8s.io/component-base/version.gitTreeState=clean',
    ].join(' '),
    expected: expected('kube-apiserver'),
  },
];

if (targets.every((t) => existsSync(join(cacheDir, t.name)))) {
  process.stdout.write(
    `setup:envtest: Kubernetes v${release.kubernetes} control plane present in ${cacheDir}; reused\n`,
  );
  await buildTools(true);
}

const go = spawnSync('go', ['version'], { encoding: 'utf8' });
if (go.error || go.status !== 0) {
  fail(
    'the Go toolchain (`go`) is not on PATH. It is needed once to build kube-apiserver and etcd from Go modules.\n' +
      '  Install Go >= 1.25, or set KUBEBUILDER_ASSETS to a directory that already holds kube-apiserver and etcd binaries.',
  );
}

mkdirSync(cacheDir, { recursive: true });

/**
 * The Go compiler's own garbage collector off while building (unless GOGC is set): on 2 idle cores a
 * cold build of helm took 87 s instead of 98 s (131 s user CPU instead of 156 s), peak RSS 1.45 GB
 * instead of 1.22 GB. Only with memory to spare (>= 8 GiB), so a small machine builds as before.
 */
function compilerGc() {
  if (process.env.GOGC !== undefined || totalmem() < 8 * 1024 ** 3) return {};
  return { GOGC: 'off' };
}

/** Runs `go build`; Go's own output (errors) goes below the progress line. */
function goBuild(t, tmp) {
  return new Promise((resolvePromise) => {
    let output = '';
    const child = spawn('go', ['build', '-trimpath', '-ldflags', t.ldflags, '-o', tmp, t.pkg], {
      cwd: t.module,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, CGO_ENABLED: '0', ...compilerGc() },
    });
    // Go prints only on failure (and "go: downloading ..." lines); kept and shown after the progress line.
    child.stdout.on('data', (d) => (output += d.toString()));
    child.stderr.on('data', (d) => (output += d.toString()));
    const stop = () => child.kill('SIGTERM');
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    const done = (ok) => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolvePromise({ ok, output });
    };
    child.on('error', (err) => {
      output += `${err.message}\n`;
      done(false);
    });
    child.on('exit', (code) => done(code === 0));
  });
}

/** Builds one target into `out` (through a temp file, so an interrupted build leaves nothing). */
async function buildOne(t, out) {
  const caches = goCaches();
  const started = Date.now();
  const loads = [loadavg()[0]];
  const sampler = setInterval(() => loads.push(loadavg()[0]), 10_000);
  sampler.unref();
  progress.start(`building ${t.name} ${t.version}`, `${t.pkg}; ${t.expected}`);
  const tmp = `${out}.tmp-${process.pid}`;
  const { ok, output } = await goBuild(t, tmp);
  clearInterval(sampler);
  loads.push(loadavg()[0]);
  if (!ok) {
    progress.fail(`building ${t.name} ${t.version} failed`);
    process.stderr.write(output);
    rmSync(tmp, { force: true });
    fail(`building ${t.name} failed (see the Go output above). Module: ${t.module}`);
  }
  renameSync(tmp, out);
  const secs = ((Date.now() - started) / 1000).toFixed(1);
  const cores = availableParallelism();
  recordBuild({
    name: t.name,
    version: t.version,
    seconds: Number(secs),
    goCaches: caches,
    cores,
    loadPerCore: Number((loads.reduce((a, b) => a + b, 0) / loads.length / cores).toFixed(2)),
    at: new Date().toISOString(),
  });
  const mb = (statSync(out).size / 1e6).toFixed(0);
  progress.succeed(`built ${t.name} ${t.version} in ${secs} s (${mb} MB) -> ${out}`);
}

const overall = Date.now();
for (const t of targets) {
  const out = join(cacheDir, t.name);
  if (existsSync(out)) {
    process.stdout.write(`setup:envtest: ${t.name} present at ${out}; reused\n`);
    continue;
  }
  await buildOne({ ...t, version: `v${t.version}` }, out);
}
const total = ((Date.now() - overall) / 1000).toFixed(0);
process.stdout.write(
  `setup:envtest: Kubernetes v${release.kubernetes} control plane ready in ${cacheDir} (${total} s)\n`,
);
await buildTools(false);
