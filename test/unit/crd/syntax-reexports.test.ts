import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { main } from '../../../src/cli/main.ts';
import { sink } from '../../helpers/io.ts';

/**
 * Issue 37 item 3: the syntax front end reads re-exports (`export * from`, `export { A as B } from`,
 * `export type { A } from`) and type-only imports (`import type`, `import { type A }`), and writes
 * the checker walk's bytes.
 */
const FIXTURE = new URL('../../fixtures/crd/reexports/', import.meta.url).pathname;
const CRD = 'config/crd/bases/shop.example.com_widgets.yaml';

async function generate(
  dir: string,
  front: 'checker' | 'syntax',
): Promise<{ code: number; crd: string; err: string }> {
  const err = sink();
  const before = process.env.OP_GEN_CRD_FRONT_END;
  process.env.OP_GEN_CRD_FRONT_END = front;
  try {
    rmSync(join(dir, 'config'), { recursive: true, force: true });
    const code = await main(['generate', 'crd', '--cwd', dir], { stdout: sink().stream, stderr: err.stream });
    const crd = code === 0 ? readFileSync(join(dir, CRD), 'utf8') : '';
    return { code, crd, err: err.text() };
  } finally {
    if (before === undefined) delete process.env.OP_GEN_CRD_FRONT_END;
    else process.env.OP_GEN_CRD_FRONT_END = before;
  }
}

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
