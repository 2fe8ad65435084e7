import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parse } from 'yaml';
import { defineKind } from '../../../src/client/kind.ts';
import { ResourceClient } from '../../../src/client/resource-client.ts';
import { Transport } from '../../../src/client/transport.ts';
import { generateCrds } from '../../../src/generate/crd/index.ts';
import {
  controlPlaneSkip,
  installCrd,
  startControlPlane,
  type ControlPlane,
} from '../../../src/testing/index.ts';

/**
 * Issue 37 item 7: `self == oldSelf` on object-typed fields (what `@immutable` writes on one, and what
 * real APIs write by hand on lists and maps of objects) passes op-gen's CEL check, and the API server
 * accepts the CRD and enforces the rule; a printer column with priority 0 is written without it.
 */
const FIXTURE = new URL('../../fixtures/crd/object-equality/', import.meta.url).pathname;

interface Thing {
  metadata: { name: string; namespace: string; resourceVersion?: string };
  spec: { ref?: { name: string; port?: number }; refs?: { name: string }[] };
}

describe(
  'CEL equality on objects, on a real API server',
  { timeout: 300_000, skip: controlPlaneSkip() },
  () => {
    let cp: ControlPlane;
    let transport: Transport;
    const dir = mkdtempSync(join(tmpdir(), 'op-gen-object-equality-'));
    before(async () => {
      cp = await startControlPlane();
      transport = await Transport.fromKubeConfig(cp.kubeConfig);
    });
    after(async () => {
      transport?.close();
      await cp?.stop();
      rmSync(dir, { recursive: true, force: true });
    });

    it('generate crd accepts the rules, the API server accepts the CRD and enforces them', async () => {
      cpSync(FIXTURE, dir, { recursive: true });
      await generateCrds({ cwd: dir });
      const text = readFileSync(join(dir, 'config/crd/bases/things.example.com_things.yaml'), 'utf8');
      const crd = parse(text) as {
        spec: { versions: { additionalPrinterColumns: Record<string, unknown>[] }[] };
      };
      const columns = crd.spec.versions[0]?.additionalPrinterColumns ?? [];
      assert.deepEqual(
        columns.map((c) => c.priority),
        [undefined, 1],
        'priority 0 left out, as controller-gen does',
      );
      await installCrd(cp.kubeConfig, text);
      const things = new ResourceClient(
        transport,
        defineKind<Thing>({
          group: 'things.example.com',
          version: 'v1',
          kind: 'Thing',
          plural: 'things',
          namespaced: true,
        }),
      );
      const created = await things.create({
        metadata: { name: 'a', namespace: 'default' },
        spec: { ref: { name: 'db', port: 5432 }, refs: [{ name: 'x' }] },
      });
      // The same object again: the rules hold.
      const same = await things.replace({ ...created, spec: { ...created.spec } });
      await assert.rejects(
        things.replace({ ...same, spec: { ...same.spec, ref: { name: 'db', port: 5433 } } }),
        /field is immutable/,
      );
      await assert.rejects(
        things.replace({ ...same, spec: { ...same.spec, refs: [{ name: 'y' }] } }),
        /refs are immutable/,
      );
    });
  },
);
