import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { main } from '../../../src/cli/main.ts';
import { sink } from '../../helpers/io.ts';

function crd(version: string, extra: Record<string, string> = {}): string {
  const fields = {
    group: 'example.com',
    names: '{kind: Widget, plural: widgets}',
    scope: 'Namespaced',
    versions: `[{name: ${version}, served: true, storage: true, schema: {openAPIV3Schema: {type: object}}}]`,
    ...extra,
  };
  return [
    'apiVersion: apiextensions.k8s.io/v1',
    'kind: CustomResourceDefinition',
    'metadata: {name: widgets.example.com}',
    'spec:',
    ...Object.entries(fields)
      .filter(([, v]) => v !== '')
      .map(([k, v]) => `  ${k}: ${v}`),
    '',
  ].join('\n');
}

/** `generate types --from` on input it cannot use: exit 1, one line naming the input, nothing written. */
describe('op-gen generate types --from: errors', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'op-gen-types-from-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const cases: [string, Record<string, string>, string, RegExp][] = [
    [
      'a path that does not exist',
      {},
      'missing.yaml',
      /^op-gen: --from missing\.yaml: no such file or directory\.$/,
    ],
    [
      'a folder with no YAML or JSON',
      { 'empty/README.md': '# no CRDs\n' },
      'empty',
      /^op-gen: --from empty: the directory holds no \.yaml\/\.yml\/\.json file\.$/,
    ],
    [
      'a file with no documents',
      { 'blank.yaml': '# nothing\n' },
      'blank.yaml',
      /^op-gen: no CRD found: pass --from/,
    ],
    [
      // Both found by test/unit/types/broken-crd-fuzz.test.ts as internal errors (exit 70 with a stack).
      'an alias without its anchor',
      { 'alias.yaml': crd('v1', { scope: '*nowhere' }) },
      'alias.yaml',
      /^op-gen: alias\.yaml:7 \(document 0\): YAML error: Unresolved alias \(the anchor must be set before the alias\): nowhere\. Fix the YAML\.$/,
    ],
    [
      'a v1beta1 CRD',
      { 'old.yaml': crd('v1').replace('apiextensions.k8s.io/v1', 'apiextensions.k8s.io/v1beta1') },
      'old.yaml',
      /^op-gen: old\.yaml:1 \(document 0\): apiVersion apiextensions\.k8s\.io\/v1beta1 is not supported; convert the CRD to apiextensions\.k8s\.io\/v1\.$/,
    ],
    [
      'a CRD without group',
      { 'nogroup.yaml': crd('v1', { group: '' }) },
      'nogroup.yaml',
      /^op-gen: nogroup\.yaml:1 \(document 0\): spec\.group: must be a non-empty string\. Fix the CRD\.$/,
    ],
    [
      'a version without a schema',
      { 'noschema.yaml': crd('v1', { versions: '[{name: v1, served: true, storage: true}]' }) },
      'noschema.yaml',
      /^op-gen: noschema\.yaml:1 \(document 0\): spec\.versions\[0\]\.schema\.openAPIV3Schema: is required \(apiextensions\.k8s\.io\/v1 requires a schema in every version\)\. Fix the CRD\.$/,
    ],
    [
      'one kind and version twice with different schemas',
      {
        'crds/a.yaml': crd('v1'),
        'crds/b.yaml': crd('v1', {
          versions:
            '[{name: v1, served: true, storage: true, schema: {openAPIV3Schema: {type: object, properties: {spec: {type: string}}}}}]',
        }),
      },
      'crds',
      /^op-gen: Widget example\.com\/v1 is defined twice with different schemas \(crds\/a\.yaml and crds\/b\.yaml\)\. Pass each CRD once\.$/,
    ],
  ];
  for (const [name, files, from, message] of cases) {
    it(name, async () => {
      for (const [file, text] of Object.entries(files)) {
        mkdirSync(join(dir, file, '..'), { recursive: true });
        writeFileSync(join(dir, file), text);
      }
      const err = sink();
      const code = await main(['generate', 'types', '--from', from], {
        cwd: dir,
        stdout: sink().stream,
        stderr: err.stream,
      });
      assert.equal(code, 1, err.text());
      assert.match(err.text().trimEnd(), message);
      assert.equal(err.text().trimEnd().split('\n').length, 1, 'one line');
      assert.equal(existsSync(join(dir, 'src')), false, 'nothing written');
    });
  }

  it('names every field of the wrong type, each on its own line', async () => {
    writeFileSync(
      join(dir, 'shape.yaml'),
      crd('v1', {
        names: '{kind: {}, plural: widgets}',
        versions: '[{name: [v1], served: true, storage: true, schema: {openAPIV3Schema: {type: object}}}]',
      }),
    );
    const err = sink();
    const code = await main(['generate', 'types', '--from', 'shape.yaml'], {
      cwd: dir,
      stdout: sink().stream,
      stderr: err.stream,
    });
    assert.equal(code, 1, err.text());
    assert.equal(
      err.text().trimEnd(),
      [
        'op-gen: shape.yaml:1 (document 0): spec.names.kind: must be a non-empty string, found a mapping. Fix the CRD.',
        'shape.yaml:1 (document 0): spec.versions[0].name: must be a non-empty string, found a list. Fix the CRD.',
        '2 problems',
      ].join('\n'),
    );
    assert.equal(existsSync(join(dir, 'src')), false, 'nothing written');
  });
});
