import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import { parseAllDocuments, stringify } from 'yaml';
import { opGen, sampleProject } from './project.ts';

/**
 * `op-gen bundle validate --previous <bundle dir>`: the previous release's CRDs against this one's
 * (op-gen crd diff's rules), as OLM v1's CRD upgrade safety preflight compares them before upgrading.
 * Release 0.1.0 is the scaffold's bundle; release 0.2.0 removes `spec.size` from the API type, then
 * regenerates the CRD and the bundle, as a user does.
 */

const BUNDLE = (version: string): string[] => [
  'bundle',
  '--version',
  version,
  '--image',
  `example.com/memcached-operator:${version}`,
  '--created-at',
  '2026-01-01T00:00:00Z',
];
const TYPES = 'src/api/cache/v1alpha1/memcached.ts';
const BIN = new URL('../../../bin/op-gen.js', import.meta.url).pathname;

describe('bundle validate --previous: CRD upgrade safety between releases', () => {
  let project = '';
  before(() => {
    project = sampleProject();
    const first = opGen(project, ...BUNDLE('0.1.0'));
    assert.equal(first.status, 0, first.stderr);
    mkdirSync(join(project, 'releases'));
    cpSync(join(project, 'bundle'), join(project, 'releases/0.1.0'), { recursive: true });
  });

  it('passes when the CRDs did not change', () => {
    const r = opGen(project, 'bundle', 'validate', '--previous', 'releases/0.1.0');
    assert.equal(r.status, 0, r.stdout + r.stderr);
    assert.doesNotMatch(r.stdout, /upgrade-crd/);
  });

  it('fails a release that removes a field, naming the CRD, the path and what to do; passes once acknowledged', () => {
    const source = readFileSync(join(project, TYPES), 'utf8');
    const without = source.replace(/\n {2}\/\*\*\n {3}\* Number of replicas[\s\S]*?size\?: int32;\n/, '\n');
    assert.notEqual(without, source, 'the edit removes spec.size');
    writeFileSync(join(project, TYPES), without);
    for (const args of [['generate', 'crd'], BUNDLE('0.2.0')]) {
      const r = opGen(project, ...args);
      assert.equal(r.status, 0, `op-gen ${args.join(' ')}: ${r.stderr}`);
    }

    const failed = opGen(project, 'bundle', 'validate', '--previous', 'releases/0.1.0');
    assert.equal(failed.status, 1, failed.stdout + failed.stderr);
    assert.match(
      failed.stdout,
      /ERROR +\[upgrade-crd-breaking\] memcacheds\.cache\.example\.com v1alpha1 \.spec\.size: .*\[existingFieldRemoval\].*acknowledge it/,
    );
    assert.match(failed.stderr, /bundle validation failed: 1 error/);

    mkdirSync(join(project, '.op-gen'), { recursive: true });
    writeFileSync(
      join(project, '.op-gen/crd-diff.yaml'),
      stringify({
        acknowledged: [
          {
            crd: 'memcacheds.cache.example.com',
            path: '.spec.size',
            rule: 'existingFieldRemoval',
            reason: 'size moved to the operator config in 0.2.0',
          },
        ],
      }),
    );
    const passed = opGen(project, 'bundle', 'validate', '--previous', 'releases/0.1.0');
    assert.equal(passed.status, 0, passed.stdout + passed.stderr);
    assert.doesNotMatch(passed.stdout, /upgrade-crd-breaking/);
  });

  it("the scaffold's release script runs the check: it fails on the unacknowledged removal, passes once acknowledged", () => {
    // The project's own `npm run release` line, run by sh with `op-gen` on PATH (the sample project has no node_modules).
    const script = (
      JSON.parse(readFileSync(join(project, 'package.json'), 'utf8')) as { scripts: Record<string, string> }
    ).scripts.release;
    assert.ok(script, 'the scaffold has a release script');
    const shims = join(project, '.shims');
    mkdirSync(shims, { recursive: true });
    writeFileSync(join(shims, 'op-gen'), `#!/bin/sh\nexec "${process.execPath}" "${BIN}" "$@"\n`, {
      mode: 0o755,
    });
    const release = (env: Record<string, string>): { status: number | null; output: string } => {
      const r = spawnSync('sh', ['-c', script], {
        cwd: project,
        encoding: 'utf8',
        env: { ...process.env, CI: 'true', PATH: `${shims}:${process.env.PATH ?? ''}`, ...env },
      });
      return { status: r.status, output: r.stdout + r.stderr };
    };
    const noPrevious = release({});
    assert.notEqual(noPrevious.status, 0);
    assert.match(noPrevious.output, /set PREVIOUS_BUNDLE to the bundle folder of the last release/);

    const acks = join(project, '.op-gen/crd-diff.yaml');
    const acknowledged = readFileSync(acks, 'utf8');
    rmSync(acks);
    const failed = release({ PREVIOUS_BUNDLE: 'releases/0.1.0' });
    assert.equal(failed.status, 1, failed.output);
    assert.match(
      failed.output,
      /\[upgrade-crd-breaking\] memcacheds\.cache\.example\.com v1alpha1 \.spec\.size/,
    );
    writeFileSync(acks, acknowledged);
    const passed = release({ PREVIOUS_BUNDLE: 'releases/0.1.0' });
    assert.equal(passed.status, 0, passed.output);
  });

  it('refuses a --previous that is not a bundle, in one line', () => {
    const r = opGen(project, 'bundle', 'validate', '--previous', 'src');
    assert.equal(r.status, 1);
    assert.match(
      r.stderr,
      /--previous src: not a bundle folder \(no manifests\/\) and not a file-based catalog \(no olm\.bundle\)/,
    );
    assert.doesNotMatch(r.stderr, /\n\s+at /, 'no stack');
  });
});

describe('bundle validate --previous <catalog>: the previous release from a file-based catalog', () => {
  let project = '';
  const CATALOG_IMAGE = 'example.com/memcached-operator-bundle:v{version}';
  const CATALOG = 'with-objects/memcached-operator/catalog.yaml';
  before(() => {
    project = sampleProject();
    const first = opGen(project, ...BUNDLE('0.1.0'));
    assert.equal(first.status, 0, first.stderr);
    mkdirSync(join(project, 'releases'));
    cpSync(join(project, 'bundle'), join(project, 'releases/0.1.0'), { recursive: true });
    for (const args of [
      ['--bundle-objects', '--out', 'with-objects'],
      ['--out', 'metadata-only'],
    ]) {
      const r = opGen(project, 'catalog', 'releases/0.1.0', '--bundle-image', CATALOG_IMAGE, ...args);
      assert.equal(r.status, 0, r.stderr);
    }
    // Release 0.2.0 removes spec.size.
    const source = readFileSync(join(project, TYPES), 'utf8');
    const without = source.replace(/\n {2}\/\*\*\n {3}\* Number of replicas[\s\S]*?size\?: int32;\n/, '\n');
    assert.notEqual(without, source, 'the edit removes spec.size');
    writeFileSync(join(project, TYPES), without);
    for (const args of [['generate', 'crd'], BUNDLE('0.2.0')]) {
      const r = opGen(project, ...args);
      assert.equal(r.status, 0, `op-gen ${args.join(' ')}: ${r.stderr}`);
    }
  });

  it("fails on a field the catalog's channel head had and this release removes; passes once acknowledged", () => {
    const catalog = readFileSync(join(project, CATALOG), 'utf8');
    assert.match(catalog, /type: olm\.bundle\.object/, '--bundle-objects writes the CRDs into the catalog');
    for (const previous of [CATALOG, 'with-objects']) {
      const failed = opGen(project, 'bundle', 'validate', '--previous', previous);
      assert.equal(failed.status, 1, failed.stdout + failed.stderr);
      assert.match(
        failed.stdout,
        /ERROR +\[upgrade-crd-breaking\] memcacheds\.cache\.example\.com v1alpha1 \.spec\.size: .*\[existingFieldRemoval\]: an upgrade from .* \(bundle memcached-operator\.v0\.1\.0\) breaks/,
      );
      const named = opGen(
        project,
        'bundle',
        'validate',
        '--previous',
        previous,
        '--previous-bundle',
        'memcached-operator.v0.1.0',
      );
      assert.equal(named.status, 1, named.stdout + named.stderr);
      assert.match(named.stdout, /\[upgrade-crd-breaking\].*\.spec\.size/);
    }
    mkdirSync(join(project, '.op-gen'), { recursive: true });
    writeFileSync(
      join(project, '.op-gen/crd-diff.yaml'),
      stringify({
        acknowledged: [
          {
            crd: 'memcacheds.cache.example.com',
            path: '.spec.size',
            rule: 'existingFieldRemoval',
            reason: 'size moved to the operator config in 0.2.0',
          },
        ],
      }),
    );
    try {
      const passed = opGen(project, 'bundle', 'validate', '--previous', CATALOG);
      assert.equal(passed.status, 0, passed.stdout + passed.stderr);
      assert.doesNotMatch(passed.stdout, /upgrade-crd-breaking/);
    } finally {
      rmSync(join(project, '.op-gen/crd-diff.yaml'));
    }
  });

  it("reads opm's JSON form (a stream of objects) and olm.bundle.object refs to files beside the catalog", () => {
    const docs = parseAllDocuments(readFileSync(join(project, CATALOG), 'utf8')).map(
      (d) =>
        d.toJS() as {
          schema: string;
          properties?: { type: string; value: { data?: string; ref?: string } }[];
        },
    );
    mkdirSync(join(project, 'json/objects'), { recursive: true });
    writeFileSync(join(project, 'json/catalog.json'), docs.map((d) => JSON.stringify(d, null, 2)).join('\n'));
    // The same catalog with each CRD in a file of its own, named by ref.
    for (const d of docs)
      for (const [i, p] of (d.properties ?? []).entries())
        if (p.type === 'olm.bundle.object' && p.value.data) {
          writeFileSync(join(project, `json/objects/crd-${i}.json`), Buffer.from(p.value.data, 'base64'));
          p.value = { ref: `objects/crd-${i}.json` };
        }
    writeFileSync(join(project, 'json/ref.yaml'), docs.map((d) => stringify(d)).join('---\n'));
    for (const previous of ['json/catalog.json', 'json/ref.yaml']) {
      const r = opGen(project, 'bundle', 'validate', '--previous', previous);
      assert.equal(r.status, 1, previous + r.stdout + r.stderr);
      assert.match(
        r.stdout,
        /\[upgrade-crd-breaking\] memcacheds\.cache\.example\.com v1alpha1 \.spec\.size/,
        previous,
      );
    }
  });

  it('says clearly that a catalog with only olm.csv.metadata holds no CRDs, and exits non-zero', () => {
    const r = opGen(project, 'bundle', 'validate', '--previous', 'metadata-only');
    assert.equal(r.status, 1, r.stdout + r.stderr);
    assert.match(
      r.stderr,
      /metadata-only\/memcached-operator\/catalog\.yaml: bundle memcached-operator\.v0\.1\.0 has no olm\.bundle\.object properties \(only olm\.csv\.metadata\), so the catalog does not hold the CRDs/,
    );
    assert.doesNotMatch(r.stderr, /\n\s+at /, 'no stack');
    assert.doesNotMatch(r.stdout, /bundle valid/);
  });

  it('names the bundles there when --previous-bundle names none', () => {
    const r = opGen(
      project,
      'bundle',
      'validate',
      '--previous',
      CATALOG,
      '--previous-bundle',
      'memcached-operator.v9',
    );
    assert.equal(r.status, 1, r.stdout + r.stderr);
    assert.match(
      r.stderr,
      /--previous-bundle memcached-operator\.v9: .* has no such bundle; it has memcached-operator\.v0\.1\.0/,
    );
  });
});
