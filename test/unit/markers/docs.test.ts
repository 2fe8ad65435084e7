import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { renderCrdMarkersDoc } from '../../../src/markers/crd-docs.ts';
import { crdMarkerSpecs } from '../../../src/markers/crd.ts';
import { webhookMarkerSpecs } from '../../../src/markers/webhook.ts';

const DOC = new URL('../../../docs/markers.md', import.meta.url);

describe('docs/markers.md', () => {
  it('is generated from the registry (UPDATE_GOLDEN=1 rewrites it)', () => {
    const expected = renderCrdMarkersDoc();
    if (process.env.UPDATE_GOLDEN) writeFileSync(DOC, expected);
    assert.equal(
      readFileSync(DOC, 'utf8'),
      expected,
      'docs/markers.md is stale: run UPDATE_GOLDEN=1 node --test test/unit/markers/docs.test.ts',
    );
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
