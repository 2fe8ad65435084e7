import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { generateCrdIn } from '../../helpers/crd-front-ends.ts';

/**
 * Issue 37 item 3: the syntax front end reads typed constants (`export const AllowConcurrent:
 * ConcurrencyPolicy = 'Allow';`) and string constants no field uses, placed before the unions that
 * hold the same literals, and writes the checker walk's bytes (enum order included).
 */
const FIXTURE = new URL('../../fixtures/crd/consts/', import.meta.url).pathname;

const CRD = 'config/crd/bases/batch.example.com_cronjobs.yaml';
const generate = (dir: string, front: 'checker' | 'syntax') => generateCrdIn(dir, front, CRD);

describe('syntax front end: constants', () => {
  const dir = mkdtempSync(join(tmpdir(), 'op-gen-consts-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('reads typed and unused string constants and writes what the checker walk writes', async () => {
    cpSync(FIXTURE, dir, { recursive: true });
    const syntax = await generate(dir, 'syntax');
    assert.equal(syntax.code, 0, syntax.err);
    const checker = await generate(dir, 'checker');
    assert.equal(checker.code, 0, checker.err);
    assert.equal(syntax.crd, checker.crd);
    // The union's written order, not the order the constants name the literals in.
    assert.match(checker.crd, /enum:\n\s+- "True"\n\s+- "False"\n\s+- Unknown\n/);
    assert.match(checker.crd, /enum:\n\s+- Allow\n\s+- Forbid\n\s+- Replace\n/);
  });
});
