import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { MarkerRegistry } from '../../../src/markers/registry.ts';
import { goForms } from '../../../src/generate/go-forms.ts';
import { MARKER_TABLES, markerNames } from '../../../src/generate/generator-markers.ts';
import { GENERATOR_NAMES, loadGenerator } from '../../../src/generate/registry.ts';

const GENERATE = fileURLToPath(new URL('../../../src/generate/', import.meta.url));

describe('the marker tables the generators declare (generate/generator-markers.ts)', () => {
  it("are each generator's `markers`", async () => {
    for (const name of GENERATOR_NAMES)
      assert.deepEqual((await loadGenerator(name)).markers, markerNames(name), name);
    assert.deepEqual(markerNames('rbac'), ['rbac']);
    assert.deepEqual(markerNames('webhook'), ['webhook', 'webhookconfiguration']);
    assert.deepEqual(markerNames('client'), []);
  });

  it('hold every marker table of src/generate, so the Go-form hints know every marker', async () => {
    const files = readdirSync(GENERATE, { recursive: true, encoding: 'utf8' }).filter(
      (f) => f.endsWith('.ts') && /new MarkerRegistry\b/.test(readFileSync(join(GENERATE, f), 'utf8')),
    );
    assert.ok(files.length >= 4, files.join(', '));
    for (const file of files) {
      const module = (await import(pathToFileURL(join(GENERATE, file)).href)) as Record<string, unknown>;
      const tables = Object.values(module).filter((v) => v instanceof MarkerRegistry);
      assert.ok(tables.length > 0, file);
      for (const table of tables) assert.ok(MARKER_TABLES.includes(table as MarkerRegistry<unknown>), file);
    }
    // One controller-gen name of each table gets its op-gen form.
    for (const goForm of [
      'kubebuilder:validation:Minimum=0',
      'kubebuilder:rbac:groups=apps,resources=deployments,verbs=get',
      'kubebuilder:webhook:path=/x',
      'operator-sdk:csv:customresourcedefinitions:displayName="X"',
    ])
      assert.ok(goForms.hint(goForm).spec, goForm);
  });
});
