import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { builtinKinds, Http2Transport, Manager, Transport } from '../../../src/runtime/index.ts';
import { controlPlaneSkip, startControlPlane, type ControlPlane } from '../../../src/testing/index.ts';
import { MemcachedKind, setupMemcachedController } from '../../fixtures/runtime/memcached-operator.ts';
import {
  createNamespace,
  eventually,
  installCrdFile,
  memcached,
  memoryLogger,
  restartAndConverge,
} from './helpers.ts';

const CRD = new URL('../../fixtures/runtime/memcached-crd.yaml', import.meta.url);

/**
 * A manager speaking HTTP/2 (`http2: true`) to a real kube-apiserver: every request and watch on
 * one connection; it converges, and after the API server is killed (connections reset, no GOAWAY)
 * and started again, its watches resume on a new connection.
 */
describe(
  'Manager over HTTP/2 against a real API server',
  { timeout: 180_000, skip: controlPlaneSkip() },
  () => {
    let cp: ControlPlane;
    let mgr: Manager;
    let running: Promise<void>;
    const ns = 'h2';
    const { logger } = memoryLogger();

    before(async () => {
      cp = await startControlPlane();
      await installCrdFile(cp.kubeConfig, CRD, MemcachedKind);
      await createNamespace(cp.kubeConfig, ns);
      mgr = await Manager.create({
        kubeConfig: cp.kubeConfig,
        http2: true,
        metricsBindAddress: '0',
        healthProbeBindAddress: '0',
        handleSignals: false,
        logger,
        gracefulShutdownTimeoutMs: 5_000,
      });
      setupMemcachedController(mgr);
      running = mgr.start();
      await mgr.ready;
    });

    after(async () => {
      await mgr?.stop();
      await running;
      await cp?.stop();
    });

    const api = () => mgr.client.resource(MemcachedKind);
    const readyOf = async (name: string) =>
      (await api().get({ namespace: ns, name })).status?.conditions?.some(
        (c) => c.type === 'Ready' && c.status === 'True',
      );

    it('speaks HTTP/2 and converges', async () => {
      const probe = await Transport.fromKubeConfig(cp.kubeConfig, { http2: true });
      const namespace = await probe.request<{ metadata: { name: string } }>({
        method: 'GET',
        path: '/api/v1/namespaces/h2',
      });
      assert.equal(namespace.metadata.name, 'h2');
      probe.close();
      assert.ok(
        (await Transport.fromKubeConfig(cp.kubeConfig, { http2: true, retry: false })) instanceof
          Http2Transport,
      );
      await api().create(memcached('h2', 'one', 2));
      await eventually('Ready', () => readyOf('one'));
      const dep = await mgr.client.resource(builtinKinds.Deployment).get({ namespace: 'h2', name: 'one' });
      assert.equal(dep.spec?.replicas, 2);
    });

    it('survives a killed kube-apiserver: the watches resume on a new connection and a later change converges', async () => {
      await restartAndConverge(cp, mgr, ns, { signal: 'SIGKILL', downtimeMs: 500 });
    });
  },
);
