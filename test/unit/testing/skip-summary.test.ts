import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { ciVerdict, skippedOf, skipSummary, type ReporterEvent } from '../../reporters/skip-summary.ts';

const repo = join(import.meta.dirname, '..', '..', '..');
const REPORTER = ['--test-reporter=spec', '--test-reporter-destination=stdout'].concat([
  '--test-reporter=./test/reporters/skip-summary.ts',
  '--test-reporter-destination=stdout',
]);

describe('the skip-summary reporter', () => {
  it('names skipped suites and tests; control plane skips apart, with how to build the binaries', () => {
    const events: ReporterEvent[] = [
      {
        type: 'test:pass',
        data: {
          name: 'CRDs on a real API server',
          file: join(repo, 'test/integration/crd/crds.test.ts'),
          skip: 'no control plane binaries: kube-apiserver and etcd were not found in /x.',
          details: { type: 'suite' },
        },
      },
      { type: 'test:pass', data: { name: 'ran', file: join(repo, 'a.test.ts'), details: { type: 'test' } } },
      { type: 'test:pass', data: { name: 'later', file: join(repo, 'a.test.ts'), skip: true } },
      { type: 'test:fail', data: { name: 'todo', skip: false } },
      { type: 'test:diagnostic', data: { name: 'x', skip: 'no control plane binaries' } },
    ];
    const skipped = events.map((e) => skippedOf(e, repo)).filter((s) => s !== undefined);
    assert.deepEqual(skipSummary(skipped), [
      'ℹ 1 suite skipped (every test inside a skipped suite too): no control plane binaries; build them with `npm run setup:envtest` (needs Go), or set KUBEBUILDER_ASSETS',
      'ℹ   suite "CRDs on a real API server" (test/integration/crd/crds.test.ts)',
      'ℹ 1 test skipped for other reasons:',
      'ℹ   test "later" (a.test.ts)',
    ]);
    assert.deepEqual(skipSummary([]), [], 'nothing skipped, nothing printed');
  });

  it('under CI any skip is a failure; without CI it is only named', () => {
    const one = [{ name: 'x', file: 'a.test.ts', kind: 'suite' as const, reason: 'later' }];
    assert.deepEqual(ciVerdict(one, { CI: 'true' }), [
      '✖ CI is set and 1 suite skipped: in CI every test must run; remove the skip',
    ]);
    assert.deepEqual(ciVerdict(one, {}), []);
    assert.deepEqual(ciVerdict([], { CI: 'true' }), []);
  });

  describe('on a real run (node --test with the reporter)', () => {
    const empty = mkdtempSync(join(tmpdir(), 'op-gen-no-binaries-'));
    after(() => rmSync(empty, { recursive: true, force: true }));
    const run = (env: Record<string, string | undefined>, file = 'test/fixtures/testing/skipped-suite.ts') =>
      spawnSync(process.execPath, ['--test', ...REPORTER, file], {
        cwd: repo,
        encoding: 'utf8',
        // Without NODE_TEST_CONTEXT, which would make the child report to this run instead.
        env: { ...process.env, NODE_TEST_CONTEXT: undefined, OP_GEN_TEST_BIN_DIR: empty, ...env },
      });

    it('a suite skipped for want of binaries is counted and named at the end', () => {
      const r = run({ CI: '' });
      assert.equal(r.status, 0, r.stdout + r.stderr);
      // node's own counts do not see the skipped suite: the reporter's lines are what shows it.
      assert.match(r.stdout, /ℹ skipped 1\n/);
      const tail = r.stdout.slice(r.stdout.lastIndexOf('ℹ duration_ms'));
      assert.match(
        tail,
        /ℹ 1 suite skipped \(every test inside a skipped suite too\): no control plane binaries;/,
      );
      assert.match(
        tail,
        /ℹ {3}suite "a suite that needs the control plane" \(test\/fixtures\/testing\/skipped-suite\.ts\)/,
      );
      assert.match(
        tail,
        /ℹ 1 test skipped for other reasons:\nℹ {3}test "is skipped on purpose" .*: left for later/,
      );
    });

    it('a suite skipped by hand passes a developer run, named, and fails a CI run', () => {
      const file = 'test/fixtures/testing/deliberate-skip.ts';
      const dev = run({ CI: '' }, file);
      assert.equal(dev.status, 0, dev.stdout + dev.stderr);
      assert.match(
        dev.stdout,
        /ℹ 1 suite skipped for other reasons:\nℹ {3}suite "an integration suite skipped by hand"/,
      );
      const ci = run({ CI: 'true' }, file);
      assert.equal(ci.status, 1, ci.stdout + ci.stderr);
      assert.match(ci.stdout, /ℹ fail 0\n/, 'no test failed: the skip alone fails the run');
      assert.match(ci.stdout, /✖ CI is set and 1 suite skipped: in CI every test must run; remove the skip/);
    });

    it('under CI the same suite fails the run instead', () => {
      const r = run({ CI: 'true' });
      assert.equal(r.status, 1, r.stdout + r.stderr);
      assert.match(r.stdout + r.stderr, /CI is set and the control plane cannot start/);
    });
  });
});
