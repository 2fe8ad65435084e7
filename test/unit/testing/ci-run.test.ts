import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';

const repo = join(import.meta.dirname, '..', '..', '..');
const CHECK = join(repo, 'scripts', 'check-clean-checkout.sh');

/** CI judges a run as the README says: CI=true set by .ci/run itself, and a checkout left unchanged. */
describe('.ci/run', () => {
  const dir = mkdtempSync(join(tmpdir(), 'op-gen-ci-check-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const git = (...args: string[]) => {
    const r = spawnSync('git', ['-c', 'user.email=t@example.com', '-c', 'user.name=t', ...args], {
      cwd: dir,
      encoding: 'utf8',
    });
    assert.equal(r.status, 0, r.stderr);
  };
  const check = () => spawnSync('bash', [CHECK], { cwd: dir, encoding: 'utf8' });

  it('sets CI=true before the tests and checks the checkout after them', () => {
    const script = readFileSync(join(repo, '.ci', 'run'), 'utf8');
    const ci = script.indexOf('\nexport CI=true\n');
    const tests = script.search(/\n[^#\n]*npm test'?\n/);
    const clean = script.indexOf('\nbash scripts/check-clean-checkout.sh\n');
    assert.ok(ci > 0 && tests > ci && clean > tests, 'export CI=true, then npm test, then the check');
  });

  it('the check passes a clean checkout and fails a changed golden or an untracked file', () => {
    git('init', '-q');
    writeFileSync(join(dir, '.gitignore'), 'dist/\n');
    writeFileSync(join(dir, 'golden.yaml'), 'a: 1\n');
    git('add', '-A');
    git('commit', '-qm', 'init');
    assert.equal(check().status, 0, 'clean');

    writeFileSync(join(dir, 'golden.yaml'), 'a: 2\n');
    const changed = check();
    assert.equal(changed.status, 1);
    assert.match(changed.stderr, /changed the tracked files above \(a rewritten golden\?\)/);
    git('checkout', '-q', 'golden.yaml');

    writeFileSync(join(dir, 'left-behind.yaml'), 'x\n');
    const untracked = check();
    assert.equal(untracked.status, 1);
    assert.match(untracked.stderr, /left untracked files in the repository:\nleft-behind\.yaml/);
    rmSync(join(dir, 'left-behind.yaml'));

    mkdirSync(join(dir, 'dist'));
    writeFileSync(join(dir, 'dist', 'main.js'), '');
    assert.equal(check().status, 0, 'ignored files do not count');
  });
});
