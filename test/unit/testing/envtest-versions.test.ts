import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';

const ROOT = new URL('../../../', import.meta.url).pathname;
const SETUP = join(ROOT, 'scripts', 'setup-envtest.mjs');
const versions = JSON.parse(readFileSync(join(ROOT, 'tools', 'envtest', 'versions.json'), 'utf8')) as {
  default: string;
  releases: Record<string, { kubernetes: string; etcd: string }>;
};

/** Runs node with a clean envtest environment plus `env`. */
function node(args: string[], env: Record<string, string> = {}) {
  const base = { ...process.env };
  for (const name of ['KUBEBUILDER_ASSETS', 'OP_GEN_ENVTEST_DIR', 'OP_GEN_K8S_VERSION']) delete base[name];
  return spawnSync(process.execPath, args, { cwd: ROOT, encoding: 'utf8', env: { ...base, ...env } });
}

/** What src/testing/binaries.ts selects under `env`: `<version> <cache dir>`. */
function selected(env: Record<string, string>) {
  return node(
    [
      '--input-type=module',
      '-e',
      "const b = await import('./src/testing/binaries.ts'); console.log(b.ENVTEST_K8S_VERSION, b.envtestCacheDir());",
    ],
    env,
  );
}

describe('Kubernetes release selection (tools/envtest/versions.json)', () => {
  const tmp = mkdtempSync(join(tmpdir(), 'op-gen-envtest-'));
  after(() => rmSync(tmp, { recursive: true, force: true }));

  it('pins a kube-apiserver and an etcd for 1.35, 1.36 and 1.37; 1.37 is the default', () => {
    assert.deepEqual(Object.keys(versions.releases).sort(), ['1.35', '1.36', '1.37']);
    assert.equal(versions.default, '1.37');
    for (const [minor, r] of Object.entries(versions.releases)) {
      assert.match(r.kubernetes, new RegExp(`^${minor.replace('.', '\\.')}\\.\\d+$`));
      const gomod = readFileSync(
        join(ROOT, 'tools', 'envtest', `v${minor}`, 'kube-apiserver', 'go.mod'),
        'utf8',
      );
      assert.match(gomod, new RegExp(`k8s\\.io/kubernetes v${r.kubernetes.replaceAll('.', '\\.')}\\b`));
      // The etcd built is the one that kube-apiserver's etcd client pins.
      assert.match(gomod, new RegExp(`go\\.etcd\\.io/etcd/client/v3 v${r.etcd.replaceAll('.', '\\.')}\\b`));
      const etcdMod = readFileSync(join(ROOT, 'tools', 'envtest', `v${minor}`, 'etcd', 'go.mod'), 'utf8');
      assert.match(etcdMod, new RegExp(`go\\.etcd\\.io/etcd/server/v3 v${r.etcd.replaceAll('.', '\\.')}\\b`));
    }
  });

  it('the test harness follows OP_GEN_K8S_VERSION, each release in its own cache folder', () => {
    const def = selected({ XDG_CACHE_HOME: tmp });
    assert.equal(def.status, 0, def.stderr);
    assert.equal(def.stdout.trim(), `1.37.2 ${join(tmp, 'op-gen', 'envtest', 'v1.37.2')}`);
    const old = selected({ XDG_CACHE_HOME: tmp, OP_GEN_K8S_VERSION: '1.35' });
    assert.equal(old.stdout.trim(), `1.35.4 ${join(tmp, 'op-gen', 'envtest', 'v1.35.4')}`);
  });

  it('an unsupported OP_GEN_K8S_VERSION fails, naming the supported releases', () => {
    const r = selected({ OP_GEN_K8S_VERSION: '1.34' });
    assert.notEqual(r.status, 0);
    assert.match(
      r.stderr,
      /OP_GEN_K8S_VERSION=1\.34 is not a supported Kubernetes release; supported: 1\.35, 1\.36, 1\.37/,
    );
  });

  it('setup:envtest rejects an unsupported --k8s-version in one line, exit 1', () => {
    for (const v of ['1.34', '1.37.1']) {
      const r = node([SETUP, '--k8s-version', v]);
      assert.equal(r.status, 1);
      assert.equal(
        r.stderr,
        `setup:envtest: Kubernetes ${v} is not supported; supported releases: 1.35 (v1.35.4), 1.36 (v1.36.3), 1.37 (v1.37.2)\n`,
      );
    }
  });

  it('setup:envtest reuses binaries already in place and builds nothing (no Go needed)', () => {
    for (const b of ['kube-apiserver', 'etcd']) writeFileSync(join(tmp, b), '');
    const assets = node([SETUP, '--k8s-version=1.36'], { KUBEBUILDER_ASSETS: tmp });
    assert.equal(assets.status, 0, assets.stderr);
    assert.match(assets.stdout, /using binaries in KUBEBUILDER_ASSETS=.*; nothing built/);
    const cached = node([SETUP], { OP_GEN_ENVTEST_DIR: tmp, PATH: '' });
    assert.equal(cached.status, 0, cached.stderr);
    assert.match(cached.stdout, /Kubernetes v1\.37\.2 control plane present in .*; reused/);
  });

  it('setup:envtest with the control plane cached builds the missing test tools (a failed build is one clear line)', () => {
    // The path where the control plane is reused but kustomize/helm are missing: it reaches the tool
    // builds before the control-plane section (a ReferenceError here once: progress not yet defined).
    for (const b of ['kube-apiserver', 'etcd']) writeFileSync(join(tmp, b), '');
    const bin = join(tmp, 'fake-go-bin');
    mkdirSync(bin, { recursive: true });
    writeFileSync(
      join(bin, 'go'),
      '#!/bin/sh\nif [ "$1" = version ]; then echo go version go1.26.8 linux/amd64; exit 0; fi\necho "fake go: build refused" >&2\nexit 1\n',
    );
    chmodSync(join(bin, 'go'), 0o755);
    const r = node([SETUP], { OP_GEN_ENVTEST_DIR: tmp, OP_GEN_TOOLS_DIR: join(tmp, 'tools'), PATH: bin });
    assert.equal(r.status, 1, r.stderr);
    assert.match(r.stdout, /control plane present in .*; reused/);
    assert.match(r.stderr, /fake go: build refused/);
    assert.match(r.stderr, /building kustomize failed/);
    assert.doesNotMatch(r.stderr, /ReferenceError|\n\s+at /);
  });

  it('setup:envtest: KUBEBUILDER_ASSETS without the binaries is an error, not a build', () => {
    const r = node([SETUP], { KUBEBUILDER_ASSETS: join(tmp, 'nothing-here') });
    assert.equal(r.status, 1);
    assert.match(r.stderr, /^setup:envtest: KUBEBUILDER_ASSETS=.* lacks kube-apiserver and etcd\./);
  });
});
