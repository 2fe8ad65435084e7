import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { parse } from 'yaml';
import { generateCrds, VERSION_ANNOTATION } from '../../../src/generate/crd/index.ts';

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
  it('gives the same CRD as controller-gen for the equivalent Go types', async () => {
    const { crds } = await generateCrds({ cwd: FIXTURE, apiDir: 'api', check: true });
    const ours = JSON.parse(JSON.stringify(crds[0])) as { metadata: { annotations: Record<string, string> } };
    const theirs = parse(readFileSync(CONTROLLER_GEN, 'utf8')) as {
      metadata: { annotations: Record<string, string> };
    };
    assert.ok(ours.metadata.annotations[VERSION_ANNOTATION]);
    delete ours.metadata.annotations[VERSION_ANNOTATION];
    delete theirs.metadata.annotations['controller-gen.kubebuilder.io/version'];
    assert.deepEqual(ours, theirs);
  });
});
