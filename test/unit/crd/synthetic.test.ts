import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { renderTypeScript, syntheticApi, writeFiles } from '../../../bench/synthetic-api.ts';
import { generateCrds } from '../../../src/generate/crd/index.ts';

describe('bench synthetic API', () => {
  const dir = mkdtempSync(join(tmpdir(), 'op-gen-synthetic-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('renders TypeScript that generate crd turns into one CRD per kind with every field', async () => {
    const api = syntheticApi({ kinds: 3, fields: 10 });
    writeFiles(dir, renderTypeScript(api));
    const { crds } = await generateCrds({ cwd: dir, check: true });
    assert.equal(crds.length, 3);
    const spec = crds[0]?.spec.versions[0]?.schema.openAPIV3Schema.properties?.spec;
    assert.equal(Object.keys(spec?.properties ?? {}).length, 10);
    assert.equal(spec?.properties?.listMap3?.['x-kubernetes-list-type'], 'map');
    assert.equal(spec?.properties?.boundedInt0?.maximum, 1000);
    assert.deepEqual(crds[0]?.spec.versions[0]?.subresources, { status: {} });
  });
});
