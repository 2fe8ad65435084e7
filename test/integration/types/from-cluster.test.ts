import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parse } from 'yaml';
import { Transport } from '../../../src/client/transport.ts';
import { controlPlaneSkip, startControlPlane, type ControlPlane } from '../../../src/testing/index.ts';

const CRD = new URL('../../fixtures/types/crds/certificates.cert-manager.io.yaml', import.meta.url).pathname;
const GOLDEN = new URL('../../golden/types/cert-manager.io/v1/certificate.ts', import.meta.url).pathname;
const BIN = new URL('../../../bin/op-gen.js', import.meta.url).pathname;

describe('generate types --from-cluster', { timeout: 60_000, skip: controlPlaneSkip() }, () => {
  let cp: ControlPlane;
  const out = mkdtempSync(join(tmpdir(), 'op-gen-types-cluster-'));
  before(async () => {
    cp = await startControlPlane();
    // Raw JSON: client-node's typed CRD model would drop `enum` (it names the field `_enum`).
    const transport = await Transport.fromKubeConfig(cp.kubeConfig);
    await transport.request({
      method: 'POST',
      path: '/apis/apiextensions.k8s.io/v1/customresourcedefinitions',
      body: parse(readFileSync(CRD, 'utf8')),
    });
    transport.close();
  });
  after(async () => {
    await cp?.stop();
    rmSync(out, { recursive: true, force: true });
  });

  const run = (...args: string[]) =>
    spawnSync(process.execPath, [BIN, 'generate', 'types', ...args], {
      cwd: out,
      encoding: 'utf8',
      env: { ...process.env, KUBECONFIG: cp.kubeconfigPath },
    });

  it('reads a CRD from the current kubeconfig cluster and writes the same types as from the file', () => {
    const r = run('--from-cluster', 'certificates.cert-manager.io', '--out', 'types');
    assert.equal(r.status, 0, r.stderr);
    assert.equal(
      readFileSync(join(out, 'types/cert-manager.io/v1/certificate.ts'), 'utf8'),
      readFileSync(GOLDEN, 'utf8'),
    );
  });

  it('names a CRD the cluster does not have', () => {
    const r = run('--from-cluster', 'nothere.example.com', '--out', 'types2');
    assert.equal(r.status, 1);
    assert.match(r.stderr, /CRD nothere\.example\.com is not in the cluster/);
  });
});
