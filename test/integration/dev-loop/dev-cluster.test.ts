import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { KubeConfig } from '@kubernetes/client-node';
import { Transport } from '../../../src/client/transport.ts';
import { controlPlaneSkip } from '../../../src/testing/index.ts';
import { tempDir } from '../../unit/scaffold/helpers.ts';

/**
 * `op-gen dev-cluster` as a user runs it: the API server answers with the kubeconfig it wrote, and
 * SIGTERM stops it (the API server no longer answers) and removes the kubeconfig.
 */

const OP_GEN_BIN = fileURLToPath(new URL('../../../bin/op-gen.js', import.meta.url));

describe('op-gen dev-cluster', { timeout: 120_000, skip: controlPlaneSkip() }, () => {
  const tmp = tempDir('op-gen-dev-cluster-');
  after(tmp.cleanup);

  it('runs a control plane until SIGTERM, its kubeconfig in .op-gen/dev-cluster.kubeconfig', async () => {
    let output = '';
    const child = spawn(process.execPath, [OP_GEN_BIN, 'dev-cluster'], {
      cwd: tmp.dir,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    try {
      for (const deadline = Date.now() + 90_000; !output.includes('Ctrl-C stops it'); await sleep(50)) {
        assert.ok(Date.now() < deadline && child.exitCode === null, `no kubeconfig line:\n${output}`);
      }
      assert.match(output, /kubeconfig: \.op-gen\/dev-cluster\.kubeconfig\n/);
      const path = join(tmp.dir, '.op-gen/dev-cluster.kubeconfig');
      const kubeConfig = new KubeConfig();
      kubeConfig.loadFromFile(path);
      const transport = await Transport.fromKubeConfig(kubeConfig);
      try {
        const namespaces = await transport.request<{ items: { metadata: { name: string } }[] }>({
          method: 'GET',
          path: '/api/v1/namespaces',
        });
        assert.ok(namespaces.items.some((n) => n.metadata.name === 'default'));

        child.kill('SIGTERM');
        assert.equal(await exited, 0, output);
        assert.match(output, /op-gen dev-cluster: stopping \(SIGTERM\)\nop-gen dev-cluster: stopped\n$/);
        assert.equal(existsSync(path), false, 'the kubeconfig is removed');
        await assert.rejects(transport.request({ method: 'GET', path: '/api/v1/namespaces' }));
      } finally {
        transport.close();
      }
    } finally {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
  });
});
