import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { generateCrds } from '../../../src/generate/crd/index.ts';
import { assertGolden } from '../../helpers/golden.ts';

const FIXTURE = new URL('../../fixtures/crd/', import.meta.url).pathname;
const GOLDEN = new URL('../../golden/crd/', import.meta.url).pathname;
const GOLDEN_FILE = 'guard.example.com_guards.yaml';

/**
 * CEL rules (`@validation`, `@exactlyOneOf`, `@immutable`...) live in their own fixture folder:
 * generating them runs the CEL checker (src/generate/crd/cel-check.ts).
 */
describe('CEL markers', () => {
  const out = mkdtempSync(join(tmpdir(), 'op-gen-crd-cel-'));
  after(() => rmSync(out, { recursive: true, force: true }));

  it('emits every CEL form, equal to the golden (UPDATE_GOLDEN=1 rewrites it)', async () => {
    await generateCrds({ cwd: FIXTURE, apiDir: 'api-cel', outDir: out });
    const text = readFileSync(join(out, GOLDEN_FILE), 'utf8');
    assertGolden(join(GOLDEN, GOLDEN_FILE), text);
    for (const expected of [
      'rule: "[has(self.domain),has(self.ip)].filter(x,x==true).size() == 1"',
      'rule: "[has(self.tcp),has(self.udp)].filter(x,x==true).size() <= 1"',
      'rule: self == oldSelf',
      'optionalOldSelf: true',
      'fieldPath: .slots',
      'reason: FieldValueInvalid',
      'rule: self.width <= 10',
      "rule: self.metadata.name.startsWith('g')",
    ]) {
      assert.ok(text.includes(expected), expected);
    }
  });
});
