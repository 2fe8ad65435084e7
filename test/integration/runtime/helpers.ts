import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { CoreV1Api, type KubeConfig } from '@kubernetes/client-node';
import assert from 'node:assert/strict';
import { Transport, type Kind, type ObjectLike } from '../../../src/client/index.ts';
import { installCrd } from '../../../src/testing/install-crd.ts';
import { builtinKinds, createLogger, type Logger, type Manager } from '../../../src/runtime/index.ts';
import type { ControlPlane } from '../../../src/testing/index.ts';
import { MemcachedKind, type Memcached } from '../../fixtures/runtime/memcached-operator.ts';

/** Polls `fn` until it returns a value other than undefined/false, or fails after `timeoutMs`. */
export async function eventually<T>(
  what: string,
  fn: () => Promise<T | undefined | false>,
  timeoutMs = 20_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      const v = await fn();
      if (v !== undefined && v !== false) return v;
    } catch (err) {
      last = err;
    }
    await sleep(50);
  }
  throw new Error(`timed out waiting for ${what}${last ? `: ${String(last)}` : ''}`);
}

/** Installs a CRD file with op-gen/testing's raw-JSON installCrd (keeps `enum` and x-kubernetes-* keys). */
export async function installCrdFile(kc: KubeConfig, file: URL, served: Kind<ObjectLike>): Promise<void> {
  const transport = await Transport.fromKubeConfig(kc);
  try {
    await installCrd(transport, readFileSync(file, 'utf8'), served);
  } finally {
    transport.close();
  }
}

export async function createNamespace(kc: KubeConfig, name: string): Promise<void> {
  await kc.makeApiClient(CoreV1Api).createNamespace({ body: { metadata: { name } } });
}

/** A logger that keeps lines for assertions (and prints errors when OP_GEN_TEST_LOG is set). */
export function memoryLogger(): { logger: Logger; lines: Record<string, unknown>[] } {
  const lines: Record<string, unknown>[] = [];
  const logger = createLogger({
    level: 'debug',
    write: (line) => {
      lines.push(JSON.parse(line) as Record<string, unknown>);
      if (process.env.OP_GEN_TEST_LOG) process.stderr.write(line);
    },
  });
  return { logger, lines };
}

export function memcached(namespace: string, name: string, size = 1): Memcached {
  return {
    apiVersion: 'cache.example.com/v1alpha1',
    kind: 'Memcached',
    metadata: { name, namespace },
    spec: { image: 'memcached:1.6', size },
  };
}

/**
 * Restarts kube-apiserver under a manager running the Memcached controller (with `ns/one` already
 * Ready), then checks that its informers opened new watches and that it converges again: a spec
 * change reaches the Deployment and a new object becomes Ready.
 */
export async function restartAndConverge(
  cp: ControlPlane,
  mgr: Manager,
  ns: string,
  restart: Parameters<ControlPlane['restartApiServer']>[0],
): Promise<void> {
  const api = mgr.client.resource(MemcachedKind);
  const deployments = mgr.client.resource(builtinKinds.Deployment);
  const watches = () => Object.values(mgr.cache.stats()).reduce((a, s) => a + s.watches, 0);
  const watchesBefore = watches();
  await cp.restartApiServer(restart);
  await api.patch({ namespace: ns, name: 'one' }, 'merge', { spec: { size: 4 } });
  await eventually(
    'replicas 4 after restart',
    async () => (await deployments.get({ namespace: ns, name: 'one' })).spec?.replicas === 4,
    60_000,
  );
  await api.create(memcached(ns, 'after-restart'));
  await eventually(
    'new object Ready after restart',
    async () => {
      const o = await api.get({ namespace: ns, name: 'after-restart' });
      return o.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True');
    },
    60_000,
  );
  assert.ok(watches() > watchesBefore, 'the informers opened new watches');
}
