import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { after, describe, it } from 'node:test';
import { main } from '../../../src/cli/main.ts';
import { toYaml } from '../../../src/shared/yaml.ts';

const root = mkdtempSync(join(tmpdir(), 'op-gen-json-'));
after(() => rmSync(root, { recursive: true, force: true }));
let n = 0;

async function run(cwd: string, ...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  const text = { out: '', err: '' };
  const sink = (key: 'out' | 'err'): Writable =>
    new Writable({
      write(chunk: Buffer, _enc, done) {
        text[key] += chunk.toString();
        done();
      },
    });
  const code = await main(argv, { stdout: sink('out'), stderr: sink('err'), cwd });
  return { code, ...text };
}

/** A project with one kind; with `badMarker`, its field has a marker argument that does not parse. */
function apiProject(badMarker = false): string {
  const cwd = join(root, `p${n++}`);
  const folder = join(cwd, 'src/api/things/v1');
  mkdirSync(folder, { recursive: true });
  writeFileSync(
    join(folder, 'groupversion.ts'),
    "export const groupVersion = { group: 'things.example.com', version: 'v1' } as const;\n",
  );
  const marker = badMarker ? '    /**\n     * @minimum abc\n     */\n' : '';
  writeFileSync(
    join(folder, 'thing.ts'),
    `import type { ObjectMeta } from 'op-gen';\n/**\n * Thing.\n * @kind\n */\nexport interface Thing {\n  metadata?: ObjectMeta;\n  spec: {\n${marker}    size?: number;\n  };\n}\n`,
  );
  return cwd;
}

describe('--json: the one result shape on stdout', () => {
  it('generate crd --json: files written, ok, no problems', async () => {
    const cwd = apiProject();
    const r = await run(cwd, 'generate', 'crd', '--json');
    assert.equal(r.code, 0, r.err);
    assert.deepEqual(JSON.parse(r.out), {
      generator: 'crd',
      check: false,
      files: ['config/crd/bases/things.example.com_things.yaml'],
      written: ['config/crd/bases/things.example.com_things.yaml'],
      unchanged: [],
      stale: [],
      removed: [],
      // generate crd adds each CRD's size and the size-budget warnings (size-budget.ts).
      sizes: [{ name: 'things.things.example.com', bytes: 565 }],
      warnings: [],
      ok: true,
      problems: [],
    });
  });

  it('generate crd --check --json: exit 1, ok false, the files out of date', async () => {
    const cwd = apiProject();
    await run(cwd, 'generate', 'crd');
    writeFileSync(join(cwd, 'config/crd/bases/things.example.com_things.yaml'), 'edited\n');
    const r = await run(cwd, 'generate', 'crd', '--check', '--json');
    assert.equal(r.code, 1);
    const report = JSON.parse(r.out) as { ok: boolean; written: string[]; check: boolean };
    assert.equal(report.ok, false);
    assert.equal(report.check, true);
    assert.deepEqual(report.written, ['config/crd/bases/things.example.com_things.yaml']);
    assert.match(r.err, /1 CRD file\(s\) out of date/);
  });

  it('generate crd --json with a bad marker: exit 1, every problem with file and line, nothing written', async () => {
    const cwd = apiProject(true);
    const r = await run(cwd, 'generate', 'crd', '--json');
    assert.equal(r.code, 1);
    const report = JSON.parse(r.out) as {
      ok: boolean;
      files: string[];
      problems: { file?: string; line?: number; message: string }[];
    };
    assert.equal(report.ok, false);
    assert.deepEqual(report.files, []);
    assert.equal(report.problems.length, 1);
    assert.match(report.problems[0]?.file ?? '', /src\/api\/things\/v1\/thing\.ts$/);
    assert.equal(report.problems[0]?.line, 10);
    assert.match(report.problems[0]?.message ?? '', /@minimum/);
    assert.equal(existsSync(join(cwd, 'config')), false);
  });

  it('bundle --json outside a project: exit non-zero, the problem as JSON', async () => {
    const cwd = join(root, `p${n++}`);
    mkdirSync(cwd);
    const r = await run(cwd, 'bundle', '--version', '0.1.0', '--json');
    assert.notEqual(r.code, 0);
    const report = JSON.parse(r.out) as { generator: string; ok: boolean; problems: { message: string }[] };
    assert.equal(report.generator, 'bundle');
    assert.equal(report.ok, false);
    assert.equal(report.problems.length, 1);
  });
});

/** A CRD of group example.com with kind `kind` and versions `versions`. */
function crd(kind: string, versions: readonly string[]): object {
  const plural = `${kind.toLowerCase()}s`;
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.example.com` },
    spec: {
      group: 'example.com',
      names: { kind, plural, singular: kind.toLowerCase(), listKind: `${kind}List` },
      scope: 'Namespaced',
      versions: versions.map((name, i) => ({
        name,
        served: true,
        storage: i === 0,
        schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object' } } } },
      })),
    },
  };
}

describe('generate types removes the files it generated whose CRD or version is gone', () => {
  it('stale modules of the same group go; other groups and hand-written files stay', async () => {
    const cwd = join(root, `p${n++}`);
    mkdirSync(join(cwd, 'src/types/other.io/v1'), { recursive: true });
    const other = join(cwd, 'src/types/other.io/v1/x.ts');
    writeFileSync(other, '// Code generated by op-gen generate types from x.yaml (X v1). DO NOT EDIT.\n');
    writeFileSync(
      join(cwd, 'crds.yaml'),
      `${toYaml(crd('Widget', ['v1', 'v2']))}---\n${toYaml(crd('Gizmo', ['v1']))}`,
    );
    const first = await run(cwd, 'generate', 'types', '--from', 'crds.yaml', '--json');
    assert.equal(first.code, 0, first.err);
    assert.deepEqual((JSON.parse(first.out) as { written: string[] }).written, [
      'src/types/example.com/v1/gizmo.ts',
      'src/types/example.com/v1/widget.ts',
      'src/types/example.com/v2/widget.ts',
    ]);
    mkdirSync(join(cwd, 'src/types/example.com/v1'), { recursive: true });
    writeFileSync(join(cwd, 'src/types/example.com/v1/helpers.ts'), 'export const mine = 1;\n');
    writeFileSync(join(cwd, 'crds.yaml'), toYaml(crd('Widget', ['v1'])));
    const check = await run(cwd, 'generate', 'types', '--from', 'crds.yaml', '--check', '--json');
    assert.equal(check.code, 1);
    assert.deepEqual((JSON.parse(check.out) as { stale: string[] }).stale, [
      'src/types/example.com/v1/gizmo.ts',
      'src/types/example.com/v2/widget.ts',
    ]);
    const second = await run(cwd, 'generate', 'types', '--from', 'crds.yaml');
    assert.equal(second.code, 0, second.err);
    assert.match(second.out, /^removed {3}src\/types\/example\.com\/v2\/widget\.ts \(stale\)$/m);
    assert.equal(existsSync(join(cwd, 'src/types/example.com/v2')), false);
    assert.equal(existsSync(join(cwd, 'src/types/example.com/v1/gizmo.ts')), false);
    assert.equal(existsSync(join(cwd, 'src/types/example.com/v1/helpers.ts')), true);
    assert.equal(existsSync(other), true, "another group's types stay");
    assert.match(
      readFileSync(join(cwd, 'src/types/example.com/v1/widget.ts'), 'utf8'),
      /^\/\/ Code generated/,
    );
  });
});

describe('generate rbac: --out, and --output-dir as its earlier name', () => {
  for (const flag of ['--out', '--output-dir']) {
    it(`${flag} names the output folder`, async () => {
      const cwd = join(root, `p${n++}`);
      mkdirSync(join(cwd, 'src'), { recursive: true });
      writeFileSync(join(cwd, 'src/main.ts'), 'export {};\n');
      const r = await run(cwd, 'generate', 'rbac', flag, 'deploy/rbac', '--json');
      assert.equal(r.code, 0, r.err);
      const report = JSON.parse(r.out) as { files: string[] };
      assert.ok(report.files.includes('deploy/rbac/role.yaml'), report.files.join(', '));
      assert.ok(existsSync(join(cwd, 'deploy/rbac/role.yaml')));
    });
  }
});
