import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ApiextensionsV1Api, loadYaml, type V1CustomResourceDefinition } from '@kubernetes/client-node';
import { generateCrds, type CustomResourceDefinition } from '../../../src/generate/crd/index.ts';
import { crdBytes, sizeVerdict } from '../../../src/generate/crd/size-budget.ts';
import { controlPlaneSkip, startControlPlane, type ControlPlane } from '../../../src/testing/index.ts';

const FIXTURE = new URL('../../fixtures/crd/', import.meta.url).pathname;
const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';

const codeOf = (err: unknown): number | undefined =>
  typeof err === 'object' && err !== null && 'code' in err ? (err.code as number) : undefined;
const bodyOf = (err: unknown): string =>
  typeof err === 'object' && err !== null && 'body' in err ? String(err.body) : String(err);

/** The CRD as client-side `kubectl apply` sends it: with its own JSON in the last-applied annotation. */
function asClientSideApply(crd: CustomResourceDefinition): V1CustomResourceDefinition {
  const applied = {
    ...crd,
    metadata: {
      ...crd.metadata,
      annotations: { ...crd.metadata.annotations, [LAST_APPLIED]: JSON.stringify(crd) },
    },
  };
  return loadYaml<V1CustomResourceDefinition>(JSON.stringify(applied));
}

describe('size budget on a real API server', { timeout: 240_000, skip: controlPlaneSkip() }, () => {
  let cp: ControlPlane;
  let ext: ApiextensionsV1Api;
  const tmp = mkdtempSync(join(tmpdir(), 'op-gen-size-it-'));
  before(async () => {
    cp = await startControlPlane();
    ext = cp.kubeConfig.makeApiClient(ApiextensionsV1Api);
  });
  after(async () => {
    await cp?.stop();
    rmSync(tmp, { recursive: true, force: true });
  });

  it('four PodTemplateSpecs: client-side apply fails by default, works in auto mode; the server stores both', async () => {
    const plain = await generateCrds({ cwd: FIXTURE, apiDir: 'api-big', outDir: tmp, check: true });
    const auto = await generateCrds({
      cwd: FIXTURE,
      apiDir: 'api-big',
      outDir: tmp,
      check: true,
      maxDescLen: 'auto',
    });
    const [big] = plain.crds;
    const [fitted] = auto.crds;
    assert.ok(big && fitted);
    assert.equal(plain.warnings.length, 1, 'op-gen warns about the default one');
    assert.deepEqual(auto.warnings, []);
    await assert.rejects(
      ext.createCustomResourceDefinition({ body: asClientSideApply(big), dryRun: 'All' }),
      (err) => {
        assert.equal(codeOf(err), 422, bodyOf(err));
        assert.match(
          bodyOf(err),
          /metadata\.annotations: Too long: may not be (more than|longer than) 262144 bytes/,
        );
        return true;
      },
    );
    await ext.createCustomResourceDefinition({ body: asClientSideApply(fitted), dryRun: 'All' });
    // Stored for real (etcd's request limit applies): the 1.2 MiB CRD fits.
    await ext.createCustomResourceDefinition({ body: loadYaml(JSON.stringify(big)) });
  });

  it('six PodTemplateSpecs: op-gen fails past 1.5 MiB, and the API server cannot store it', async () => {
    const plain = await generateCrds({ cwd: FIXTURE, apiDir: 'api-big', outDir: tmp, check: true });
    const [big] = plain.crds;
    assert.ok(big);
    // Two more PodTemplateSpecs, as `cleanup?: V1PodTemplateSpec; notify?: V1PodTemplateSpec` would add.
    const version = big.spec.versions[0];
    const spec = version?.schema.openAPIV3Schema.properties?.spec;
    assert.ok(version && spec?.properties?.build);
    const hugeSpec = {
      ...spec,
      properties: { ...spec.properties, cleanup: spec.properties.build, notify: spec.properties.build },
    };
    const huge: CustomResourceDefinition = {
      ...big,
      metadata: { ...big.metadata, name: 'pipelines.batch2.example.com' },
      spec: {
        ...big.spec,
        group: 'batch2.example.com',
        versions: [
          {
            ...version,
            schema: {
              openAPIV3Schema: {
                ...version.schema.openAPIV3Schema,
                properties: { ...version.schema.openAPIV3Schema.properties, spec: hugeSpec },
              },
            },
          },
        ],
      },
    };
    const size = { name: huge.metadata.name, bytes: crdBytes(huge) };
    assert.match(sizeVerdict(size).problem ?? '', /over the 1\.50 MiB the API server can store/);
    await assert.rejects(
      ext.createCustomResourceDefinition({ body: loadYaml(JSON.stringify(huge)) }),
      (err) => {
        assert.match(bodyOf(err), /request is too large|Request entity too large|too large/i, bodyOf(err));
        return true;
      },
    );
  });
});
