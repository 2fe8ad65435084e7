import assert from 'node:assert/strict';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import type { JSONSchemaProps } from '../../../src/api-types/json-schema.ts';
import { main } from '../../../src/cli/main.ts';
import { checkCelRule } from '../../../src/generate/crd/cel-check.ts';
import { embeddedObjectMetaSchema } from '../../../src/generate/crd/embedded-object-meta.ts';
import { projectFileProblems } from '../../../src/project/project-file-shape.ts';
import { sink } from '../../helpers/io.ts';

/**
 * Issue 37 item 7: controller-gen's `crd:generateEmbeddedObjectMeta=true` as op-gen.yaml's
 * `crd.generateEmbeddedObjectMeta` and `generate crd --generate-embedded-object-meta`; a CEL rule
 * reading an embedded ObjectMeta's fields passes only with it, as on the API server.
 */
const FIXTURE = new URL('../../fixtures/crd/embedded-meta/', import.meta.url).pathname;
const CRD = 'config/crd/bases/batch.example.com_runners.yaml';

/**
 * The API server's verdicts (kube-apiserver 1.37.2, server-side dry-run create of a CRD holding the
 * rule; probed by hand for this table; test/integration/crd/cel-verdicts.test.ts holds random rules of
 * the same forms to the server).
 */
const TEMPLATES = (meta: JSONSchemaProps): JSONSchemaProps => ({
  type: 'object',
  properties: {
    templates: {
      type: 'array',
      items: { type: 'object', properties: { metadata: meta, image: { type: 'string' } } },
    },
  },
});
const BARE: JSONSchemaProps = { type: 'object' };
const ROOT: JSONSchemaProps = { type: 'object', properties: { metadata: BARE, spec: BARE } };
const VERDICTS: readonly [string, JSONSchemaProps, boolean, 'accept' | 'refuse'][] = [
  ['self.templates.all(t, !has(t.metadata.namespace))', TEMPLATES(BARE), false, 'refuse'],
  [
    'self.templates.all(t, !has(t.metadata.namespace))',
    TEMPLATES(embeddedObjectMetaSchema()),
    false,
    'accept',
  ],
  [
    "self.templates.all(t, t.metadata.namespace == '')",
    TEMPLATES(embeddedObjectMetaSchema()),
    false,
    'accept',
  ],
  [
    "self.templates.all(t, t.metadata.__namespace__ == '')",
    TEMPLATES(embeddedObjectMetaSchema()),
    false,
    'accept',
  ],
  ["self.templates.all(t, t.metadata.name == '')", TEMPLATES(embeddedObjectMetaSchema()), false, 'accept'],
  ["self.templates.all(t, t.metadata.name == '')", TEMPLATES(BARE), false, 'refuse'],
  ["self.metadata.name.startsWith('a')", ROOT, true, 'accept'],
  ["self.metadata.namespace == 'a'", ROOT, true, 'refuse'],
  ['has(self.metadata.labels)', ROOT, true, 'refuse'],
];

async function generate(dir: string, args: string[] = []): Promise<{ code: number; err: string }> {
  const err = sink();
  rmSync(join(dir, 'config'), { recursive: true, force: true });
  const code = await main(['generate', 'crd', '--cwd', dir, ...args], {
    stdout: sink().stream,
    stderr: err.stream,
  });
  return { code, err: err.text() };
}

describe('generateEmbeddedObjectMeta', () => {
  const root = mkdtempSync(join(tmpdir(), 'op-gen-embedded-meta-'));
  after(() => rmSync(root, { recursive: true, force: true }));

  it('CEL: holds the API server verdicts on reading embedded and root metadata', () => {
    for (const [rule, schema, resourceRoot, verdict] of VERDICTS) {
      const problems = checkCelRule(rule, schema, { resourceRoot });
      assert.equal(
        problems.length === 0 ? 'accept' : 'refuse',
        verdict,
        `${rule}: ${JSON.stringify(problems)}`,
      );
    }
  });

  it('off: refuses the rule at its line, naming the option, and writes nothing', async () => {
    const dir = join(root, 'off');
    cpSync(FIXTURE, dir, { recursive: true });
    const run = await generate(dir);
    assert.equal(run.code, 1, run.err);
    assert.match(
      run.err,
      /runner_types\.ts:9: Runner\.spec\.templates: CEL rule "self\.all\(t, !has\(t\.metadata\.namespace\)\)": has\(\) reads field "namespace", which the schema does not have \(an embedded ObjectMeta has name, namespace, labels, annotations and finalizers only with crd\.generateEmbeddedObjectMeta: true in op-gen\.yaml or --generate-embedded-object-meta/,
    );
    assert.equal(existsSync(join(dir, CRD)), false);
  });

  it('on (flag or op-gen.yaml): embedded metadata gets the five fields, the root keeps type: object', async () => {
    const dir = join(root, 'on');
    cpSync(FIXTURE, dir, { recursive: true });
    const flag = await generate(dir, ['--generate-embedded-object-meta']);
    assert.equal(flag.code, 0, flag.err);
    const byFlag = readFileSync(join(dir, CRD), 'utf8');
    assert.match(
      byFlag,
      /templates:\n\s+items:\n\s+properties:\n\s+image:\n\s+type: string\n\s+metadata:\n\s+properties:\n\s+annotations:\n\s+additionalProperties:\n\s+type: string\n\s+type: object\n\s+finalizers:\n\s+items:\n\s+type: string\n\s+type: array\n\s+labels:\n\s+additionalProperties:\n\s+type: string\n\s+type: object\n\s+name:\n\s+type: string\n\s+namespace:\n\s+type: string\n\s+type: object\n/,
    );
    assert.match(byFlag, /\n {12}metadata:\n {14}type: object\n/, 'the root metadata stays type: object');
    writeFileSync(
      join(dir, 'op-gen.yaml'),
      'version: 1\ndomain: example.com\nprojectName: runner\nresources: []\ncrd:\n  generateEmbeddedObjectMeta: true\n',
    );
    const file = await generate(dir);
    assert.equal(file.code, 0, file.err);
    assert.equal(readFileSync(join(dir, CRD), 'utf8'), byFlag);
  });

  it('op-gen.yaml: crd.generateEmbeddedObjectMeta must be a boolean', () => {
    const base = { version: 1, domain: 'example.com', projectName: 'runner', resources: [] };
    assert.deepEqual(projectFileProblems({ ...base, crd: { generateEmbeddedObjectMeta: true } }), []);
    assert.deepEqual(projectFileProblems({ ...base, crd: { generateEmbeddedObjectMeta: 'yes' } }), [
      'crd.generateEmbeddedObjectMeta: must be true or false, found string "yes"',
    ]);
    assert.deepEqual(projectFileProblems({ ...base, crd: { embedded: true } }), [
      'crd.embedded: unknown field (known: generateEmbeddedObjectMeta)',
    ]);
  });
});
