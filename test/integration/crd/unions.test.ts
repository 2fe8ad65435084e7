import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import {
  ApiextensionsV1Api,
  CustomObjectsApi,
  loadYaml,
  type V1CustomResourceDefinition,
} from '@kubernetes/client-node';
import { generateCrds } from '../../../src/generate/crd/index.ts';
import { controlPlaneSkip, startControlPlane, type ControlPlane } from '../../../src/testing/index.ts';

const FIXTURE = new URL('../../fixtures/crd/', import.meta.url).pathname;
type Obj = Record<string, unknown>;

const codeOf = (err: unknown): number | undefined =>
  typeof err === 'object' && err !== null && 'code' in err ? (err.code as number) : undefined;
const bodyOf = (err: unknown): string =>
  typeof err === 'object' && err !== null && 'body' in err ? String(err.body) : String(err);

const base = (): Obj => ({ source: { type: 'Git', git: { url: 'https://example.com/r.git' } } });

/** Each union: a spec the API server must accept, and ones it must reject with the generated message. */
const CASES: { name: string; accept: Obj; reject: { spec: Obj; message: RegExp }[] }[] = [
  {
    name: 'discriminated TypeScript union',
    accept: { source: { type: 'OCI', oci: { image: 'r/x:1' }, interval: '5m' } },
    reject: [
      {
        spec: { source: { type: 'Git', git: { url: 'u' }, oci: { image: 'i' } } },
        message: /when type is 'Git', git must be set and oci and helm must not be set/,
      },
      {
        spec: { source: { type: 'Git', oci: { image: 'i' } } },
        message: /when type is 'Git', git must be set and oci and helm must not be set/,
      },
      {
        spec: { source: { type: 'Helm', helm: { chart: 'c' }, interval: '1m' } },
        message: /when type is 'Helm', helm must be set and git, interval and oci must not be set/,
      },
    ],
  },
  {
    name: 'union without a discriminator',
    accept: { ...base(), trigger: { webhook: { path: '/hook' } } },
    reject: [
      {
        spec: { ...base(), trigger: { schedule: '@daily', webhook: { path: '/hook' } } },
        message: /exactly one of schedule, webhook must be set/,
      },
      { spec: { ...base(), trigger: {} }, message: /exactly one of schedule, webhook must be set/ },
    ],
  },
  {
    name: '@unionDiscriminator / @unionMember',
    accept: { ...base(), strategy: { type: 'Canary', canarySteps: [{ weight: 10 }] } },
    reject: [
      {
        spec: { ...base(), strategy: { type: 'Recreate', rollingUpdate: {} } },
        message:
          /when type is 'Recreate', recreate must be set and rollingUpdate and canarySteps must not be set/,
      },
      {
        spec: { ...base(), strategy: { type: 'None', recreate: {} } },
        message: /when type is 'None', recreate, rollingUpdate and canarySteps must not be set/,
      },
    ],
  },
  {
    name: '@unionMember without a discriminator',
    accept: { ...base(), notify: { slack: { channel: '#ops' } } },
    reject: [
      {
        spec: { ...base(), notify: { slack: { channel: '#ops' }, email: { address: 'a@b' } } },
        message: /exactly one of slack, email must be set/,
      },
    ],
  },
];

describe('unions on a real API server', { timeout: 180_000, skip: controlPlaneSkip() }, () => {
  let cp: ControlPlane;
  let objects: CustomObjectsApi;
  const out = mkdtempSync(join(tmpdir(), 'op-gen-unions-it-'));
  let counter = 0;

  before(async () => {
    cp = await startControlPlane();
    objects = cp.kubeConfig.makeApiClient(CustomObjectsApi);
  });
  after(async () => {
    await cp?.stop();
    rmSync(out, { recursive: true, force: true });
  });

  const release = (spec: Obj): Promise<unknown> =>
    objects.createNamespacedCustomObject({
      group: 'deploy.example.com',
      version: 'v1',
      namespace: 'default',
      plural: 'releases',
      dryRun: 'All',
      body: {
        apiVersion: 'deploy.example.com/v1',
        kind: 'Release',
        metadata: { name: `r${++counter}` },
        spec,
      },
    });

  it('the generated CRD is accepted and served', async () => {
    await generateCrds({ cwd: FIXTURE, apiDir: 'api-unions', outDir: out });
    const crd = loadYaml<V1CustomResourceDefinition>(
      readFileSync(join(out, 'deploy.example.com_releases.yaml'), 'utf8'),
    );
    await cp.kubeConfig.makeApiClient(ApiextensionsV1Api).createCustomResourceDefinition({ body: crd });
    let served = false;
    for (let i = 0; i < 200 && !served; i++) {
      try {
        await release(base());
        served = true;
      } catch (err) {
        if (codeOf(err) !== 404) throw new Error(bodyOf(err), { cause: err });
        await new Promise((r) => setTimeout(r, 100));
      }
    }
    assert.ok(served, 'releases never became servable');
  });

  for (const c of CASES) {
    it(`${c.name}: a valid member is accepted; wrong or extra members are rejected with the generated message`, async () => {
      try {
        await release(c.accept);
      } catch (err) {
        assert.fail(`valid object rejected: ${bodyOf(err)}`);
      }
      for (const bad of c.reject) {
        await assert.rejects(release(bad.spec), (err: unknown) => {
          assert.equal(codeOf(err), 422, bodyOf(err));
          assert.match(bodyOf(err), bad.message);
          return true;
        });
      }
    });
  }
});
