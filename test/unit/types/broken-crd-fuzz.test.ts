import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import fc from 'fast-check';
import { main } from '../../../src/cli/main.ts';
import { sink } from '../../helpers/io.ts';
import { snapshot } from '../broken-input/project.ts';
import { assertFloor, assertProperty, fuzzRuns } from '../../helpers/fuzz-runs.ts';
import { mutatedText, realCrdTexts } from './crd-mutants.ts';

/**
 * Property: `generate types` on a mutated CRD file (a line deleted or duplicated, an indent changed,
 * stray punctuation, a value replaced by one of the wrong kind) either succeeds or fails with exit 1,
 * a message naming the file, and nothing written. Never an internal error (exit 70) or a stack.
 * OP_GEN_FUZZ_RUNS sets the count (default 40; `npm run test:fuzz` runs more).
 */
const RUNS = fuzzRuns(40, 2000);
describe('generate types on mutated CRD files never crashes or half-writes', () => {
  const dir = mkdtempSync(join(tmpdir(), 'op-gen-types-fuzz-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it(`holds for ${RUNS} mutants`, async (t) => {
    let rejected = 0;
    let accepted = 0;
    await assertProperty(
      t,
      fc.asyncProperty(mutatedText(realCrdTexts()), async ({ text, description }) => {
        const input = join(dir, 'crd.yaml');
        writeFileSync(input, text);
        const out = join(dir, 'out');
        const prior = snapshot(out);
        const stdout = sink();
        const stderr = sink();
        const code = await main(['generate', 'types', '--from', input, '--out', out], {
          stdout: stdout.stream,
          stderr: stderr.stream,
          cwd: dir,
        });
        const context = `${description}\nexit ${code}\n${stderr.text()}`;
        assert.ok(code === 0 || code === 1, `exit 0 or 1\n${context}`);
        assert.doesNotMatch(stderr.text(), /internal error|\n\s+at /, `no stack\n${context}`);
        if (code === 1) {
          rejected++;
          assert.match(stderr.text(), /^op-gen: .*crd\.yaml/, `names the file\n${context}`);
          assert.deepEqual(snapshot(out), prior, `nothing written\n${context}`);
        } else accepted++;
      }),
      RUNS,
      { endOnFailure: true },
    );
    assertFloor(t, 'rejected with a message naming the file', rejected, RUNS * 0.1);
    assertFloor(t, 'accepted', accepted, RUNS * 0.05);
  });
});
