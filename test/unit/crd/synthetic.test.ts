import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { renderGo, renderTypeScript, syntheticApi, writeFiles } from '../../../bench/synthetic-api.ts';
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

  it('renders the same model as Go types with the equivalent markers', () => {
    const go = renderGo(syntheticApi({ kinds: 2, fields: 5 }));
    assert.deepEqual([...go.keys()].sort(), [
      'api/v1/groupversion_info.go',
      'api/v1/widget000_types.go',
      'api/v1/widget001_types.go',
      'go.mod',
    ]);
    const types = go.get('api/v1/widget000_types.go') ?? '';
    for (const marker of [
      '+kubebuilder:validation:Minimum=0',
      '+listType=map',
      '+listMapKey=name',
      '+kubebuilder:validation:Enum=Alpha;Beta;Gamma2',
      '+kubebuilder:subresource:status',
    ]) {
      assert.ok(types.includes(marker), marker);
    }
  });
});
