import assert from 'node:assert/strict';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, relative } from 'node:path';
import { Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { format } from 'prettier';
import { main } from '../../../src/cli/main.ts';
import { OpGenError } from '../../../src/errors.ts';
import { renderClients } from '../../../src/generate/client/index.ts';
import { assertGolden as assertGoldenFile } from '../../helpers/golden.ts';
import { typeCheck, type Diagnostic } from '../types/tsc.ts';

const repo = join(import.meta.dirname, '..', '..', '..');
const fixture = join(repo, 'test', 'fixtures', 'client');
const goldenDir = join(repo, 'test', 'golden', 'client');

async function assertGolden(cwd: string, apiDir: string, out: string, expected: string[]): Promise<void> {
  const files = await renderClients({ cwd, apiDir, outDir: out });
  assert.deepEqual(
    files.map((f) => relative(goldenDir, f.path)),
    expected,
  );
  for (const f of files) {
    assertGoldenFile(f.path, f.content);
    const pretty = await format(f.content, {
      parser: 'typescript',
      singleQuote: true,
      printWidth: 110,
      trailingComma: 'all',
    });
    assert.equal(f.content, pretty, `${f.path} is not prettier-formatted`);
  }
}

describe('generate client: golden output (UPDATE_GOLDEN=1 to rewrite)', () => {
  it('the fleet API: a namespaced kind with status and scale, a cluster-scoped kind without', async () => {
    await assertGolden(fixture, 'api', join(goldenDir, 'fleet-api'), [
      'fleet-api/fleet/v1/harbor.ts',
      'fleet-api/fleet/v1/ship.ts',
    ]);
    const ship = readFileSync(join(goldenDir, 'fleet-api/fleet/v1/ship.ts'), 'utf8');
    const harbor = readFileSync(join(goldenDir, 'fleet-api/fleet/v1/harbor.ts'), 'utf8');
    for (const method of ['getStatus(', 'replaceStatus(', 'applyStatus(', 'getScale(', 'scale(']) {
      assert.ok(ship.includes(`  ${method}`), `Ship has ${method}`);
      assert.ok(!harbor.includes(`  ${method}`), `Harbor has no ${method}`);
    }
  });

  it("generate crd's rich fixture API: served versions only, types named as declared", async () => {
    await assertGolden(join(repo, 'test', 'fixtures', 'crd'), 'api', join(goldenDir, 'crd-api'), [
      'crd-api/infra/v1/backup.ts',
      'crd-api/shop/v1/store.ts',
      'crd-api/shop/v1alpha1/store.ts',
    ]);
  });

  it('an API folder without kinds is a clear error (from the API model loader)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'op-gen-client-empty-'));
    try {
      mkdirSync(join(dir, 'src/api/x/v1'), { recursive: true });
      writeFileSync(
        join(dir, 'src/api/x/v1/groupversion.ts'),
        "export const groupVersion = { group: 'x.example.com', version: 'v1' } as const;\n",
      );
      await assert.rejects(renderClients({ cwd: dir }), (err: unknown) => {
        assert.ok(err instanceof OpGenError);
        assert.match(err.message, /no kinds found/);
        return true;
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('op-gen generate client (CLI)', () => {
  it('writes, then --check passes; a stale file fails --check with exit 1', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'op-gen-client-cli-'));
    try {
      cpSync(join(fixture, 'api'), join(dir, 'src/api'), { recursive: true });
      let out = '';
      const stdout = new Writable({
        write: (c: Buffer, _e, cb) => {
          out += c.toString();
          cb();
        },
      });
      assert.equal(await main(['generate', 'client'], { cwd: dir, stdout }), 0);
      assert.match(out, /wrote {5}src\/clients\/fleet\/v1\/ship\.ts/);
      assert.equal(await main(['generate', 'client', '--check'], { cwd: dir, stdout }), 0);
      writeFileSync(join(dir, 'src/clients/fleet/v1/ship.ts'), '// stale\n');
      let err = '';
      const stderr = new Writable({
        write: (c: Buffer, _e, cb) => {
          err += c.toString();
          cb();
        },
      });
      assert.equal(await main(['generate', 'client', '--check'], { cwd: dir, stderr }), 1);
      assert.match(err, /1 client file\(s\) out of date:\n {2}src\/clients\/fleet\/v1\/ship\.ts/);
      assert.ok(existsSync(join(dir, 'src/clients/fleet/v1/harbor.ts')));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('generate client: stale client modules', () => {
  it('deletes generated modules of kinds the API no longer has (and their empty folders), never hand-written ones', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'op-gen-client-stale-'));
    try {
      cpSync(join(fixture, 'api'), join(dir, 'src/api'), { recursive: true });
      const sink = (): { stream: Writable; text: () => string } => {
        let text = '';
        const stream = new Writable({
          write: (c: Buffer, _e, cb) => {
            text += c.toString();
            cb();
          },
        });
        return { stream, text: () => text };
      };
      assert.equal(await main(['generate', 'client'], { cwd: dir, stdout: sink().stream }), 0);
      const ship = readFileSync(join(dir, 'src/clients/fleet/v1/ship.ts'), 'utf8');
      // What an earlier API left behind: a generated client of a version that is gone.
      mkdirSync(join(dir, 'src/clients/fleet/v2'), { recursive: true });
      writeFileSync(join(dir, 'src/clients/fleet/v2/ship.ts'), ship);
      writeFileSync(join(dir, 'src/clients/fleet/v1/helpers.ts'), 'export const mine = 1;\n');
      const err = sink();
      assert.equal(await main(['generate', 'client', '--check'], { cwd: dir, stderr: err.stream }), 1);
      assert.match(err.text(), /1 client file\(s\) out of date:\n {2}src\/clients\/fleet\/v2\/ship\.ts\n/);
      assert.ok(existsSync(join(dir, 'src/clients/fleet/v2/ship.ts')), '--check deletes nothing');
      const out = sink();
      assert.equal(await main(['generate', 'client'], { cwd: dir, stdout: out.stream }), 0);
      assert.match(out.text(), /removed +src\/clients\/fleet\/v2\/ship\.ts \(stale\)/);
      assert.equal(existsSync(join(dir, 'src/clients/fleet/v2')), false, 'the emptied folder goes too');
      assert.ok(existsSync(join(dir, 'src/clients/fleet/v1/helpers.ts')), 'a file without the header stays');
      assert.equal(await main(['generate', 'client', '--check'], { cwd: dir, stdout: sink().stream }), 0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('generated clients compile strict-clean, and misuse does not', { timeout: 120_000 }, () => {
  let dir: string;
  let diagnostics: Diagnostic[];

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'op-gen-client-compile-'));
    cpSync(join(fixture, 'api'), join(dir, 'api'), { recursive: true });
    cpSync(join(fixture, 'compile'), dir, { recursive: true });
    writeFileSync(join(dir, 'package.json'), '{ "type": "module" }\n');
    const files = await renderClients({ cwd: dir, apiDir: 'api', outDir: 'clients' });
    for (const f of files) {
      mkdirSync(join(f.path, '..'), { recursive: true });
      writeFileSync(f.path, f.content);
    }
    diagnostics = typeCheck([join(dir, 'usage-ok.ts'), join(dir, 'wrong-usage.ts')]);
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('the generated clients and their typical use have no error', () => {
    assert.deepEqual(
      diagnostics.filter((d) => basename(d.file) !== 'wrong-usage.ts'),
      [],
    );
  });

  it('every misuse fails with the error code written on its line, and nothing else fails', () => {
    const source = readFileSync(join(fixture, 'compile', 'wrong-usage.ts'), 'utf8').split('\n');
    const expected = source.flatMap((line, i) => {
      const m = /\/\/ TS(\d+):/.exec(line);
      return m ? [[i + 1, Number(m[1])]] : [];
    });
    assert.equal(expected.length, 20);
    const actual = diagnostics
      .filter((d) => basename(d.file) === 'wrong-usage.ts')
      .map((d) => [d.line, d.code]);
    assert.deepEqual(actual, expected);
  });
});
