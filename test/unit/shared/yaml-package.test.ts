import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import type * as Yaml from 'yaml';
import { BUNDLED_YAML, yamlPackage } from '../../../src/shared/yaml-package.ts';
import { assertFloor, assertProperty, fuzzRuns } from '../../helpers/fuzz-runs.ts';

const SRC = new URL('../../../src/', import.meta.url).pathname;

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

describe('yamlPackage', () => {
  it('is the bundled copy once built, and reads and writes YAML exactly as the package does', async (t) => {
    if (!existsSync(BUNDLED_YAML)) return t.skip('dist/vendor/yaml.cjs is not built (npm run build)');
    const require = createRequire(import.meta.url);
    const bundled = yamlPackage();
    const original = require('yaml') as typeof Yaml;
    assert.equal(bundled, require(BUNDLED_YAML), 'the bundle is what op-gen loads');
    assert.notEqual(bundled, original);
    assert.deepEqual(Object.keys(bundled).sort(), Object.keys(original).sort(), 'the same exports');
    const runs = fuzzRuns(300, 20_000);
    let collections = 0;
    await assertProperty(
      t,
      fc.property(fc.jsonValue({ maxDepth: 4 }), fc.boolean(), (value, flow) => {
        if (typeof value === 'object' && value !== null && Object.keys(value).length > 0) collections++;
        const options = { lineWidth: 0, ...(flow ? { collectionStyle: 'flow' as const } : {}) };
        const text = original.stringify(value, options);
        assert.equal(bundled.stringify(value, options), text);
        assert.deepEqual(bundled.parse(text), original.parse(text));
        const doc = bundled.parseDocument(`# c\n${text}`);
        assert.equal(doc.toString(), original.parseDocument(`# c\n${text}`).toString());
        assert.equal(original.isDocument(doc), true, 'node identity works across the two');
      }),
      runs,
    );
    assertFloor(t, 'non-empty maps and lists', collections, runs * 0.2);
  });

  it('is the only way op-gen loads the package: modules import only types from yaml', () => {
    const offenders = sources(SRC).filter((file) =>
      /^import\s+(?!type\b)[^;]*from\s+'yaml';/m.test(readFileSync(file, 'utf8')),
    );
    assert.deepEqual(offenders, [], 'import values through yamlPackage() (src/shared/yaml-package.ts)');
  });
});
