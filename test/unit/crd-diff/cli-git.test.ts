import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { main } from '../../../src/cli/main.ts';

function capture(): { stream: Writable; text: () => string } {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      chunks.push(chunk.toString());
      done();
    },
  });
  return { stream, text: () => chunks.join('') };
}

async function opGen(cwd: string, ...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  const out = capture();
  const err = capture();
  const code = await main(argv, { stdout: out.stream, stderr: err.stream, cwd });
  return { code, out: out.text(), err: err.text() };
}

function crdYaml(maximum: number, extra = ''): string {
  return `---
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: memcacheds.cache.example.com
spec:
  group: cache.example.com
  names:
    kind: Memcached
    listKind: MemcachedList
    plural: memcacheds
    singular: memcached
  scope: Namespaced
  versions:
    - name: v1alpha1
      served: true
      storage: true
      schema:
        openAPIV3Schema:
          type: object
          properties:
            spec:
              type: object
              properties:
                size:
                  type: integer
                  maximum: ${maximum}${extra}
`;
}

/** A project in a real git repository: a first commit without CRDs, a second with them. */
describe('op-gen crd diff in a git repository (as in CI)', () => {
  let dir = '';
  const git = (...args: string[]): string =>
    execFileSync(
      'git',
      ['-c', 'user.name=t', '-c', 'user.email=t@example.com', '-c', 'commit.gpgsign=false', ...args],
      {
        cwd: dir,
        encoding: 'utf8',
      },
    );
  const crdFile = (): string => join(dir, 'config/crd/bases/cache.example.com_memcacheds.yaml');

  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'op-gen-crd-diff-'));
    git('init', '-q', '-b', 'main');
    writeFileSync(join(dir, 'README.md'), 'project\n');
    git('add', '.');
    git('commit', '-qm', 'no CRDs yet');
    mkdirSync(join(dir, 'config/crd/bases'), { recursive: true });
    writeFileSync(crdFile(), crdYaml(10));
    git('add', '.');
    git('commit', '-qm', 'CRDs');
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('exits 0 when nothing changed', async () => {
    const r = await opGen(dir, 'crd', 'diff', '--base', 'HEAD');
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /no changes between the CRDs/);
  });

  it('exits 1 on a breaking change, naming CRD, version, path and old → new', async () => {
    writeFileSync(crdFile(), crdYaml(5));
    const r = await opGen(dir, 'crd', 'diff', '--base', 'HEAD');
    assert.equal(r.code, 1);
    assert.match(
      r.out,
      /^memcacheds\.cache\.example\.com\n {2}v1alpha1\n {4}BREAKING \.spec\.size: maximum lowered: 10 → 5 \[maximum\]$/m,
    );
    assert.match(r.out, /1 breaking, 0 risky, 0 safe/);
    assert.match(r.err, /1 breaking change\(s\) not acknowledged/);
  });

  it('--json prints the findings as JSON and keeps the exit code', async () => {
    writeFileSync(crdFile(), crdYaml(5));
    const r = await opGen(dir, 'crd', 'diff', '--base', 'HEAD', '--json');
    assert.equal(r.code, 1);
    const report = JSON.parse(r.out) as { failed: boolean; findings: unknown[] };
    assert.equal(report.failed, true);
    assert.deepEqual(report.findings, [
      {
        severity: 'breaking',
        rule: 'maximum',
        crd: 'memcacheds.cache.example.com',
        version: 'v1alpha1',
        path: '.spec.size',
        message: 'maximum lowered',
        old: 10,
        new: 5,
      },
    ]);
  });

  it('exits 0 when the breaking change is acknowledged, and reports an acknowledgement that matches nothing', async () => {
    writeFileSync(crdFile(), crdYaml(5));
    mkdirSync(join(dir, '.op-gen'), { recursive: true });
    writeFileSync(
      join(dir, '.op-gen/crd-diff.yaml'),
      `acknowledged:
  - crd: memcacheds.cache.example.com
    version: v1alpha1
    path: .spec.size
    rule: maximum
    reason: no cluster runs more than 5
  - crd: memcacheds.cache.example.com
    path: .spec.gone
    rule: existingFieldRemoval
    reason: stale
`,
    );
    try {
      const r = await opGen(dir, 'crd', 'diff', '--base', 'HEAD');
      assert.equal(r.code, 0, r.err);
      assert.match(
        r.out,
        /maximum lowered: 10 → 5 \[maximum\] \(acknowledged: no cluster runs more than 5\)/,
      );
      assert.match(
        r.out,
        /acknowledgement 2 \(memcacheds\.cache\.example\.com \.spec\.gone existingFieldRemoval\) matches no breaking change/,
      );
      const json = JSON.parse((await opGen(dir, 'crd', 'diff', '--base', 'HEAD', '--json')).out) as {
        failed: boolean;
        unmatchedAcknowledgements: { entry: number }[];
      };
      assert.equal(json.failed, false);
      assert.deepEqual(
        json.unmatchedAcknowledgements.map((a) => a.entry),
        [2],
      );
    } finally {
      rmSync(join(dir, '.op-gen'), { recursive: true, force: true });
    }
  });

  it('exits 0 on safe changes only (a raised maximum, a new optional field)', async () => {
    writeFileSync(
      crdFile(),
      `${crdYaml(20)}\n                replicas:\n                  type: integer\n`.replace(/\n\n/, '\n'),
    );
    const r = await opGen(dir, 'crd', 'diff', '--base', 'HEAD');
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /safe {5}\.spec\.replicas: optional field added/);
    assert.match(r.out, /0 breaking, 0 risky, 2 safe/);
  });

  it('says clearly when the ref has no generated CRDs', async () => {
    const r = await opGen(dir, 'crd', 'diff', '--base', 'HEAD~1');
    assert.equal(r.code, 1);
    assert.match(r.err, /HEAD~1 has no generated CRDs in config\/crd\/bases\//);
  });

  it('says clearly when the ref does not exist', async () => {
    const r = await opGen(dir, 'crd', 'diff', '--base', 'no-such-branch');
    assert.equal(r.code, 1);
    assert.match(r.err, /--base no-such-branch: no such commit/);
  });

  it('compares two files without git, and a usage error exits 2', async () => {
    writeFileSync(join(dir, 'old.yaml'), crdYaml(10));
    writeFileSync(join(dir, 'new.yaml'), crdYaml(10, '\n                  default: 3'));
    const r = await opGen(dir, 'crd', 'diff', 'old.yaml', 'new.yaml');
    assert.equal(r.code, 1);
    assert.match(r.out, /BREAKING \.spec\.size: default added: \(none\) → 3 \[default\]/);
    assert.equal((await opGen(dir, 'crd', 'diff')).code, 2);
    assert.equal((await opGen(dir, 'crd', 'diff', 'old.yaml', '--base', 'HEAD')).code, 2);
    assert.ok(readFileSync(join(dir, 'old.yaml'), 'utf8').includes('maximum: 10'));
  });

  it('works from a project in a subfolder of the repository', async () => {
    const sub = join(dir, 'operator');
    mkdirSync(join(sub, 'config/crd/bases'), { recursive: true });
    writeFileSync(join(sub, 'config/crd/bases/crd.yaml'), crdYaml(10));
    git('add', '.');
    git('commit', '-qm', 'a second project in a subfolder');
    writeFileSync(join(sub, 'config/crd/bases/crd.yaml'), crdYaml(3));
    const r = await opGen(sub, 'crd', 'diff', '--base', 'HEAD');
    assert.equal(r.code, 1, r.err);
    assert.match(r.out, /maximum lowered: 10 → 3/);
  });
});

describe('op-gen crd diff --base HEAD --generate (the new side generated from the API sources)', () => {
  let dir = '';
  const git = (...args: string[]): string =>
    execFileSync(
      'git',
      ['-c', 'user.name=t', '-c', 'user.email=t@example.com', '-c', 'commit.gpgsign=false', ...args],
      { cwd: dir, encoding: 'utf8' },
    );
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'op-gen-crd-diff-gen-'));
    cpSync(new URL('../../fixtures/crd/api', import.meta.url).pathname, join(dir, 'src/api'), {
      recursive: true,
    });
    git('init', '-q', '-b', 'main');
    const r = await opGen(dir, 'generate', 'crd');
    assert.equal(r.code, 0, r.err);
    git('add', '.');
    git('commit', '-qm', 'API and CRDs');
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('finds a bound tightened in the sources before the CRDs are regenerated, and writes nothing', async () => {
    const file = join(dir, 'src/api/infra/v1/backup_types.ts');
    writeFileSync(file, readFileSync(file, 'utf8').replace('@minimum 1', '@minimum 2'));
    const crds = readFileSync(join(dir, 'config/crd/bases/infra.example.com_backuppolicies.yaml'), 'utf8');
    // Without --generate the committed CRDs are compared with themselves: nothing changed yet.
    assert.equal((await opGen(dir, 'crd', 'diff', '--base', 'HEAD')).code, 0);
    const r = await opGen(dir, 'crd', 'diff', '--base', 'HEAD', '--generate');
    assert.equal(r.code, 1, r.err);
    assert.match(
      r.out,
      /^backuppolicies\.infra\.example\.com\n {2}v1\n {4}BREAKING \.spec\.keep: minimum raised: 1 → 2 \[minimum\]$/m,
    );
    assert.equal(
      readFileSync(join(dir, 'config/crd/bases/infra.example.com_backuppolicies.yaml'), 'utf8'),
      crds,
    );
  });
});
