import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { generateCrdIn } from '../../helpers/crd-front-ends.ts';

/**
 * Issue 37 item 3: the syntax front end reads re-exports (`export * from`, `export { A as B } from`,
 * `export type { A } from`) and type-only imports (`import type`, `import { type A }`), and writes
 * the checker walk's bytes.
 */
const FIXTURE = new URL('../../fixtures/crd/reexports/', import.meta.url).pathname;
const CRD = 'config/crd/bases/shop.example.com_widgets.yaml';

const generate = (dir: string, front: 'checker' | 'syntax') => generateCrdIn(dir, front, CRD);

describe('syntax front end: re-exports and type-only imports', () => {
  const root = mkdtempSync(join(tmpdir(), 'op-gen-reexports-'));
  after(() => rmSync(root, { recursive: true, force: true }));

  it('reads types through export * and renaming re-exports, as the checker walk does', async () => {
    const dir = join(root, 'same');
    cpSync(FIXTURE, dir, { recursive: true });
    const syntax = await generate(dir, 'syntax');
    assert.equal(syntax.code, 0, syntax.err);
    const checker = await generate(dir, 'checker');
    assert.equal(checker.code, 0, checker.err);
    assert.equal(syntax.crd, checker.crd);
    // Through `export *` (Phase), a renaming re-export (Size as WidgetSize) and `export type` (Ref).
    assert.match(syntax.crd, /enum:\n\s+- Pending\n\s+- Ready\n\s+- Failed\n/);
    assert.match(syntax.crd, /size:\n\s+minimum: 1\n\s+type: number\n/);
    assert.match(syntax.crd, /name:\n\s+minLength: 1\n/);
  });

  it('declines a re-export of a name the module does not export', async () => {
    const dir = join(root, 'missing');
    cpSync(FIXTURE, dir, { recursive: true });
    writeFileSync(
      join(dir, 'src/common/index.ts'),
      "export * from './phase.ts';\nexport { Size as WidgetSize, type Labels, Nope } from './size.ts';\nexport type { Ref } from './ref.ts';\n",
    );
    const syntax = await generate(dir, 'syntax');
    assert.notEqual(syntax.code, 0);
    assert.match(syntax.err, /src\/common\/index\.ts:2: `Nope` is not exported by \.\/size\.ts/);
  });

  it('declines a namespace re-export (export * as ns)', async () => {
    const dir = join(root, 'namespace');
    cpSync(FIXTURE, dir, { recursive: true });
    writeFileSync(join(dir, 'src/api/shop/v1/index.ts'), "export * as widgets from './widget_types.ts';\n");
    const syntax = await generate(dir, 'syntax');
    assert.notEqual(syntax.code, 0);
    assert.match(syntax.err, /index\.ts:1: `export \* as` \(a namespace export\)/);
  });
});
