import assert from 'node:assert/strict';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parse } from 'yaml';
import {
  builtinKinds,
  defineKind,
  ResourceClient,
  Transport,
  type ObjectLike,
} from '../../../src/runtime/index.ts';
import { controlPlaneSkip, startControlPlane, type ControlPlane } from '../../../src/testing/index.ts';
import { opGen, sampleProject } from '../../unit/bundle/project.ts';

const Crds = defineKind<ObjectLike>({
  group: 'apiextensions.k8s.io',
  version: 'v1',
  kind: 'CustomResourceDefinition',
  plural: 'customresourcedefinitions',
  namespaced: false,
});

describe(
  'the bundle is accepted by a real API server (server-side dry run)',
  { timeout: 120_000, skip: controlPlaneSkip() },
  () => {
    let cp: ControlPlane;
    let transport: Transport;
    let project: string;
    before(async () => {
      project = sampleProject();
      // A metrics Service as kubebuilder projects have it, to ship as a supporting manifest.
      writeFileSync(
        join(project, 'config/default/metrics_service.yaml'),
        'apiVersion: v1\nkind: Service\nmetadata:\n  name: controller-manager-metrics-service\n  namespace: system\n' +
          'spec:\n  selector:\n    control-plane: controller-manager\n  ports:\n    - name: https\n      port: 8443\n      targetPort: 8443\n',
      );
      const r = opGen(
        project,
        'bundle',
        '--version',
        '0.1.0',
        '--image',
        'example.com/op:0.1.0',
        '--created-at',
        '2026-01-01T00:00:00Z',
      );
      assert.equal(r.status, 0, r.stderr);
      cp = await startControlPlane();
      transport = await Transport.fromKubeConfig(cp.kubeConfig);
    });
    after(async () => {
      transport?.close();
      await cp?.stop();
    });

    it('accepts the CRDs', async () => {
      const crd = parse(
        readFileSync(join(project, 'bundle/manifests/cache.example.com_memcacheds.yaml'), 'utf8'),
      ) as ObjectLike;
      const created = await new ResourceClient(transport, Crds).create(crd, { dryRun: 'All' });
      assert.equal(created.metadata?.name, 'memcacheds.cache.example.com');
    });

    it('accepts the Deployment of the install strategy', async () => {
      const csv = parse(
        readFileSync(join(project, 'bundle/manifests/memcached-operator.clusterserviceversion.yaml'), 'utf8'),
      ) as {
        spec: { install: { spec: { deployments: { name: string; spec: object }[] } } };
      };
      const d = csv.spec.install.spec.deployments[0]!;
      const created = await new ResourceClient(transport, builtinKinds.Deployment).create(
        {
          apiVersion: 'apps/v1',
          kind: 'Deployment',
          metadata: { name: d.name, namespace: 'default' },
          spec: d.spec as never,
        },
        { dryRun: 'All' },
      );
      assert.equal(created.spec?.template.spec?.containers[0]?.image, 'example.com/op:0.1.0');
    });

    it('accepts every supporting manifest (Service, metrics-reader ClusterRole, ...)', async () => {
      const dir = join(project, 'bundle/manifests');
      const supporting = readdirSync(dir)
        .filter((f) => !f.endsWith('.clusterserviceversion.yaml') && !f.startsWith('cache.example.com_'))
        .map((f) => parse(readFileSync(join(dir, f), 'utf8')) as ObjectLike);
      assert.deepEqual(supporting.map((o) => o.kind).sort(), ['ClusterRole', 'Service']);
      for (const o of supporting) {
        const kind = builtinKinds[o.kind as 'Service' | 'ClusterRole'];
        const namespaced = kind.namespaced ? { namespace: 'default' } : {};
        const created = await new ResourceClient(transport, kind as typeof Crds).create(
          { ...o, metadata: { ...o.metadata, ...namespaced } },
          { dryRun: 'All' },
        );
        assert.equal(created.metadata?.name, o.metadata?.name);
      }
    });
  },
);
