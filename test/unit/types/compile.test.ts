import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { generateTypes } from '../../../src/generate/types/index.ts';
import { typeCheck, type Diagnostic } from './tsc.ts';

const repo = join(import.meta.dirname, '..', '..', '..');
const fixtures = join(repo, 'test', 'fixtures', 'types');

describe('generated types compile, and misuse does not', { timeout: 120_000 }, () => {
  let dir: string;
  let diagnostics: Diagnostic[];
  const byFile = (name: string): Diagnostic[] => diagnostics.filter((d) => basename(d.file) === name);

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'op-gen-types-compile-'));
    await generateTypes({ cwd: dir, from: [fixtures], outDir: 'types' });
    cpSync(join(fixtures, 'compile'), dir, { recursive: true });
    writeFileSync(join(dir, 'package.json'), '{ "type": "module" }\n');
    diagnostics = typeCheck(
      ['usage-ok.ts', 'wrong-field.ts', 'wrong-type.ts', 'wrong-kind.ts'].map((f) => join(dir, f)),
    );
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('the generated modules and their typical use have no error', () => {
    const clean = diagnostics.filter((d) => d.file.includes('/types/') || basename(d.file) === 'usage-ok.ts');
    assert.deepEqual(clean, []);
  });

  it('a field the CRD does not have is an excess-property error (TS2561, with the did-you-mean)', () => {
    const errors = byFile('wrong-field.ts');
    assert.deepEqual(
      errors.map((d) => [d.line, d.code]),
      [[8, 2561]],
    );
    assert.match(errors[0]?.message ?? '', /'dnsName' does not exist.*Did you mean to write 'dnsNames'/s);
  });

  it('a wrong type or a value outside the enum is TS2322', () => {
    const errors = byFile('wrong-type.ts');
    assert.deepEqual(
      errors.map((d) => [d.line, d.code]),
      [
        [9, 2322],
        [12, 2322],
      ],
    );
    assert.match(
      errors[0]?.message ?? '',
      /Type 'true' is not assignable to type 'string \| number \| undefined'/,
    );
    assert.match(errors[1]?.message ?? '', /"DSA"/);
  });

  it('another apiVersion literal (TS2322) and a missing required field (TS2741) do not compile', () => {
    const errors = byFile('wrong-kind.ts');
    assert.deepEqual(
      errors.map((d) => [d.line, d.code]),
      [
        [5, 2322],
        [11, 2741],
      ],
    );
    assert.match(errors[1]?.message ?? '', /secretName/);
  });
});
