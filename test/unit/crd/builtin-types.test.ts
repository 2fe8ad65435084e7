import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parse } from 'yaml';
import { generateCrds } from '../../../src/generate/crd/index.ts';
import { generateCrdsWith } from '../../../src/generate/crd/generate.ts';
import { k8sSchemaReleases } from '../../../src/generate/crd/builtin-schemas.ts';
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
  // The golden holds the default (newest) release's types, whatever release the shell selects.
  const release = process.env.OP_GEN_K8S_VERSION;
  before(() => delete process.env.OP_GEN_K8S_VERSION);
  after(() => {
    rmSync(out, { recursive: true, force: true });
    if (release !== undefined) process.env.OP_GEN_K8S_VERSION = release;
  });

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

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

/** The schema without its descriptions (a schema keyword only: a property named `description` stays). */
function withoutDescriptions(v: Json): Json {
  if (Array.isArray(v)) return v.map(withoutDescriptions);
  if (v === null || typeof v !== 'object') return v;
  return Object.fromEntries(
    Object.entries(v)
      .filter(([k, x]) => !(k === 'description' && typeof x === 'string'))
      .map(([k, x]) => [k, withoutDescriptions(x)]),
  );
}

/** Every point where two schemas differ, as `path: op-gen … controller-gen …`. */
function differences(a: Json | undefined, b: Json | undefined, path = ''): string[] {
  const isObject = (x: Json | undefined): x is { [k: string]: Json } =>
    x !== null && typeof x === 'object' && !Array.isArray(x);
  if (isObject(a) && isObject(b)) {
    const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort();
    return keys.flatMap((k) => differences(a[k], b[k], `${path}.${k}`));
  }
  return JSON.stringify(a) === JSON.stringify(b)
    ? []
    : [
        `${path || '.'}: op-gen ${JSON.stringify(a)?.slice(0, 200)}, controller-gen ${JSON.stringify(b)?.slice(0, 200)}`,
      ];
}

/**
 * The same API twice: Go (test/fixtures/crd-k8s/go, embedding PodTemplateSpec, PodSpec, JobTemplateSpec,
 * Container, Volume, ... and named string types) through controller-gen v0.23.0 at each release's
 * k8s.io/api (test/golden/crd-k8s/controller-gen/v<minor>.yaml, descriptions removed; made by
 * scripts/generate-k8s-schemas.ts), and its TS twin (test/fixtures/crd/api-k8s-all) through op-gen
 * with OP_GEN_K8S_VERSION=<minor>.
 */
describe("Kubernetes built-in types: op-gen's CRD equals controller-gen's on the same API, per release", () => {
  const out = mkdtempSync(join(tmpdir(), 'op-gen-crd-k8s-all-'));
  const saved = { release: process.env.OP_GEN_K8S_VERSION };
  after(() => {
    rmSync(out, { recursive: true, force: true });
    if (saved.release === undefined) delete process.env.OP_GEN_K8S_VERSION;
    else process.env.OP_GEN_K8S_VERSION = saved.release;
  });
  for (const [minor, frontEnd] of k8sSchemaReleases().flatMap((m) => [
    [m, 'syntax'] as const,
    [m, 'checker'] as const,
  ])) {
    it(`Kubernetes ${minor}, ${frontEnd} front end: 0 schema differences (descriptions aside)`, async () => {
      process.env.OP_GEN_K8S_VERSION = minor;
      const outDir = join(out, `${minor}-${frontEnd}`);
      const result = await generateCrdsWith(frontEnd, { cwd: FIXTURE, apiDir: 'api-k8s-all', outDir });
      const ours = result.crds[0]?.spec.versions[0]?.schema.openAPIV3Schema as Json;
      const golden = new URL(`../../golden/crd-k8s/controller-gen/v${minor}.yaml`, import.meta.url);
      const theirs = (
        parse(readFileSync(golden, 'utf8')) as {
          spec: { versions: { schema: { openAPIV3Schema: Json } }[] };
        }
      ).spec.versions[0]!.schema.openAPIV3Schema;
      const diff = differences(withoutDescriptions(ours), withoutDescriptions(theirs));
      assert.deepEqual(diff, []);
      // The comparison reached the embedded types (a vacuous schema would compare equal to nothing).
      assert.ok(JSON.stringify(theirs).length > 100_000);
    });
  }
});
