import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, afterEach, beforeEach, describe, it } from 'node:test';
import { controlPlaneOrSkip, controlPlaneSkip } from '../../../src/testing/availability.ts';

/** The skip-or-throw guard every integration suite goes through. */
describe('controlPlaneSkip / controlPlaneOrSkip', () => {
  const empty = mkdtempSync(join(tmpdir(), 'op-gen-no-binaries-'));
  const full = mkdtempSync(join(tmpdir(), 'op-gen-binaries-'));
  writeFileSync(join(full, 'kube-apiserver'), '');
  writeFileSync(join(full, 'etcd'), '');
  after(() => {
    rmSync(empty, { recursive: true, force: true });
    rmSync(full, { recursive: true, force: true });
  });
  const savedCi = process.env.CI;
  beforeEach(() => delete process.env.CI);
  afterEach(() => {
    if (savedCi === undefined) delete process.env.CI;
    else process.env.CI = savedCi;
  });

  const fakeTest = (): { skip(message?: string): void; skipped: (string | undefined)[] } => {
    const skipped: (string | undefined)[] = [];
    return { skipped, skip: (message?: string) => void skipped.push(message) };
  };

  it('with the binaries: runs (no skip reason, t.skip not called)', () => {
    assert.equal(controlPlaneSkip(full), false);
    const t = fakeTest();
    assert.equal(controlPlaneOrSkip(t, full), true);
    assert.deepEqual(t.skipped, []);
    process.env.CI = 'true';
    assert.equal(controlPlaneSkip(full), false, 'CI with the binaries runs too');
  });

  it('without them on a developer machine: skips, naming the directory and how to build them', () => {
    const reason = controlPlaneSkip(empty);
    assert.equal(typeof reason, 'string');
    assert.ok(String(reason).startsWith('no control plane binaries: '), String(reason));
    assert.ok(String(reason).includes(empty), 'names the directory looked in');
    assert.match(String(reason), /npm run setup:envtest/);
    const t = fakeTest();
    assert.equal(controlPlaneOrSkip(t, empty), false);
    assert.deepEqual(t.skipped, [reason]);
  });

  it('without them under CI: throws instead of skipping', () => {
    process.env.CI = 'true';
    assert.throws(
      () => controlPlaneSkip(empty),
      /^Error: CI is set and the control plane cannot start: .*not found in/,
    );
    const t = fakeTest();
    assert.throws(() => controlPlaneOrSkip(t, empty), /CI is set/);
    assert.deepEqual(t.skipped, [], 'nothing was skipped');
  });

  it('only the directory given is looked at, not the cache', () => {
    const only = join(empty, 'kube-apiserver-only');
    assert.ok(String(controlPlaneSkip(only)).includes(`found in ${only}.`), String(controlPlaneSkip(only)));
  });
});
