import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { parse } from 'yaml';
import { generateCrds } from '../../../src/generate/crd/index.ts';
import { PACKAGE_VERSION } from '../../helpers/package-version.ts';

type Crd = { metadata: { name: string; annotations: Record<string, string> } };

const FIXTURE = new URL('../../fixtures/crd/parity/', import.meta.url).pathname;
const CONTROLLER_GEN = new URL(
  '../../golden/crd/controller-gen/shop.example.com_widgets.yaml',
  import.meta.url,
);

/**
 * The same API written in Go (test/fixtures/crd/parity/go, with +kubebuilder markers) and in
 * TypeScript (test/fixtures/crd/parity/api): op-gen's CRD must equal controller-gen v0.23.0's, apart
 * from the version annotation. Regenerate the Go side with:
 *   cd test/fixtures/crd/parity/go && controller-gen crd paths=./api/... output:crd:dir=../../../../golden/crd/controller-gen
 */
describe('parity with controller-gen', () => {
  for (const file of ['shop.example.com_widgets.yaml', 'shop.example.com_gadgetries.yaml']) {
    it(`${file}: the same CRD as controller-gen for the equivalent Go types`, async () => {
      const { crds } = await generateCrds({ cwd: FIXTURE, apiDir: 'api', check: true });
      const theirs = parse(readFileSync(new URL(file, CONTROLLER_GEN), 'utf8')) as Crd;
      const found = crds.find((c) => c.metadata.name === theirs.metadata.name);
      assert.ok(found, `op-gen wrote no ${theirs.metadata.name}`);
      const ours = JSON.parse(JSON.stringify(found)) as Crd;
      assert.equal(ours.metadata.annotations['op-gen.io/version'], PACKAGE_VERSION);
      delete ours.metadata.annotations['op-gen.io/version'];
      delete theirs.metadata.annotations['controller-gen.kubebuilder.io/version'];
      assert.deepEqual(ours, theirs);
    });
  }
});
