import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { generateCrds } from '../../../src/generate/crd/index.ts';
import { assertGoldenDir } from '../../helpers/golden.ts';

const FIXTURE = new URL('../../fixtures/crd/', import.meta.url).pathname;
/** op-gen's CRD for test/fixtures/crd/api-k8s: the Kubernetes types as op-gen embeds them (review diffs by hand). */
const GOLDEN = new URL('../../golden/crd-k8s/op-gen/', import.meta.url).pathname;

/**
 * Fields typed with @kubernetes/client-node models: the walker replaces client-node's declarations by
 * a stub and asks builtinSchemaFor(name) (src/generate/crd/builtin-schemas.ts).
 */
describe('Kubernetes built-in types as field types', () => {
  const out = mkdtempSync(join(tmpdir(), 'op-gen-crd-k8s-'));
  after(() => rmSync(out, { recursive: true, force: true }));

  it('embeds the built-in schemas, structurally', async () => {
    const result = await generateCrds({ cwd: FIXTURE, apiDir: 'api-k8s', outDir: out });
    const schema = result.crds[0]?.spec.versions[0]?.schema.openAPIV3Schema.properties?.spec;
    const template = schema?.properties?.template;
    assert.equal(template?.type, 'object');
    assert.equal(template?.description, 'template of the pods (corev1.PodTemplateSpec).');
    assert.ok(template?.properties?.spec?.properties?.containers, 'PodSpec.containers is there');
    assert.equal(schema?.properties?.tolerations?.type, 'array');
    assert.equal(schema?.properties?.tolerations?.items?.type, 'object');
    assert.ok(schema?.properties?.resources?.properties?.limits);
    assert.equal(schema?.properties?.affinity?.type, 'object', 'namespace imports work too');
  });

  it('equals the golden test/golden/crd-k8s/op-gen/ (UPDATE_GOLDEN=1 rewrites it)', () => {
    // Changes of this golden come from data/k8s-schemas/: a new Kubernetes minor changes it only where
    // Kubernetes changed the embedded types.
    const names = readdirSync(out).sort();
    assert.deepEqual(names, ['apps.example.com_apps.yaml']);
    assertGoldenDir(GOLDEN, new Map(names.map((name) => [name, readFileSync(join(out, name), 'utf8')])));
  });
});
