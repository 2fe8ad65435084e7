import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CrdSync, type CrdManifest } from '../../../src/dev-loop/crd-sync.ts';
import { OpGenError } from '../../../src/errors.ts';

const crd = (name: string, minimum: number): CrdManifest => ({
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name },
  spec: { versions: [{ name: 'v1', schema: { openAPIV3Schema: { properties: { size: { minimum } } } } }] },
});

function recordingApplier(fail: Set<string> = new Set()): {
  applied: string[];
  apply(c: CrdManifest): Promise<void>;
} {
  const applied: string[] = [];
  return {
    applied,
    apply: async (c) => {
      if (fail.has(c.metadata.name)) throw new Error('the server said no');
      applied.push(c.metadata.name);
    },
  };
}

describe('CrdSync', () => {
  it('applies every CRD first, then only those whose content changed', async () => {
    const applier = recordingApplier();
    const sync = new CrdSync(applier);
    assert.deepEqual(await sync.sync([crd('a.x', 1), crd('b.x', 1)]), {
      applied: ['a.x', 'b.x'],
      unchanged: [],
      dropped: [],
    });
    assert.deepEqual(await sync.sync([crd('a.x', 1), crd('b.x', 2)]), {
      applied: ['b.x'],
      unchanged: ['a.x'],
      dropped: [],
    });
    assert.deepEqual(await sync.sync([crd('b.x', 2)]), { applied: [], unchanged: ['b.x'], dropped: ['a.x'] });
    assert.deepEqual(applier.applied, ['a.x', 'b.x', 'b.x']);
  });

  it('does not record a CRD as applied when the apply failed: it is sent again next round', async () => {
    const fail = new Set(['a.x']);
    const applier = recordingApplier(fail);
    const sync = new CrdSync(applier);
    await assert.rejects(sync.sync([crd('a.x', 1), crd('b.x', 1)]), (err: Error) => {
      assert.ok(err instanceof OpGenError);
      assert.match(
        err.message,
        /applying 1 CRD\(s\) failed \(applied: b\.x\):\n {2}a\.x: the server said no/,
      );
      return true;
    });
    fail.clear();
    assert.deepEqual((await sync.sync([crd('a.x', 1), crd('b.x', 1)])).applied, ['a.x']);
  });

  it('compares content, not identity: a CRD mutated after sync is still seen as applied content', async () => {
    const applier = recordingApplier();
    const sync = new CrdSync(applier);
    const first = crd('a.x', 1);
    await sync.sync([first]);
    (first.spec as { versions: unknown[] }).versions = [];
    assert.deepEqual((await sync.sync([crd('a.x', 1)])).applied, []);
  });
});
