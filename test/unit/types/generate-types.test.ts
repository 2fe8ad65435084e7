import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { Writable } from 'node:stream';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { main } from '../../../src/cli/main.ts';
import { OpGenError } from '../../../src/errors.ts';
import { generateTypes, renderTypes, toJsonSchema } from '../../../src/generate/types/index.ts';
import { assertGolden } from '../../helpers/golden.ts';

const repo = join(import.meta.dirname, '..', '..', '..');
const fixtures = join(repo, 'test', 'fixtures', 'types');
const goldenDir = join(repo, 'test', 'golden', 'types');

function sink(): { stream: Writable; text: () => string } {
  let out = '';
  const stream = new Writable({
    write(chunk: Buffer, _enc, cb) {
      out += chunk.toString();
      cb();
    },
  });
  return { stream, text: () => out };
}

describe('generate types: golden output of the real-world CRDs', () => {
  it('matches test/golden/types (UPDATE_GOLDEN=1 to rewrite)', async () => {
    const files = await renderTypes({
      cwd: repo,
      from: ['test/fixtures/types'],
      outDir: 'test/golden/types',
    });
    assert.deepEqual(
      files.map((f) => relative(goldenDir, f.path)),
      [
        'argoproj.io/v1alpha1/rollout.ts',
        'cert-manager.io/v1/certificate.ts',
        'monitoring.coreos.com/v1/servicemonitor.ts',
      ],
    );
    for (const f of files) assertGolden(f.path, f.content);
  });

  it('is deterministic: the same output whatever the input order', async () => {
    const a = await renderTypes({ cwd: repo, from: ['test/fixtures/types'] });
    const b = await renderTypes({
      cwd: repo,
      from: [
        'test/fixtures/types/monitoring.coreos.com_servicemonitors.yaml',
        'test/fixtures/types/argoproj.io_rollouts.yaml',
        'test/fixtures/types/cert-manager.io_certificates.yaml',
      ],
    });
    assert.deepEqual(
      a.map((f) => [f.path, f.content.split('\n').slice(1).join('\n')]),
      b.map((f) => [f.path, f.content.split('\n').slice(1).join('\n')]),
    );
  });
});

describe('generate types: Kubernetes extensions', () => {
  it('maps int-or-string, preserve-unknown-fields, embedded resources, nullable and list/map types', () => {
    const schema = toJsonSchema(
      {
        type: 'object',
        properties: {
          port: { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] },
          raw: { 'x-kubernetes-preserve-unknown-fields': true },
          open: {
            type: 'object',
            'x-kubernetes-preserve-unknown-fields': true,
            properties: { a: { type: 'string' } },
          },
          child: {
            type: 'object',
            'x-kubernetes-embedded-resource': true,
            'x-kubernetes-preserve-unknown-fields': true,
          },
          note: { type: 'string', nullable: true },
          ports: {
            type: 'array',
            'x-kubernetes-list-type': 'map',
            'x-kubernetes-list-map-keys': ['name', 'protocol'],
            items: { type: 'object', properties: { name: { type: 'string' } } },
          },
        },
      },
      'T',
    );
    const p = schema.properties ?? {};
    assert.equal(p['port']?.tsType, 'number | string');
    assert.equal(p['raw']?.tsType, 'unknown');
    assert.equal(p['open']?.additionalProperties, true);
    assert.deepEqual(Object.keys(p['child']?.properties ?? {}), ['apiVersion', 'kind', 'metadata']);
    assert.equal(p['child']?.properties?.['metadata']?.tsType, 'ObjectMeta');
    assert.deepEqual(p['note']?.anyOf, [{ type: 'string' }, { type: 'null' }]);
    assert.equal(p['ports']?.description, '@listType map (keys: name, protocol)');
    assert.equal(
      p['ports']?.items && !Array.isArray(p['ports'].items) && p['ports'].items.additionalProperties,
      false,
    );
    assert.equal(schema.additionalProperties, false);
  });

  it('renders an embedded resource with ObjectMeta and unknown fields', async () => {
    const yaml = crdYaml({
      type: 'object',
      properties: {
        spec: {
          type: 'object',
          properties: {
            template: {
              type: 'object',
              'x-kubernetes-embedded-resource': true,
              'x-kubernetes-preserve-unknown-fields': true,
            },
          },
        },
      },
    });
    const [file] = await renderTypes({ cwd: '/x', from: ['-'], stdin: () => yaml });
    assert.match(
      file?.content ?? '',
      /template\?: \{\n\s+apiVersion\?: string;\n\s+kind\?: string;\n\s+metadata\?: ObjectMeta;\n\s+\[k: string\]: unknown;/,
    );
  });
});

describe('generate types --from -: kubectl get crd -o yaml', () => {
  it('reads the CRDs of a List (what kubectl prints for several objects)', async () => {
    const item = (kind: string, plural: string): string =>
      crdYaml({ type: 'object' })
        .replace('widgets.example.com', `${plural}.example.com`)
        .replace('{kind: Widget, plural: widgets}', `{kind: ${kind}, plural: ${plural}}`)
        .split('\n')
        .map((line, i) => (i === 0 ? `- ${line}` : `  ${line}`))
        .join('\n');
    const list = `apiVersion: v1\nkind: List\nmetadata: {resourceVersion: ""}\nitems:\n${item('Widget', 'widgets')}\n${item('Gadget', 'gadgets')}\n`;
    const files = await renderTypes({ cwd: '/x', from: ['-'], stdin: () => list });
    assert.deepEqual(files.map((f) => relative('/x', f.path)).sort(), [
      'src/types/example.com/v1/gadget.ts',
      'src/types/example.com/v1/widget.ts',
    ]);
  });

  it('names the item of a List that is not a CRD', async () => {
    const list =
      'apiVersion: v1\nkind: List\nitems:\n- {apiVersion: v1, kind: ConfigMap, metadata: {name: x}}\n';
    await assert.rejects(
      renderTypes({ cwd: '/x', from: ['-'], stdin: () => list }),
      /<stdin>:1 \(document 0\) items\[0\]: not a CustomResourceDefinition \(a ConfigMap\)/,
    );
  });
});

function crdYaml(schema: unknown, extra = ''): string {
  return `${extra}apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
spec:
  group: example.com
  names: {kind: Widget, plural: widgets}
  scope: Namespaced
  versions:
    - name: v1
      served: true
      storage: true
      schema:
        openAPIV3Schema: ${JSON.stringify(schema)}
`;
}

describe('generate types: bad input names the file and document, and writes nothing', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'op-gen-types-bad-'));
    writeFileSync(join(dir, 'a-good.yaml'), crdYaml({ type: 'object' }));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const cases: [string, string, RegExp][] = [
    [
      'not a CRD',
      `${crdYaml({ type: 'object' })}---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n`,
      /^z-bad\.yaml:15 \(document 1\): not a CustomResourceDefinition \(a ConfigMap\)/,
    ],
    [
      'YAML syntax error',
      `${crdYaml({ type: 'object' })}---\nkind: [unclosed\n`,
      /^z-bad\.yaml:\d+:\d+ \(document 1\): YAML syntax error/,
    ],
    [
      'a schema json-schema-to-typescript rejects',
      crdYaml({ type: 'object', properties: { a: { $ref: '#/definitions/missing' } } }),
      /^z-bad\.yaml:1 \(document 0\): Widget v1: json-schema-to-typescript rejected the schema: .*missing/,
    ],
    [
      'a malformed schema',
      crdYaml({ type: 'object', properties: { a: { type: 'array', items: [{ type: 'string' }] } } }),
      /^z-bad\.yaml:1 \(document 0\): spec\.versions\[0\]\.schema\.openAPIV3Schema\.properties\.a\.items: must be a schema \(a mapping\), found a list\. Fix the CRD\./,
    ],
  ];
  for (const [name, text, message] of cases) {
    it(name, async () => {
      writeFileSync(join(dir, 'z-bad.yaml'), text);
      await assert.rejects(generateTypes({ cwd: dir, from: ['.'], outDir: 'out' }), (err: unknown) => {
        assert.ok(err instanceof OpGenError);
        assert.match(err.message, message);
        return true;
      });
      assert.equal(existsSync(join(dir, 'out')), false, 'nothing written');
    });
  }
});

describe('op-gen generate types (CLI)', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'op-gen-types-cli-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('writes, then --check passes; a stale file fails --check with exit 1', async () => {
    const out = sink();
    const from = join(fixtures, 'cert-manager.io_certificates.yaml');
    assert.equal(await main(['generate', 'types', '--from', from], { cwd: dir, stdout: out.stream }), 0);
    assert.match(out.text(), /wrote {5}src\/types\/cert-manager\.io\/v1\/certificate\.ts/);
    assert.equal(
      await main(['gen', 'types', '--from', from, '--check'], { cwd: dir, stdout: out.stream }),
      0,
    );
    writeFileSync(join(dir, 'src/types/cert-manager.io/v1/certificate.ts'), '// stale\n');
    const err = sink();
    assert.equal(
      await main(['gen', 'types', '--from', from, '--check'], { cwd: dir, stderr: err.stream }),
      1,
    );
    assert.match(err.text(), /1 type file\(s\) out of date/);
  });

  it('without --from or --from-cluster is a usage error (exit 2)', async () => {
    const err = sink();
    assert.equal(await main(['generate', 'types'], { cwd: dir, stderr: err.stream }), 2);
    assert.match(err.text(), /pass --from/);
  });
});
