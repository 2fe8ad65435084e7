import assert from 'node:assert/strict';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { main } from '../../../src/cli/main.ts';
import { generateDocs } from '../../../src/generate/docs/index.ts';
import { assertGoldenDir } from '../../helpers/golden.ts';

const FIXTURES = new URL('../../fixtures/', import.meta.url).pathname;
const GOLDEN = new URL('../../golden/docs/', import.meta.url).pathname;

/** A project in a temp folder: the fixture API as src/api, the fixture samples as config/samples. */
function project(api: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'op-gen-docs-'));
  cpSync(join(FIXTURES, 'crd', api), join(dir, 'src/api'), { recursive: true });
  cpSync(join(FIXTURES, 'docs/samples'), join(dir, 'config/samples'), { recursive: true });
  return dir;
}

function pages(dir: string): Map<string, string> {
  const out = join(dir, 'docs/api');
  return new Map(readdirSync(out).map((f) => [f, readFileSync(join(out, f), 'utf8')]));
}

async function opGen(cwd: string, ...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  const chunks = { out: [] as string[], err: [] as string[] };
  const sink = (into: string[]): Writable =>
    new Writable({
      write(chunk: Buffer, _enc, done) {
        into.push(chunk.toString());
        done();
      },
    });
  const code = await main(argv, { stdout: sink(chunks.out), stderr: sink(chunks.err), cwd });
  return { code, out: chunks.out.join(''), err: chunks.err.join('') };
}

describe('generate docs on the fixture APIs (goldens)', () => {
  let dir = '';
  let cel = '';
  before(() => {
    dir = project('api');
    cel = project('api-cel');
  });
  after(() => {
    rmSync(dir, { recursive: true, force: true });
    rmSync(cel, { recursive: true, force: true });
  });

  it('writes one page per group version, equal to the goldens (UPDATE_GOLDEN=1 rewrites them)', async () => {
    const result = await generateDocs({ cwd: dir });
    assert.deepEqual(result.files, [
      'docs/api/infra.example.com-v1.md',
      'docs/api/shop.example.com-v1.md',
      'docs/api/shop.example.com-v1alpha1.md',
    ]);
    await generateDocs({ cwd: cel });
    const files = new Map([...pages(dir), ...pages(cel)]);
    assertGoldenDir(GOLDEN, files);
  });

  it('shows the samples of a kind as its examples, and only those', () => {
    const shop = readFileSync(join(dir, 'docs/api/shop.example.com-v1.md'), 'utf8');
    assert.match(
      shop,
      /### Example\n\nFrom `config\/samples\/shop_v1_store\.yaml`:\n\n```yaml\napiVersion: shop\.example\.com\/v1\n/,
    );
    const infra = readFileSync(join(dir, 'docs/api/infra.example.com-v1.md'), 'utf8');
    assert.match(infra, /### Example 1\n[\s\S]*name: nightly[\s\S]*### Example 2\n[\s\S]*name: weekly/);
    assert.doesNotMatch(shop + infra, /Thing|kustomization/);
    // The v1alpha1 Store has no sample: no example section.
    assert.doesNotMatch(
      readFileSync(join(dir, 'docs/api/shop.example.com-v1alpha1.md'), 'utf8'),
      /### Example/,
    );
  });

  it('links every type it names to a section of the page', () => {
    for (const [name, text] of pages(dir)) {
      const anchors = new Set([...text.matchAll(/<a id="([^"]+)"><\/a>/g)].map((m) => m[1]));
      const links = [...text.matchAll(/\]\(#([^)]+)\)/g)].map((m) => m[1]);
      assert.ok(links.length > 0, `${name} has no links`);
      for (const link of links) assert.ok(anchors.has(link), `${name}: #${link} has no anchor`);
    }
  });

  it('is deterministic: a second run changes nothing and --check passes', async () => {
    const again = await generateDocs({ cwd: dir });
    assert.deepEqual(again.written, []);
    const r = await opGen(dir, 'generate', 'docs', '--check');
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /3 API reference file\(s\) up to date/);
  });

  it('--check exits 1 listing a stale page and writes nothing', async () => {
    const page = join(dir, 'docs/api/shop.example.com-v1.md');
    const before = readFileSync(page, 'utf8');
    writeFileSync(page, 'edited by hand\n');
    const r = await opGen(dir, 'generate', 'docs', '--check');
    assert.equal(r.code, 1);
    assert.match(r.err, /1 API reference file\(s\) out of date:\n {2}docs\/api\/shop\.example\.com-v1\.md/);
    assert.equal(readFileSync(page, 'utf8'), 'edited by hand\n');
    const fixed = await opGen(dir, 'generate', 'docs');
    assert.equal(fixed.code, 0, fixed.err);
    assert.equal(readFileSync(page, 'utf8'), before);
  });

  it('removes a page it wrote for a group version that is gone, never a page it did not write', async () => {
    const first = readFileSync(join(dir, 'docs/api/shop.example.com-v1.md'), 'utf8');
    writeFileSync(join(dir, 'docs/api/gone.example.com-v1.md'), first);
    writeFileSync(join(dir, 'docs/api/README.md'), '# hand-written\n');
    const result = await generateDocs({ cwd: dir });
    assert.deepEqual(result.removed, ['docs/api/gone.example.com-v1.md']);
    assert.ok(!existsSync(join(dir, 'docs/api/gone.example.com-v1.md')));
    assert.ok(existsSync(join(dir, 'docs/api/README.md')));
    rmSync(join(dir, 'docs/api/README.md'));
  });

  it('writes nothing when the API has a problem, and says where', async () => {
    const broken = project('api');
    try {
      const file = join(broken, 'src/api/infra/v1/backup_types.ts');
      writeFileSync(file, readFileSync(file, 'utf8').replace('@minimum 1', '@minimum one'));
      const r = await opGen(broken, 'generate', 'docs');
      assert.equal(r.code, 1);
      assert.match(r.err, /src\/api\/infra\/v1\/backup_types\.ts:\d+/);
      assert.ok(!existsSync(join(broken, 'docs')));
    } finally {
      rmSync(broken, { recursive: true, force: true });
    }
  });
});
