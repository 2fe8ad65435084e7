import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import {
  BUSY_LOAD_PER_CORE,
  MARGIN,
  buildTimesFile,
  judgeBuilds,
  type Figures,
  type RecordedBuild,
} from '../../../scripts/check-build-times.ts';

const repo = join(import.meta.dirname, '..', '..', '..');
const FIGURES = (
  JSON.parse(readFileSync(join(repo, 'tools/envtest/cold-build-seconds.json'), 'utf8')) as {
    seconds: Figures;
  }
).seconds;
const VERSIONS = JSON.parse(readFileSync(join(repo, 'tools/envtest/versions.json'), 'utf8')) as {
  default: string;
  releases: Record<string, { kubernetes: string; etcd: string }>;
};
const CHECK = join(repo, 'scripts/check-build-times.ts');
const SETUP = join(repo, 'scripts/setup-envtest.mjs');

const build = (over: Partial<RecordedBuild> = {}): RecordedBuild => ({
  name: 'kube-apiserver',
  version: 'v1.37.2',
  seconds: 620,
  goCaches: 'cold',
  cores: 2,
  loadPerCore: 1.1,
  at: '2026-11-27T03:00:00.000Z',
  ...over,
});

/**
 * The README's cold build figures (tools/envtest/cold-build-seconds.json) against the builds
 * setup:envtest records: .ci/run's check (scripts/check-build-times.ts) fails only on a cold build on
 * a quiet machine more than 2x outside them, never on a warm cache.
 */
describe('cold build figures', () => {
  const dir = mkdtempSync(join(tmpdir(), 'op-gen-build-times-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('the README states the figures of cold-build-seconds.json, for the default release', () => {
    const readme = readFileSync(join(repo, 'README.md'), 'utf8').replace(/\s+/g, ' ');
    const release = VERSIONS.releases[VERSIONS.default]!;
    const stated = (name: string, version: string): string => {
      const [low, high] = FIGURES[name]!;
      return low === high ? `${name} ${version} about ${low} s` : `${name} ${version} ${low} to ${high} s`;
    };
    for (const [name, version] of [
      ['etcd', `v${release.etcd}`],
      ['kube-apiserver', `v${release.kubernetes}`],
      ['helm', 'v4.3.1'],
      ['kustomize', 'v5.8.2'],
    ] as const)
      assert.ok(readme.includes(stated(name, version)), `README states "${stated(name, version)}"`);
    assert.match(readme, /scripts\/check-build-times\.ts/, 'the README explains the check');
  });

  it('passes cold builds within 2x of the range, fails one beyond it either way, naming what to update', () => {
    const [low, high] = FIGURES['kube-apiserver']!;
    const verdicts = judgeBuilds(
      [
        build({ seconds: high * MARGIN }),
        build({ seconds: low / MARGIN }),
        build({ seconds: high * MARGIN + 1 }),
        build({ seconds: low / MARGIN - 1 }),
      ],
      FIGURES,
    );
    assert.deepEqual(
      verdicts.map((v) => v.verdict),
      ['ok', 'ok', 'fail', 'fail'],
    );
    assert.match(
      verdicts[2]!.line,
      /kube-apiserver v1\.37\.2: a cold build took .* more than 2x the stated 190-637 s: .*cold-build-seconds\.json and the README/,
    );
  });

  it('never judges a warm or partly filled cache, a busy machine, a fast build on more cores, or a tool without a figure', () => {
    const verdicts = judgeBuilds(
      [
        build({ goCaches: 'warm', seconds: 4 }),
        build({ goCaches: 'modules-cached', seconds: 2000 }),
        build({ loadPerCore: BUSY_LOAD_PER_CORE + 0.5, seconds: 3171 }),
        build({ loadPerCore: undefined, seconds: 3171 }),
        build({ cores: 16, seconds: 90 }),
        build({ name: 'kind', seconds: 1 }),
      ],
      FIGURES,
    );
    assert.deepEqual(
      verdicts.map((v) => v.verdict),
      ['skip', 'skip', 'skip', 'skip', 'ok', 'skip'],
    );
    assert.match(verdicts[2]!.line, /busy machine \(load 2\.5 per core\)/);
  });

  it('the check passes with nothing recorded or only earlier builds (--since), fails on a slow cold build', () => {
    const env = { ...process.env, OP_GEN_ENVTEST_DIR: join(dir, 'check') };
    const run = (...args: string[]) =>
      spawnSync(process.execPath, [CHECK, ...args], { encoding: 'utf8', env });
    const none = run();
    assert.equal(none.status, 0, none.stderr);
    assert.match(none.stdout, /no build recorded/);

    const file = buildTimesFile(env);
    mkdirSync(join(dir, 'check'), { recursive: true });
    writeFileSync(
      file,
      JSON.stringify({ builds: [build({ seconds: 5000 }), build({ goCaches: 'warm', seconds: 3 })] }),
    );
    const slow = run();
    assert.equal(slow.status, 1, slow.stdout + slow.stderr);
    assert.match(slow.stdout, /FAIL kube-apiserver v1\.37\.2: a cold build took 5000 s/);
    assert.match(slow.stdout, /SKIP kube-apiserver v1\.37\.2: 3 s; Go caches warm/);
    assert.match(slow.stderr, /1 cold build\(s\) outside the README's figures/);

    const later = run('--since', String(Date.parse('2026-11-27T04:00:00Z') / 1000));
    assert.equal(later.status, 0, later.stdout + later.stderr);
    assert.match(later.stdout, /no build recorded .* by this run/);
  });

  it('setup:envtest records each build with the Go caches it started from, the cores and the load', () => {
    // A fake `go`: `go env` names empty caches, `go build -o <file>` writes the file.
    const bin = join(dir, 'bin');
    mkdirSync(bin, { recursive: true });
    writeFileSync(
      join(bin, 'go'),
      [
        '#!/bin/sh',
        'case "$1" in',
        '  version) echo "go version go1.25.0 linux/amd64" ;;',
        `  env) echo "${join(dir, 'gocache')}"; echo "${join(dir, 'gomodcache')}" ;;`,
        '  build) while [ "$1" != "-o" ]; do shift; done; echo binary > "$2" ;;',
        'esac',
      ].join('\n'),
    );
    chmodSync(join(bin, 'go'), 0o755);
    const setup = (name: string) =>
      spawnSync(process.execPath, [SETUP], {
        encoding: 'utf8',
        env: {
          ...process.env,
          PATH: `${bin}:${process.env.PATH ?? ''}`,
          OP_GEN_ENVTEST_DIR: join(dir, name),
          OP_GEN_TOOLS_DIR: join(dir, `${name}-tools`),
          KUBEBUILDER_ASSETS: '',
          CI: 'true',
        },
      });
    const envtest = join(dir, 'envtest');
    mkdirSync(join(dir, 'gocache', 'a1'), { recursive: true }); // what Go creates, still empty
    const r = setup('envtest');
    assert.equal(r.status, 0, r.stdout + r.stderr);
    const [low, high] = FIGURES['kube-apiserver']!;
    assert.match(r.stdout, new RegExp(`building kube-apiserver .*${low}-${high} s cold on 2 cores`));
    const { builds } = JSON.parse(readFileSync(join(envtest, 'build-times.json'), 'utf8')) as {
      builds: RecordedBuild[];
    };
    assert.deepEqual(
      builds.map((b) => [b.name, b.goCaches]),
      [
        ['etcd', 'cold'],
        ['kube-apiserver', 'cold'],
        ['kustomize', 'cold'],
        ['helm', 'cold'],
      ],
    );
    // Go's build cache holding something: every build of that run is warm, and not judged.
    writeFileSync(join(dir, 'gocache', 'a1', 'a1b2-d'), 'compiled');
    assert.equal(setup('warm').status, 0);
    const warm = JSON.parse(readFileSync(join(dir, 'warm', 'build-times.json'), 'utf8')) as {
      builds: RecordedBuild[];
    };
    assert.deepEqual(new Set(warm.builds.map((b) => b.goCaches)), new Set(['warm']));
    for (const b of builds) {
      assert.ok(b.seconds >= 0 && Number.isFinite(b.loadPerCore) && (b.cores ?? 0) >= 1, JSON.stringify(b));
      assert.ok(!Number.isNaN(Date.parse(b.at)));
    }
  });
});
