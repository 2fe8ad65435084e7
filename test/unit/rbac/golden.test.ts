import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { planRbac, type GenerateRbacOptions } from '../../../src/generate/rbac/generate-rbac.ts';

const here = dirname(fileURLToPath(import.meta.url));
const fixtures = join(here, '../../fixtures/rbac');
const goldens = join(here, '../../golden/rbac');
const update = process.env.UPDATE_GOLDEN === '1';

/** Each case: a fixture project and options; its goldens are test/golden/rbac/<name>/*.yaml. */
const cases: { name: string; fixture: string; options?: Partial<GenerateRbacOptions> }[] = [
  { name: 'memcached', fixture: 'memcached' },
  { name: 'memcached-no-infer', fixture: 'memcached', options: { infer: false } },
  { name: 'multi', fixture: 'multi' },
  {
    name: 'multi-options',
    fixture: 'multi',
    options: { roleName: 'custom-role', namespace: 'ops', serviceAccount: 'multi-sa' },
  },
];

describe('generate rbac goldens (UPDATE_GOLDEN=1 rewrites them)', () => {
  for (const c of cases) {
    it(c.name, () => {
      const plan = planRbac({ cwd: join(fixtures, c.fixture), ...c.options });
      const dir = join(goldens, c.name);
      if (update) {
        rmSync(dir, { recursive: true, force: true });
        mkdirSync(dir, { recursive: true });
        for (const f of plan.files) writeFileSync(join(dir, basename(f.path)), f.content);
      }
      assert.ok(existsSync(dir), `no goldens for ${c.name}: run with UPDATE_GOLDEN=1 and review them`);
      assert.deepEqual(plan.files.map((f) => basename(f.path)).sort(), readdirSync(dir).sort());
      for (const f of plan.files) {
        assert.equal(
          f.content,
          readFileSync(join(dir, basename(f.path)), 'utf8'),
          `${c.name}/${basename(f.path)}`,
        );
      }
    });
  }

  it('is deterministic across runs', () => {
    const a = planRbac({ cwd: join(fixtures, 'multi') }).files;
    const b = planRbac({ cwd: join(fixtures, 'multi') }).files;
    assert.deepEqual(a, b);
  });
});
