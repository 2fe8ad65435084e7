import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { generateCrds } from '../../../src/generate/crd/index.ts';

const DOCS = new URL('../../../docs/', import.meta.url).pathname;

/** Issue 14 item 12: the docs stand alone and say what the code does; errors point at the right page. */
describe('docs fixes (issue 14 item 12)', () => {
  const root = mkdtempSync(join(tmpdir(), 'op-gen-docs-'));
  after(() => rmSync(root, { recursive: true, force: true }));

  it('no doc links or cites a file outside the repository', () => {
    const files = readdirSync(DOCS, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.md'));
    assert.ok(files.length > 5);
    for (const file of files) {
      const text = readFileSync(join(DOCS, file), 'utf8');
      const depth = file.split('/').length - 1;
      // From docs/<file>, `../` reaches the repository root; one more leaves it. TypeScript blocks are
      // a project's own files (a tutorial's `import ... from '../../../api/...'`), not citations.
      const prose = text.replace(/^```(?:ts|typescript)\b[^\n]*\n[\s\S]*?^```/gm, '');
      assert.doesNotMatch(prose, new RegExp(`(\\.\\./){${depth + 2},}`), file);
      assert.doesNotMatch(text, /\.\.\/shared\/|\/work\//, file);
    }
  });

  it("docs/bundle.md's Not yet does not list what the bundle does (the metrics Service is bundled)", () => {
    const text = readFileSync(join(DOCS, 'bundle.md'), 'utf8');
    const notYet = text.slice(text.indexOf('## Not yet'));
    assert.doesNotMatch(notYet, /metrics Service/);
    assert.match(text, /copied into\s+`bundle\/manifests\/`: the metrics Service/);
  });

  it('docs/testing.md says how a project builds the binaries instead of pointing at the README', () => {
    const text = readFileSync(join(DOCS, 'testing.md'), 'utf8');
    assert.doesNotMatch(text, /see the README/);
    assert.match(text, /npm explore op-gen -- npm run setup:envtest/);
  });

  it('an unknown Kubernetes type points at docs/generate-crd-builtin-types.md, which lists them', async () => {
    const dir = join(root, 'src/api/things/v1');
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      join(dir, 'groupversion.ts'),
      "export const groupVersion = { group: 'things.example.com', version: 'v1' } as const;\n",
    );
    writeFileSync(
      join(dir, 'thing.ts'),
      "import type { ObjectMeta } from 'op-gen';\nimport type { V1NotAThing } from '@kubernetes/client-node';\n/** @kind */\nexport interface Thing {\n  metadata?: ObjectMeta;\n  spec: { x?: V1NotAThing };\n}\n",
    );
    await assert.rejects(
      generateCrds({ cwd: root }),
      /thing\.ts:6: Thing\.spec\.x: uses V1NotAThing from @kubernetes\/client-node, which op-gen has no schema for\. Use a Kubernetes API type listed in docs\/generate-crd-builtin-types\.md/,
    );
    assert.match(readFileSync(join(DOCS, 'generate-crd-builtin-types.md'), 'utf8'), /V1PodTemplateSpec/);
  });
});
