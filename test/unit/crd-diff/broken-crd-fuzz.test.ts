import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import fc from 'fast-check';
import { main } from '../../../src/cli/main.ts';
import { sink } from '../../helpers/io.ts';
import { assertFloor, assertProperty, fuzzRuns } from '../../helpers/fuzz-runs.ts';
import { mutatedText, realCrdTexts } from '../types/crd-mutants.ts';

/**
 * Property: `crd diff old.yaml new.yaml` with a mutated new side (see crd-mutants.ts) exits 0 or 1;
 * an error (as opposed to a report of breaking changes) is one `op-gen:` message naming the file;
 * never an internal error or a stack. OP_GEN_FUZZ_RUNS sets the count (default 40; `npm run
 * test:fuzz` runs 2,000).
 */
const RUNS = fuzzRuns(40, 2000);

describe('crd diff against a mutated CRD never crashes', () => {
  const dir = mkdtempSync(join(tmpdir(), 'op-gen-crd-diff-fuzz-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it(`holds for ${RUNS} mutants`, async (t) => {
    let errors = 0;
    let reports = 0;
    await assertProperty(
      t,
      fc.asyncProperty(mutatedText(realCrdTexts()), async ({ original, text, description }) => {
        writeFileSync(join(dir, 'old.yaml'), original);
        writeFileSync(join(dir, 'new.yaml'), text);
        const stdout = sink();
        const stderr = sink();
        const code = await main(['crd', 'diff', 'old.yaml', 'new.yaml'], {
          stdout: stdout.stream,
          stderr: stderr.stream,
          cwd: dir,
        });
        const context = `${description}\nexit ${code}\n${stderr.text()}`;
        assert.ok(code === 0 || code === 1, `exit 0 or 1\n${context}`);
        assert.doesNotMatch(stderr.text(), /internal error|\n\s+at /, `no stack\n${context}`);
        const error =
          stderr.text().startsWith('op-gen:') && !/breaking change\(s\) not acknowledged/.test(stderr.text());
        if (error) {
          errors++;
          assert.match(stderr.text(), /new\.yaml/, `an error names the file\n${context}`);
        } else reports++;
      }),
      RUNS,
      { endOnFailure: true },
    );
    assertFloor(t, 'failed with an error naming the file', errors, RUNS * 0.1);
    assertFloor(t, 'compared (a report)', reports, RUNS * 0.05);
  });
});
