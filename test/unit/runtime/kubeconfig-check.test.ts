import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { describe, it } from 'node:test';
import { checkDefaultKubeConfig, KubeConfigNotFoundError } from '../../../src/client/kubeconfig-check.ts';

const TOKEN = '/var/run/secrets/kubernetes.io/serviceaccount/token';

describe('no kubeconfig is one clear error, not a request to localhost:8080 (item 8)', () => {
  const check = (env: Record<string, string>, files: string[]): void =>
    checkDefaultKubeConfig({ env, home: '/home/u', exists: (p) => files.includes(p) });

  it('accepts KUBECONFIG naming an existing file, ~/.kube/config, or in-cluster credentials', () => {
    check({ KUBECONFIG: '/a:/b' }, ['/b']);
    check({}, ['/home/u/.kube/config']);
    check({ KUBECONFIG: '' }, ['/home/u/.kube/config']);
    check({ KUBERNETES_SERVICE_HOST: '10.0.0.1', KUBERNETES_SERVICE_PORT: '443' }, [TOKEN]);
  });

  it('names KUBECONFIG when it points nowhere', () => {
    assert.throws(
      () => check({ KUBECONFIG: '/nonexistent' }, ['/home/u/.kube/config']),
      (err: unknown) =>
        err instanceof KubeConfigNotFoundError &&
        err.exitCode === 1 &&
        err.message ===
          'no kubeconfig found: KUBECONFIG=/nonexistent names no file that exists; point KUBECONFIG at a kubeconfig file or unset it to use ~/.kube/config',
    );
  });

  it('says how to provide one when there is none', () => {
    assert.throws(
      () => check({}, []),
      /^KubeConfigNotFoundError: no kubeconfig found: set KUBECONFIG or create ~\/\.kube\/config$/,
    );
    assert.throws(
      () => check({ KUBERNETES_SERVICE_HOST: '10.0.0.1', KUBERNETES_SERVICE_PORT: '443' }, []),
      KubeConfigNotFoundError,
    );
  });

  it("an operator's main (Manager.create(...).catch(exitOnStartupError)) prints the one line and exits 1", () => {
    const script = `
      import { Manager, exitOnStartupError } from './src/runtime/index.ts';
      await Manager.create({ metricsBindAddress: '0', healthProbeBindAddress: '0' }).catch(exitOnStartupError);
      console.log('not reached');
    `;
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
      cwd: new URL('../../../', import.meta.url).pathname,
      encoding: 'utf8',
      env: { ...process.env, KUBECONFIG: '', HOME: '/nonexistent-home', KUBERNETES_SERVICE_HOST: '' },
    });
    assert.equal(r.stderr, 'no kubeconfig found: set KUBECONFIG or create ~/.kube/config\n');
    assert.equal(r.stdout, '');
    assert.equal(r.status, 1);
  });
});
