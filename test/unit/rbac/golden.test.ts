import assert from 'node:assert/strict';
import { basename, dirname, join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { planRbac, type GenerateRbacOptions } from '../../../src/generate/rbac/generate-rbac.ts';
import { assertGoldenDir } from '../../helpers/golden.ts';

const here = dirname(fileURLToPath(import.meta.url));
const fixtures = join(here, '../../fixtures/rbac');
const goldens = join(here, '../../golden/rbac');

/** Each case: a fixture project and options; its goldens are test/golden/rbac/<name>/*.yaml. */
const cases: { name: string; fixture: string; options?: Partial<GenerateRbacOptions> }[] = [
  { name: 'memcached', fixture: 'memcached' },
  { name: 'memcached-no-infer', fixture: 'memcached', options: { infer: false } },
  { name: 'multi', fixture: 'multi' },
  { name: 'dependents', fixture: 'dependents' },
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
      assertGoldenDir(join(goldens, c.name), new Map(plan.files.map((f) => [basename(f.path), f.content])));
    });
  }

  it('is deterministic across runs', () => {
    const a = planRbac({ cwd: join(fixtures, 'multi') }).files;
    const b = planRbac({ cwd: join(fixtures, 'multi') }).files;
    assert.deepEqual(a, b);
  });
});
