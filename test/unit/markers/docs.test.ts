import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import { renderCrdMarkersDoc } from '../../../src/generate/marker-docs.ts';
import { crdMarkerSpecs } from '../../../src/generate/crd/markers.ts';
import { assertGolden } from '../../helpers/golden.ts';
import { webhookMarkerSpecs } from '../../../src/generate/webhook/markers.ts';

const DOC = new URL('../../../docs/markers.md', import.meta.url);

describe('docs/markers.md', () => {
  it('is generated from the registry (UPDATE_GOLDEN=1 rewrites it)', () => {
    assertGolden(fileURLToPath(DOC), renderCrdMarkersDoc());
  });

  it('documents every marker, supported or left out with a reason', () => {
    const doc = renderCrdMarkersDoc();
    for (const spec of [...crdMarkerSpecs, ...webhookMarkerSpecs]) {
      if (spec.unsupported) assert.ok(doc.includes(spec.unsupported.replace(/\|/g, '\\|')), spec.name);
      else assert.ok(doc.includes(`\`@${spec.name}\``), spec.name);
      assert.ok(spec.unsupported || spec.help.length > 0, `${spec.name} has help text`);
    }
  });
});
