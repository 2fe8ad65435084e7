import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { readAcknowledgements } from '../../../src/crd-diff/acknowledgements.ts';
import { applyAcknowledgements } from '../../../src/crd-diff/index.ts';
import type { Finding } from '../../../src/crd-diff/types.ts';

describe('crd diff acknowledgements', () => {
  const dir = mkdtempSync(join(tmpdir(), 'op-gen-acks-'));
  mkdirSync(join(dir, '.op-gen'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const file = (text: string): void => writeFileSync(join(dir, '.op-gen/crd-diff.yaml'), text);

  it('a missing default file is no acknowledgement; a missing named file is an error', () => {
    rmSync(join(dir, '.op-gen/crd-diff.yaml'), { force: true });
    assert.deepEqual(readAcknowledgements(dir, undefined), []);
    assert.throws(() => readAcknowledgements(dir, 'acks.yaml'), /acks\.yaml: no such file/);
  });

  it('reports every problem of every entry at once', () => {
    file(`acknowledged:
  - crd: a.example.com
    rule: maximun
    reason: typo in the rule
  - crd: a.example.com
    rule: maximum
  - crd: a.example.com
    rule: enum
    reason: r
    paths: .spec.x
`);
    assert.throws(
      () => readAcknowledgements(dir, undefined),
      (err: Error) => {
        assert.match(err.message, /acknowledged\[0\]: unknown rule `maximun`/);
        assert.match(err.message, /acknowledged\[1\]: `reason` is required/);
        assert.match(err.message, /acknowledged\[2\]: unknown key `paths`/);
        return true;
      },
    );
    file('acknowledged: yes\n');
    assert.throws(() => readAcknowledgements(dir, undefined), /expected `acknowledged:` with a list/);
  });

  it('an acknowledgement without version or path matches any; only breaking findings are acknowledged', () => {
    file(`acknowledged:
  - crd: a.example.com
    rule: maximum
    reason: fleet checked
  - crd: a.example.com
    rule: pattern
    reason: risky findings need no acknowledgement
`);
    const acks = readAcknowledgements(dir, undefined);
    const findings: Finding[] = [
      {
        severity: 'breaking',
        rule: 'maximum',
        crd: 'a.example.com',
        version: 'v1',
        path: '.spec.a',
        message: 'm',
      },
      {
        severity: 'breaking',
        rule: 'maximum',
        crd: 'a.example.com',
        version: 'v2',
        path: '.spec.b',
        message: 'm',
      },
      {
        severity: 'breaking',
        rule: 'maximum',
        crd: 'b.example.com',
        version: 'v1',
        path: '.spec.a',
        message: 'm',
      },
      {
        severity: 'risky',
        rule: 'pattern',
        crd: 'a.example.com',
        version: 'v1',
        path: '.spec.c',
        message: 'm',
      },
    ];
    const report = applyAcknowledgements(findings, acks);
    assert.deepEqual(
      report.findings.map((f) => f.acknowledged),
      ['fleet checked', 'fleet checked', undefined, undefined],
    );
    assert.equal(report.failed, true);
    assert.deepEqual(report.counts, { breaking: 3, risky: 1, safe: 0, acknowledged: 2 });
    assert.deepEqual(
      report.unmatchedAcknowledgements.map((a) => a.index),
      [2],
    );
  });
});
